package main

import (
	"os"

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
	c.Flags().StringArrayVar(&f.hosts, "host", nil, "agent host whose roots to use: agents, claude, codex, gaia, opencode (repeatable)")
	c.Flags().StringVar(&f.scope, "scope", "", "user or project roots (default: user; list shows both)")
	c.Flags().StringArrayVar(&f.roots, "root", nil, "a custom root `DIR` instead of a host's (repeatable)")
}

func osEnv() install.Env {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return install.Env{Home: home, Cwd: cwd, Getenv: os.Getenv}
}

// targets returns the roots to write to: the custom roots, else one root
// per host at the chosen scope (default host def, default scope user).
func (f *rootFlags) targets(def install.Host) ([]install.Root, error) {
	if len(f.roots) > 0 {
		var out []install.Root
		for _, r := range f.roots {
			out = append(out, install.Root{Host: "custom", Scope: "custom", Dir: r})
		}
		return out, nil
	}
	scope := install.ScopeUser
	if f.scope != "" {
		s, err := install.ParseScope(f.scope)
		if err != nil {
			return nil, &usageError{err}
		}
		scope = s
	}
	hosts, err := f.hostList(def)
	if err != nil {
		return nil, err
	}
	var out []install.Root
	for _, h := range hosts {
		d, err := install.RootDir(h, scope, osEnv())
		if err != nil {
			return nil, err
		}
		out = append(out, install.Root{Host: h, Scope: scope, Dir: d})
	}
	return out, nil
}

// searched returns the roots to read, in precedence order per host: the
// custom roots, else every host's (or the named hosts') project and user
// roots, or only the chosen scope.
func (f *rootFlags) searched() ([]install.Root, error) {
	if len(f.roots) > 0 {
		return f.targets(install.DefaultHost)
	}
	var hosts []install.Host
	if len(f.hosts) == 0 {
		hosts = install.Hosts()
	} else {
		var err error
		if hosts, err = f.hostList(""); err != nil {
			return nil, err
		}
	}
	var out []install.Root
	for _, h := range hosts {
		roots, err := install.SearchRoots(h, osEnv())
		if err != nil {
			return nil, err
		}
		for _, r := range roots {
			if f.scope == "" || string(r.Scope) == f.scope {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func (f *rootFlags) hostList(def install.Host) ([]install.Host, error) {
	if len(f.hosts) == 0 {
		return []install.Host{def}, nil
	}
	var out []install.Host
	for _, s := range f.hosts {
		h, err := install.ParseHost(s)
		if err != nil {
			return nil, &usageError{err}
		}
		out = append(out, h)
	}
	return out, nil
}
