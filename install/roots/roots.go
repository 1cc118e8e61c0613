// Package roots decides which roots a request names: the Target a front
// end builds from its host, scope, root and link options; the host
// written to when none is named (DefaultHost); the roots an install
// writes to (Placed) and how it reaches its hosts (Placement); where a
// project's skills go (Project, at ProjectScope); and the roots that the
// reads search (Searched) and that an update or a removal finds its
// skills in (Holding). It reads the hosts table and the receipts and
// writes nothing: package install installs into the roots it returns.
//
// A target the hosts table cannot place (an unknown host or scope,
// project roots of a host that reads none) is ErrInvalidTarget, with the
// table's message.
package roots

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/resolve"
)

// Target names the roots an operation writes to: custom root directories,
// or the roots of hosts at a scope.
type Target struct {
	// Hosts are host ids of the hosts table (a value may list several,
	// comma-separated); none means the default host.
	Hosts []string
	// Scope is "user" or "project"; "" means user (a project's manifest
	// chooses its own, see Project).
	Scope string
	// Roots are custom root directories; they win over Hosts and Scope.
	Roots []string
	// Given are roots as they are, each with its host and scope (one a
	// server's request names); they win over everything else, and no
	// placement applies to them.
	Given []install.Root
	// Placement is how the roots reach the hosts (install.PlaceRoots).
	// Placed, Project and the reads take "" as install.PlaceCopy (each
	// host's own root); the operations that install take "" as the
	// project manifest's link:, else Link, else install.PlaceAuto (see
	// the function Placement).
	Placement install.Placement
	// Link is the configured placement of installs (the configuration's
	// link:): true links each host's root to one copy, false copies; nil
	// keeps each root's mode.
	Link *bool
	// DefaultHost is the host written to when Hosts names none and no
	// project manifest does: the configuration's host:, else
	// install.DefaultHost (the function DefaultHost also asks the roots).
	DefaultHost install.HostID
}

// empty reports whether t names nothing, so defaults apply.
func (t Target) empty() bool { return len(t.Hosts) == 0 && !t.NamesRoots() && t.Scope == "" }

// NamesRoots reports whether t names its roots (Roots or Given) rather
// than hosts: then they are the roots of every operation, a project's
// included.
func (t Target) NamesRoots() bool { return len(t.Roots) > 0 || len(t.Given) > 0 }

// Placement is how an install reaches t's hosts: t.Placement when set,
// else link: from the project manifest m (nil outside a project), else
// t.Link (the configuration's link:), else install.PlaceAuto, which keeps
// the mode the roots have.
func Placement(t Target, m *resolve.Manifest) install.Placement {
	link := t.Link
	if m != nil && m.Link != nil {
		link = m.Link
	}
	switch {
	case t.Placement != "":
		return t.Placement
	case link == nil:
		return install.PlaceAuto
	case *link:
		return install.PlaceLink
	}
	return install.PlaceCopy
}

// Placed returns the roots t names in env, placed as t.Placement says
// ("" copies into each host's own root): the given roots as they are,
// else the custom roots, else the
// hosts' roots at t's scope (hosts default to t.DefaultHost, else to
// install.DefaultHost; scope to user), with what the placement says
// about them (install.PlaceRoots). Hosts that share a root (the .agents
// family at project scope) share one copy.
func Placed(env hosts.Env, t Target) (*install.Placed, error) {
	if len(t.Given) > 0 {
		return &install.Placed{Roots: slices.Clone(t.Given)}, nil
	}
	if len(t.Roots) > 0 {
		out := &install.Placed{}
		for _, r := range t.Roots {
			out.Roots = append(out.Roots, install.Root{Host: "custom", Scope: "custom", Dir: r})
		}
		return out, nil
	}
	scope := install.ScopeUser
	if t.Scope != "" {
		s, err := install.ParseScope(t.Scope)
		if err != nil {
			return nil, invalid(err)
		}
		scope = s
	}
	hs, err := hostList(env, t.Hosts, t.DefaultHost)
	if err != nil {
		return nil, err
	}
	return place(hs, scope, env, t.Placement)
}

// place is install.PlaceRoots with "" as install.PlaceCopy; a host
// without project roots asked for them is an invalid target.
func place(hs []install.HostID, scope install.Scope, env hosts.Env, mode install.Placement) (*install.Placed, error) {
	if mode == "" {
		mode = install.PlaceCopy
	}
	p, err := install.PlaceRoots(hs, scope, env, mode)
	if errors.Is(err, hosts.ErrNoProjectRoot) {
		return nil, invalid(err)
	}
	return p, err
}

