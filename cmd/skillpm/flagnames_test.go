package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// notShared are the flags named as a concept of sharedConcepts that mean
// something else, with why.
var notShared = map[string]string{
	"skillpm trust add --scope": "the repositories a trusted key's signatures count for, not the roots' user or project",
	"skillpm info --manifest":   "prints the OCI manifest as stored (a switch), not a project manifest file",
}

// TestFlagConcepts walks every command's flags: a concept of flagConcepts
// is named by its one flag; an older spelling is only a hidden,
// deprecated alias sharing the flag's value; a concept's flag has one
// value type everywhere; a flag of sharedConcepts is declared by its
// binder in options.go (its annotation says so); and a --host is
// repeatable, or, on a command that acts for one host, says so in its
// help and refuses a second --host.
func TestFlagConcepts(t *testing.T) {
	types := map[string]string{}
	where := map[string]string{}
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := c.CommandPath()
		for _, name := range sharedConcepts {
			for _, fs := range []*pflag.FlagSet{c.LocalNonPersistentFlags(), c.PersistentFlags()} {
				f := fs.Lookup(name)
				if f == nil {
					continue
				}
				key := path + " --" + name
				if notShared[key] != "" {
					seen[key] = true
					continue
				}
				if len(f.Annotations[sharedFlag]) == 0 {
					t.Errorf("%s is declared by the command itself: bind it with options.go's binder", key)
				}
				if name == "host" {
					checkHostFlag(t, key, f)
				}
			}
		}
		for _, concept := range flagConcepts {
			canonical := c.Flags().Lookup(concept.name)
			if canonical == nil {
				canonical = c.InheritedFlags().Lookup(concept.name)
			}
			if canonical != nil && notShared[path+" --"+concept.name] == "" {
				typ := canonical.Value.Type()
				if _, one := canonical.Value.(*oneHost); one {
					// One host where one is the only meaning
					// (checkHostFlag); a host's value all the same.
					typ = "stringArray"
				}
				if prev, ok := types[concept.name]; ok && prev != typ {
					t.Errorf("%s --%s is a %s, %s's a %s: one concept, one type", path, concept.name, typ, where[concept.name], prev)
				} else if !ok {
					types[concept.name], where[concept.name] = typ, path
				}
			}
			for _, old := range concept.aliases {
				f := c.Flags().Lookup(old)
				if f == nil {
					continue
				}
				switch {
				case canonical == nil && f.Hidden && f.Deprecated != "" && sharesValue(c, f):
					// an old name of another flag (migrate --from is --format)
				case canonical == nil:
					t.Errorf("%s names %s --%s; the flag is --%s", path, concept.name, old, concept.name)
				case !f.Hidden || f.Deprecated == "":
					t.Errorf("%s --%s is a second visible name of --%s: make it a hidden deprecated alias (deprecatedAlias)", path, old, concept.name)
				case f.Value != canonical.Value:
					t.Errorf("%s --%s does not set --%s's value", path, old, concept.name)
				}
			}
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Shorthand == "o" && f.Name != "output" {
				t.Errorf("%s -o is --%s; -o is --output everywhere", path, f.Name)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(&globals{}))
	for key := range notShared {
		if !seen[key] {
			t.Errorf("%s is listed in notShared but no longer declared: take it off the list", key)
		}
	}
}

// checkHostFlag checks one --host: repeatable, or one host's, saying so
// in its help and refusing a second value.
func checkHostFlag(t *testing.T, key string, f *pflag.Flag) {
	t.Helper()
	if f.Value.Type() == "stringArray" {
		return
	}
	h, ok := f.Value.(*oneHost)
	if !ok {
		t.Errorf("%s is a %s: a --host is repeatable (bindHosts) or one host's (bindOneHost)", key, f.Value.Type())
		return
	}
	if !strings.Contains(f.Usage, "(one host") {
		t.Errorf("%s takes one host but its help does not say so: %q", key, f.Usage)
	}
	probe := &oneHost{name: h.name}
	if err := probe.Set("claude"); err != nil {
		t.Errorf("%s: a first --host is refused: %v", key, err)
	}
	if err := probe.Set("codex"); err == nil || !strings.Contains(err.Error(), "give --host once") {
		t.Errorf("%s: a second --host is taken (err %v): it must be refused", key, err)
	}
}

// sharesValue reports whether another flag of c sets f's value.
func sharesValue(c *cobra.Command, f *pflag.Flag) bool {
	shared := false
	c.Flags().VisitAll(func(o *pflag.Flag) {
		if o != f && o.Value == f.Value {
			shared = true
		}
	})
	return shared
}

// TestDeprecatedAliasWarns: an old spelling still works, says what to
// use instead as a warning on stderr (a JSON line in JSON mode), and
// never writes to stdout.
func TestDeprecatedAliasWarns(t *testing.T) {
	dir := t.TempDir()
	cliEnv(t, dir)
	var out, errb bytes.Buffer
	// The layout lies in the test's own folder: search builds an index
	// there, which must not land in the source tree.
	code := run(context.Background(), []string{"search", "x", "--source", "oci-layout:" + filepath.Join(dir, "nowhere"), "-o", "json"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(errb.String(), `"level":"warning","message":"Flag --source has been deprecated, use --registry`) {
		t.Errorf("exit %d; stderr %q: want the deprecation as a JSON warning", code, errb.String())
	}
	if strings.Contains(out.String(), "deprecated") {
		t.Errorf("stdout %q carries the deprecation", out.String())
	}
}
