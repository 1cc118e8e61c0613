package engine

import (
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

// placedRoots returns the roots t names in env, placed as t.Placement says
// ("" copies into each host's own root): the custom roots, else the hosts'
// roots at t's scope (hosts default to def, scope to user), with what the
// placement says about them (install.PlaceRoots). Hosts that share a root
// (the .agents family at project scope) share one copy.
func placedRoots(env hosts.Env, t Target, def install.HostID) (*install.Placed, error) {
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
	hs, err := hostList(env, t.Hosts, def)
	if err != nil {
		return nil, err
	}
	return place(hs, scope, env, t.Placement)
}

// place is install.PlaceRoots with "" as install.PlaceCopy; a host
// without project roots asked for them is an invalid request.
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
// separated) against env's hosts table, each host once; none means def.
func hostList(env hosts.Env, names []string, def install.HostID) ([]install.HostID, error) {
	if len(names) == 0 {
		return []install.HostID{def}, nil
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

// defaultHost is the one rule for the host an operation writes to when
// none is named: configured (the configuration's host:), else the single
// host whose roots (project or user) already hold skills skillpm
// installed, else install.DefaultHost when none holds any. When several
// hosts hold skills it fails with *SeveralHostsError: guessing would put a
// skill where the user's agent does not look.
func defaultHost(env hosts.Env, configured install.HostID) (install.HostID, error) {
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

// rootsHolding returns, when t is empty, every host's roots (project and
// user) whose receipts hold any of names (any skill when names is
// empty); otherwise the roots t names. searchedAll says which it was.
func rootsHolding(env hosts.Env, t Target, def install.HostID, names []string) (roots []install.Root, searchedAll bool, err error) {
	if !t.empty() {
		p, err := placedRoots(env, t, def)
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

// projectScope is the scope a manifest installs into: scope: as written,
// else project for skills.yaml (its skills belong to the project) and user
// for a GAIA agent's gaia-agent.yaml (the agent reads the user's roots).
func projectScope(m *resolve.Manifest) install.Scope {
	if m.Scope != "" {
		return install.Scope(m.Scope)
	}
	if b := filepath.Base(m.File); b == resolve.AgentManifestFile || b == "gaia-agent.yml" {
		return install.ScopeUser
	}
	return install.ScopeProject
}

// projectRoots returns where a project's skills go: t's roots, else the
// hosts of t, the manifest's hosts: or host:, else defaultHost's; at t's
// scope, else the manifest's (projectScope); placed as t.Placement says
// ("" copies into each host's own root). Project roots are under the
// manifest's directory, wherever the program runs. A host is any of env's
// table, the user's hosts file included, as --host takes it.
func projectRoots(env hosts.Env, t Target, m *resolve.Manifest, configured install.HostID) (*install.Placed, error) {
	if len(t.Roots) > 0 {
		return placedRoots(env, t, install.DefaultHost)
	}
	scope := projectScope(m)
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
		h, err := defaultHost(env, configured)
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
