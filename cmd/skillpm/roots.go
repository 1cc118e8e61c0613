package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/spf13/cobra"
)

// rootFlags picks discovery roots: --host (repeatable), --scope, --root.
type rootFlags struct {
	hosts []string
	scope string
	roots []string
	// place is how targets reaches the hosts (registerLink; otherwise a
	// copy per root); notes are what targets said about it.
	place install.Placement
	link  bool
	linkc *cobra.Command
	// defLink is link: from skills.yaml or the configuration, nil when
	// neither says.
	defLink *bool
	notes   []string
}

// registerLink adds --link to a command that installs; without it (and
// without link: in the configuration or skills.yaml) a root keeps the
// mode it has.
func (f *rootFlags) registerLink(c *cobra.Command) {
	c.Flags().BoolVar(&f.link, "link", false, "one copy in the agents root, symlinked into each other host's root (--link=false: copies)")
	f.linkc = c
	f.place = install.PlaceAuto
}

// placement is how a command reaches the hosts: a command that does not
// install (place unset) always addresses each host's own root; one that
// does takes --link when given, else link: from skills.yaml or the
// configuration, else keeps each root's mode (PlaceAuto).
func (f *rootFlags) placement() install.Placement {
	switch {
	case f.place == "":
		return install.PlaceCopy
	case f.linkc != nil && f.linkc.Flags().Changed("link"):
		if f.link {
			return install.PlaceLink
		}
		return install.PlaceCopy
	case f.defLink != nil && *f.defLink:
		return install.PlaceLink
	case f.defLink != nil:
		return install.PlaceCopy
	}
	return install.PlaceAuto
}

func (f *rootFlags) register(c *cobra.Command) {
	c.Flags().StringArrayVar(&f.hosts, "host", nil, "agent host whose roots to use: one of `skillpm hosts` (repeatable)")
	c.Flags().StringVar(&f.scope, "scope", "", "user or project roots (default: user; list shows both)")
	c.Flags().StringArrayVar(&f.roots, "root", nil, "a custom root `DIR` instead of a host's (repeatable)")
}

// processEnv is the one environment every command resolves roots with:
// home, working directory, variables, and the hosts table with the user's
// hosts file ($SKILLPM_HOSTS, else $XDG_CONFIG_HOME/skillpm/hosts.yaml).
func processEnv() (hosts.Env, error) {
	env := hosts.OSEnv()
	t, err := hosts.Load(env)
	if err != nil {
		return hosts.Env{}, err
	}
	env.Hosts = t
	return env, nil
}

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
	env, err := processEnv()
	if err != nil {
		return nil, err
	}
	hs, err := f.hostList(env, def)
	if err != nil {
		return nil, err
	}
	p, err := install.PlaceRoots(hs, scope, env, f.placement())
	if err != nil {
		if errorsIsNoProject(err) {
			return nil, &usageError{err}
		}
		return nil, err
	}
	f.notes = p.Notes
	return p.Roots, nil
}

// readBy says which hosts load what is installed in r, when more than
// one does: one copy serves them all.
func readBy(r install.Root) string {
	if len(r.ReadBy) < 2 {
		return ""
	}
	return " (one copy, read by " + strings.Join(r.ReadBy, ", ") + ")"
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
	if f.scope != "" {
		if _, err := install.ParseScope(f.scope); err != nil {
			return nil, &usageError{err}
		}
	}
	var all []install.Root
	if len(f.hosts) == 0 {
		all = install.AllSearchRoots(env)
	} else {
		hs, err := f.hostList(env, "")
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			if f.scope == string(install.ScopeProject) {
				if _, err := install.RootDir(h, install.ScopeProject, env); errorsIsNoProject(err) {
					return nil, &usageError{err}
				}
			}
			roots, err := install.SearchRoots(h, env)
			if err != nil {
				return nil, err
			}
			all = append(all, roots...)
		}
	}
	var out []install.Root
	for _, r := range all {
		if f.scope == "" || string(r.Scope) == f.scope {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *rootFlags) hostList(env hosts.Env, def install.Host) ([]install.Host, error) {
	if len(f.hosts) == 0 {
		return []install.Host{def}, nil
	}
	var out []install.Host
	for _, s := range f.hosts {
		for _, name := range strings.Split(s, ",") {
			h, err := install.ParseHostIn(env, strings.TrimSpace(name))
			if err != nil {
				return nil, &usageError{err}
			}
			if !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out, nil
}

func errorsIsNoProject(err error) bool { return errors.Is(err, hosts.ErrNoProjectRoot) }

// printNotes prints what PlaceRoots said about where the hosts were
// served from (a host given a copy where a link was asked for, and why).
func printNotes(g *globals, notes []string) {
	if g.quiet {
		return
	}
	for _, n := range notes {
		fmt.Fprintln(g.stderr, "note: "+n)
	}
}
