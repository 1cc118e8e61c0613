package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagConcepts are the concepts more than one command takes, each with
// its one flag name and the spellings older releases used, which stay
// as hidden deprecated aliases for one release (deprecatedAlias).
// TestFlagConcepts fails on a command that names a concept otherwise.
var flagConcepts = []struct {
	name    string
	aliases []string
}{
	{"registry", []string{"from", "source", "to"}},
	{"output-dir", []string{"out-dir"}},
	{"host", []string{"hosts"}},
	{"scope", nil},
	{"policy", []string{"policy-file"}},
	{"output", nil},
	{"format", nil},
	{"to-registry", nil},
	{"manifest", nil},
	{"lock", nil},
}

// sharedConcepts are the concepts whose flag only options.go's binders
// declare (bindRegistry, bindHosts, bindOneHost, bindScope, bindPolicy,
// bindProject):
// TestFlagConcepts and TestSharedFlagsBoundOnce fail on one declared
// elsewhere.
var sharedConcepts = []string{"registry", "host", "scope", "policy", "manifest", "lock"}

// deprecatedPositional warns that a command was given a registry as an
// argument (index build SOURCE, mirror SOURCE DEST), the form of older releases:
// it still works for one release; use is the form to use instead.
func deprecatedPositional(g *globals, form, use string) {
	g.o().Warn(form + " is deprecated: use " + use + " (the argument form goes in the next release)")
}

// deprecatedAlias adds old to c's flags as a hidden, deprecated second
// name of the flag canonical (registered already): both set the same
// value, and using old prints the name to use instead.
func deprecatedAlias(c *cobra.Command, old, canonical string) {
	f := c.Flags().Lookup(canonical)
	if f == nil {
		panic("deprecatedAlias: " + c.Name() + " has no --" + canonical)
	}
	c.Flags().AddFlag(&pflag.Flag{
		Name: old, Usage: f.Usage, Value: f.Value, DefValue: f.DefValue, NoOptDefVal: f.NoOptDefVal,
		Hidden: true, Deprecated: "use --" + canonical + " (--" + old + " goes in the next release)",
	})
}
