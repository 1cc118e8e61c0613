package main

import (
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
	// place is set on a command that installs (registerLink, update):
	// its roots are placed as --link, link: in skills.yaml or the
	// configuration say (skillpm.Placement; the engine reports its notes);
	// other commands address each host's own root.
	place install.Placement
	link  bool
	linkc *cobra.Command
}

// none reports whether no root flag was given (--host, --scope, --root),
// so the engine's defaults apply.
func (f *rootFlags) none() bool { return len(f.hosts) == 0 && len(f.roots) == 0 && f.scope == "" }

// registerLink adds --link to a command that installs; without it (and
// without link: in the configuration or skills.yaml) a root keeps the
// mode it has.
func (f *rootFlags) registerLink(c *cobra.Command) {
	c.Flags().BoolVar(&f.link, "link", false, "one copy in the agents root, symlinked into each other host's root (--link=false: copies)")
	f.linkc = c
	f.place = install.PlaceAuto
}

func (f *rootFlags) register(c *cobra.Command) {
	bindHosts(c.Flags(), &f.hosts)
	bindScope(c.Flags(), &f.scope, "", "`SCOPE` of the roots, user or project (default: the project's scope in a project, user elsewhere; commands that look for installed skills search both)")
	c.Flags().StringArrayVar(&f.roots, "root", nil, "a custom root `DIR` instead of a host's (repeatable)")
}

// processEnv is the one environment every command resolves roots with
// (hosts.ProcessEnv).
func processEnv() (hosts.Env, error) { return hosts.ProcessEnv() }

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

// readBy says which hosts load what is installed in r, when more than
// one does: one copy serves them all.
func readBy(r install.Root) string {
	if len(r.ReadBy) < 2 {
		return ""
	}
	return " (one copy, read by " + strings.Join(r.ReadBy, ", ") + ")"
}