// hostList parses host names (each value may list several, comma
// separated) against env's hosts table, each host once; none means def,
// else install.DefaultHost.
func hostList(env hosts.Env, names []string, def install.HostID) ([]install.HostID, error) {
	if len(names) == 0 {
		return []install.HostID{cmp.Or(def, install.DefaultHost)}, nil
	}
	var out []install.HostID
	for _, s := range names {
		for _, name := range strings.Split(s, ",") {
			h, err := install.ParseHostIn(env, strings.TrimSpace(name))
			if err != nil {
				return nil, invalid(err)
			}
			if !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out, nil
}

// DefaultHost is the one rule for the host an operation writes to when
// none is named: configured (the configuration's host:), else the single
// host whose roots (project or user) already hold skills skillpm
// installed, else install.DefaultHost when none holds any. When several
// hosts hold skills it fails with *SeveralHostsError: guessing would put a
// skill where the user's agent does not look.
func DefaultHost(env hosts.Env, configured install.HostID) (install.HostID, error) {
	if configured != "" {
		return configured, nil
	}
	holding := map[install.HostID]bool{}
	for _, r := range install.AllSearchRoots(env) {
		rec, err := install.ReadReceipts(r.Dir)
		if err == nil && len(rec.Skills) > 0 {
			holding[r.Host] = true
		}
	}
	switch len(holding) {
	case 0:
		return install.DefaultHost, nil
	case 1:
		for h := range holding {
			return h, nil
		}
	}
	var names []string
	for h := range holding {
		names = append(names, string(h))
	}
	sort.Strings(names)
	return "", &SeveralHostsError{Hosts: names}
}

// Searched returns the roots read by list and the operations that look
// at what is installed: t's given or custom roots; else, with hosts, each host's
// view (every root it reads, its own and other hosts', in its precedence
// order); else every host's own roots, each directory once. t's scope
// keeps one scope; project scope for a host without project roots is
// ErrInvalidTarget.
func Searched(env hosts.Env, t Target) ([]install.Root, error) {
	if t.NamesRoots() {
		p, err := Placed(env, t)
		if err != nil {
			return nil, err
		}
		return p.Roots, nil
	}
	if t.Scope != "" {
		if _, err := install.ParseScope(t.Scope); err != nil {
			return nil, invalid(err)
		}
	}
	var all []install.Root
	if len(t.Hosts) == 0 {
		all = install.AllSearchRoots(env)
	} else {
		hs, err := hostList(env, t.Hosts, "")
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			if t.Scope == string(install.ScopeProject) {
				if _, err := install.RootDir(h, install.ScopeProject, env); errors.Is(err, hosts.ErrNoProjectRoot) {
					return nil, invalid(err)
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
		if t.Scope == "" || string(r.Scope) == t.Scope {
			out = append(out, r)
		}
	}
	return out, nil
}

// Holding returns, when t is empty, every host's roots (project and
// user) whose receipts hold any of names (any skill when names is
// empty); otherwise the roots t names (Placed: hosts default to
// t.DefaultHost, else install.DefaultHost).
// searchedAll says which it was.
func Holding(env hosts.Env, t Target, names []string) (roots []install.Root, searchedAll bool, err error) {
	if !t.empty() {
		p, err := Placed(env, t)
		if err != nil {
			return nil, false, err
		}
		return p.Roots, false, nil
	}
	for _, r := range install.AllSearchRoots(env) {
		if r.Scope == install.ScopeProject {
			if err := install.CheckProjectRoot(env.Cwd, r.Dir); err != nil {
				return nil, true, err
			}
		}
		rec, err := install.ReadReceipts(r.Dir)
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", r.Dir, err)
		}
		for _, s := range rec.Skills {
			if len(names) == 0 || slices.Contains(names, s.Name) {
				roots = append(roots, r)
				break
			}
		}
	}
	return roots, true, nil
}

// ProjectScope is the scope a manifest installs into: scope: as written,
// else project for skills.yaml (its skills belong to the project) and
// user for a GAIA agent's gaia-agent.yaml (the agent reads the user's
// roots).
func ProjectScope(m *resolve.Manifest) install.Scope {
	if m.Scope != "" {
		return install.Scope(m.Scope)
	}
	if b := filepath.Base(m.File); b == resolve.AgentManifestFile || b == "gaia-agent.yml" {
		return install.ScopeUser
	}
	return install.ScopeProject
}

// Project returns where a project's skills go: t's roots, else the hosts
// of t, the manifest's hosts: or host:, else DefaultHost's; at t's scope,
// else the manifest's (ProjectScope); placed as t.Placement says ("" copies
// into each host's own root). Project roots are under the manifest's
// directory, wherever the program runs. A host is any of env's table, the
// user's hosts file included, as --host takes it.
func Project(env hosts.Env, t Target, m *resolve.Manifest) (*install.Placed, error) {
	if t.NamesRoots() {
		return Placed(env, t)
	}
	scope := ProjectScope(m)
	if t.Scope != "" {
		s, err := install.ParseScope(t.Scope)
		if err != nil {
			return nil, invalid(err)
		}
		scope = s
	}
	if m.Dir != "" {
		env.Cwd = m.Dir
	}
	names := t.Hosts
	if len(names) == 0 {
		names = m.Hosts
		if len(names) == 0 && m.Host != "" {
			names = []string{m.Host}
		}
	}
	var hs []install.HostID
	for _, s := range names {
		h, err := install.ParseHostIn(env, s)
		if err != nil {
			return nil, invalid(fmt.Errorf("%s: %w", m.File, err))
		}
		hs = append(hs, h)
	}
	if len(hs) == 0 {
		h, err := DefaultHost(env, t.DefaultHost)
		if err != nil {
			return nil, err
		}
		hs = []install.HostID{h}
	}
	mode := t.Placement
	if mode == "" {
		mode = install.PlaceCopy
	}
	return install.PlaceRoots(hs, scope, env, mode)
}
