package main

import (
	"strings"

	spm "github.com/skillpm/skillpm"
	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/spf13/cobra"
)

// rootFlags picks discovery roots: --host (repeatable), --scope, --root.
type rootFlags struct {
	hosts []string
	scope string
	roots []string
}

func (f *rootFlags) register(c *cobra.Command) {
	c.Flags().StringArrayVar(&f.hosts, "host", nil, "agent host whose roots to use: one of `skillpm hosts` (repeatable)")
	c.Flags().StringVar(&f.scope, "scope", "", "user or project roots (default: user; list shows both)")
	c.Flags().StringArrayVar(&f.roots, "root", nil, "a custom root `DIR` instead of a host's (repeatable)")
}

// processEnv is the one environment every command resolves roots with
// (skillpm.ProcessEnv).
func processEnv() (hosts.Env, error) { return spm.ProcessEnv() }

// osEnv is processEnv for callers that cannot fail: a broken user hosts
// file falls back to the built-in table (the commands that resolve roots
// report it).
func osEnv() install.Env {
	env, err := processEnv()
	if err != nil {
		return hosts.OSEnv()
	}
	return env
}

// targets returns the roots to write to: the custom roots, else one root
// per host at the chosen scope (default host def, default scope user).
func (f *rootFlags) targets(def install.Host) ([]install.Root, error) {
	if len(f.roots) > 0 {
		return spm.Roots(hosts.Env{}, f.target(), def)
	}
	env, err := processEnv()
	if err != nil {
		return nil, err
	}
	roots, err := spm.Roots(env, f.target(), def)
	return roots, rootsErr(nil, err)
}

// readBy says which hosts load what is installed in dir, when more than
// one does: one copy serves them all.
func readBy(dir string) string {
	env := osEnv()
	ids := env.Table().Readers(dir, env)
	if len(ids) < 2 {
		return ""
	}
	return " (one copy, read by " + strings.Join(ids, ", ") + ")"
}

// searched returns the roots to read. With --host, each named host's view:
// every root it reads, its own and other hosts', in its precedence order.
// Without, every host's own roots, each directory once. --scope keeps one
// scope; --scope project for a host without project roots is refused.
func (f *rootFlags) searched() ([]install.Root, error) {
	if len(f.roots) > 0 {
		return f.targets(install.DefaultHost)
	}
	env, err := processEnv()
	if err != nil {
		return nil, err
	}
	roots, err := spm.SearchedRoots(env, f.target())
	return roots, rootsErr(nil, err)
}
