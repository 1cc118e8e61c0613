// Package install places skills into the discovery roots that agent hosts
// read, as one atomic, locked transaction per root, and keeps receipts of
// what it installed so that list, remove and update know what is there.
package install

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/hosts"
)

// Scope selects user-wide or project-local roots.
type Scope = hosts.Scope

// Scopes.
const (
	ScopeUser    = hosts.ScopeUser
	ScopeProject = hosts.ScopeProject
)

// HostID names an agent host: the id of a row of the hosts table
// (hosts.Host.ID), as --host and host: take it.
type HostID string

// Hosts skillpm names in code; the table knows many more.
const (
	HostGaia     HostID = "gaia"
	HostClaude   HostID = "claude"
	HostAgents   HostID = "agents"
	HostCodex    HostID = "codex"
	HostOpenCode HostID = "opencode"
)

// DefaultHost is used when neither --host nor configuration names one.
const DefaultHost = HostAgents

// Env is what root resolution reads from the environment (home, working
// directory, variables, hosts table); the one type install, list, the
// ASF runner and the HTTP API share.
type Env = hosts.Env

// Hosts returns the hosts of the built-in table, sorted.
func Hosts() []HostID { return HostsIn(Env{}) }

// HostsIn returns the hosts of env's table, sorted.
func HostsIn(env Env) []HostID {
	var out []HostID
	for _, id := range env.Table().IDs() {
		out = append(out, HostID(id))
	}
	return out
}

// ParseHost validates a host name against the built-in table.
func ParseHost(s string) (HostID, error) { return ParseHostIn(Env{}, s) }

// ParseHostIn validates a host name against env's table.
func ParseHostIn(env Env, s string) (HostID, error) {
	if _, err := env.Table().Get(s); err != nil {
		return "", err
	}
	return HostID(s), nil
}

// ParseScope validates a scope name.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case ScopeUser, ScopeProject:
		return Scope(s), nil
	}
	return "", fmt.Errorf("%w %q: use user or project", hosts.ErrUnknownScope, s)
}

// Root is one discovery root as one host reads it.
type Root struct {
	// Host is the host whose view the root is part of.
	Host HostID `json:"host"`
	// Scope is user or project.
	Scope Scope `json:"scope"`
	// Dir is the absolute directory.
	Dir string `json:"dir"`
	// Owner is the host whose own root this is, when not Host (Codex
	// reads the agents roots, OpenCode Claude's).
	Owner HostID `json:"owner,omitempty"`
	// ReadBy are the hosts that read Dir (set for install targets, from
	// the hosts table); receipts record them.
	ReadBy []string `json:"readBy,omitempty"`
	// Link, when set, makes the root an install --link target: each skill
	// is a symlink to the same-named folder in Link, a root the same
	// install commits before this one.
	Link string `json:"link,omitempty"`
	// LinkOnly marks a root this command writes copies into only for the
	// links to them (or updates): it never turns a copy kept for its links
	// into one installed for its own sake.
	LinkOnly bool `json:"linkOnly,omitempty"`
}

// RootDir returns where skillpm installs for host h at scope s: the host's
// first own root of that scope, with the variables that move it (such as
// CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME, GAIA_CONFIG_DIR) expanded.
func RootDir(h HostID, s Scope, env Env) (string, error) {
	d, err := env.Table().RootDir(string(h), s, env)
	if err != nil || s != ScopeProject {
		return d, err
	}
	if err := CheckProjectRoot(env.Cwd, d); err != nil {
		return "", err
	}
	return d, nil
}

// CheckProjectRoot refuses a project root (dir) or its state folder that
// goes out of the project through a symlink: the project's folders come
// with its repository, so a committed .claude/skills -> ~/.ssh would make
// an install write, and a remove delete, there. Every existing path
// from the project down to dir/.skillpm that is a symlink must resolve
// inside the project. A root not under the project is not checked.
func CheckProjectRoot(project, dir string) error {
	if project == "" {
		return nil
	}
	rel, err := filepath.Rel(project, filepath.Join(dir, stateDir))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	real, err := filepath.EvalSymlinks(project)
	if err != nil {
		return nil // no project folder to escape from
	}
	p := project
	for _, el := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, el)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil // nothing more exists below: skillpm makes it
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		target, _ := os.Readlink(p)
		to, err := filepath.EvalSymlinks(p)
		if err == nil {
			if r, err := filepath.Rel(real, to); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				continue
			}
		}
		return fmt.Errorf("%w: %s is a symlink to %s, outside the project %s, so skillpm would write and delete there; replace the link with a folder, or name the folder it points to as the root if you mean to install there", ErrRootOutside, p, target, project)
	}
	return nil
}

// SearchRoots returns every root host h reads, in its precedence order
// (the hosts table's search list), each directory once.
func SearchRoots(h HostID, env Env) ([]Root, error) {
	rs, err := env.Table().SearchRoots(string(h), env)
	if err != nil {
		return nil, err
	}
	out := make([]Root, 0, len(rs))
	for _, r := range rs {
		if r.Scope == ScopeProject {
			if err := CheckProjectRoot(env.Cwd, r.Dir); err != nil {
				return nil, err
			}
		}
		root := Root{Host: h, Scope: r.Scope, Dir: r.Dir}
		if r.Host != string(h) {
			root.Owner = HostID(r.Host)
		}
		out = append(out, root)
	}
	return out, nil
}

// AllSearchRoots returns the own roots of every host, host by host in id
// order, each host's scopes in its precedence order, each directory once
// (under the first host that owns it).
func AllSearchRoots(env Env) []Root {
	var out []Root
	seen := map[string]bool{}
	for _, h := range env.Table().Hosts() {
		for _, s := range ownOrder(h) {
			dirs := h.User
			if s == ScopeProject {
				dirs = h.Project
			}
			for _, d := range dirs {
				p, err := d.Resolve(env)
				if err != nil || seen[p] {
					continue // a root without HOME is skipped; the others still count
				}
				seen[p] = true
				out = append(out, Root{Host: HostID(h.ID), Scope: s, Dir: p})
			}
		}
	}
	return out
}

// ownOrder is the order in which h reads its own scopes.
func ownOrder(h hosts.Host) []Scope {
	var out []Scope
	for _, e := range h.Search {
		if e.Host == "" && e.Dir == nil && !slices.Contains(out, e.Scope) {
			out = append(out, e.Scope)
		}
	}
	for _, s := range []Scope{ScopeProject, ScopeUser} {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
