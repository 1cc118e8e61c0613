// Package install places skills into the discovery roots that agent hosts
// read, as one atomic, locked transaction per root, and keeps receipts of
// what it installed so that list, remove and update know what is there.
package install

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Scope selects user-wide or project-local roots.
type Scope string

// Scopes.
const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// Host names an agent host whose discovery roots skillpm knows.
type Host string

// Known hosts.
const (
	HostGaia     Host = "gaia"
	HostClaude   Host = "claude"
	HostAgents   Host = "agents"
	HostCodex    Host = "codex"
	HostOpenCode Host = "opencode"
)

// DefaultHost is used when neither --host nor configuration names one.
const DefaultHost = HostAgents

// Hosts returns the known hosts, sorted.
func Hosts() []Host {
	return []Host{HostAgents, HostClaude, HostCodex, HostGaia, HostOpenCode}
}

// ParseHost validates a host name.
func ParseHost(s string) (Host, error) {
	for _, h := range Hosts() {
		if string(h) == s {
			return h, nil
		}
	}
	names := make([]string, 0, 5)
	for _, h := range Hosts() {
		names = append(names, string(h))
	}
	return "", fmt.Errorf("unknown host %q: use one of %s, or --root DIR for another directory", s, strings.Join(names, ", "))
}

// String returns the scope name.
func (s Scope) String() string { return string(s) }

// ParseScope validates a scope name.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case ScopeUser, ScopeProject:
		return Scope(s), nil
	}
	return "", fmt.Errorf("unknown scope %q: use user or project", s)
}

// Env is what root resolution reads from the environment, so tests and
// the HTTP API can pass their own.
type Env struct {
	Home   string
	Cwd    string
	Getenv func(string) string
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Root is one discovery root of a host.
type Root struct {
	Host  Host   `json:"host"`
	Scope Scope  `json:"scope"`
	Dir   string `json:"dir"`
}

// RootDir returns the discovery root of host at scope, following the
// hosts' own conventions (GAIA_CONFIG_DIR and CODEX_HOME are honoured).
func RootDir(h Host, s Scope, env Env) (string, error) {
	if s == ScopeProject {
		switch h {
		case HostOpenCode:
			return filepath.Join(env.Cwd, ".opencode", "skills"), nil
		case HostGaia, HostClaude, HostAgents, HostCodex:
			return filepath.Join(env.Cwd, "."+string(h), "skills"), nil
		}
		return "", fmt.Errorf("unknown host %q", h)
	}
	if env.Home == "" {
		return "", fmt.Errorf("cannot find the %s user root: HOME is not set (use --root DIR)", h)
	}
	switch h {
	case HostGaia:
		if d := env.getenv("GAIA_CONFIG_DIR"); d != "" {
			return filepath.Join(d, "skills"), nil
		}
		return filepath.Join(env.Home, ".gaia", "skills"), nil
	case HostClaude:
		return filepath.Join(env.Home, ".claude", "skills"), nil
	case HostAgents:
		return filepath.Join(env.Home, ".agents", "skills"), nil
	case HostCodex:
		if d := env.getenv("CODEX_HOME"); d != "" {
			return filepath.Join(d, "skills"), nil
		}
		return filepath.Join(env.Home, ".codex", "skills"), nil
	case HostOpenCode:
		return filepath.Join(env.Home, ".config", "opencode", "skills"), nil
	}
	return "", fmt.Errorf("unknown host %q", h)
}

// SearchRoots returns a host's roots in precedence order: project scope
// before user scope, as the agentskills client guide asks (GAIA follows
// the same order). Skills found earlier shadow those found later.
func SearchRoots(h Host, env Env) ([]Root, error) {
	var out []Root
	for _, s := range []Scope{ScopeProject, ScopeUser} {
		d, err := RootDir(h, s, env)
		if err != nil {
			return nil, err
		}
		out = append(out, Root{Host: h, Scope: s, Dir: d})
	}
	return out, nil
}

// AllSearchRoots returns the roots of every host, host by host in name
// order, each in precedence order, without duplicates.
func AllSearchRoots(env Env) []Root {
	var out []Root
	seen := map[string]bool{}
	hosts := Hosts()
	sort.Slice(hosts, func(i, j int) bool { return hosts[i] < hosts[j] })
	for _, h := range hosts {
		roots, err := SearchRoots(h, env)
		if err != nil {
			continue // a host without HOME has no user root; the others still count
		}
		for _, r := range roots {
			if !seen[r.Dir] {
				seen[r.Dir] = true
				out = append(out, r)
			}
		}
	}
	return out
}
