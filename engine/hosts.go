package engine

import (
	"context"

	"github.com/skillpm/skillpm/hosts"
)

// HostView is one host of the hosts table with its roots as an
// environment resolves them, as `skillpm hosts` shows it.
type HostView struct {
	hosts.Host
	// UserDirs and ProjectDirs are the host's own roots resolved, in the
	// table's order; a root that does not resolve reads "(why)".
	UserDirs    []string `json:"userDirs"`
	ProjectDirs []string `json:"projectDirs"`
	// Reads are the roots the host reads besides its own.
	Reads []string `json:"reads"`
	// Present tells whether the host was found on this machine (its
	// Detect paths or binaries); PresentBy is what was found.
	Present   bool   `json:"present"`
	PresentBy string `json:"presentBy,omitempty"`
}

// HostsResult is what Hosts describes.
type HostsResult struct {
	Hosts []HostView
}

// HostsRequest names the hosts Hosts describes.
type HostsRequest struct {
	// IDs are the hosts, in the order shown; empty means every host of
	// the table (the built-in one and the user's hosts file).
	IDs []string
}

// Hosts describes the hosts r.IDs name, in that order, or every host of
// the Engine's table when there are none, as `skillpm hosts` does. An id
// the table does not hold is a *hosts.UnknownHostError.
func (e *Engine) Hosts(ctx context.Context, r HostsRequest) (*HostsResult, error) {
	env, ids := e.env, r.IDs
	t := env.Table()
	if len(ids) == 0 {
		ids = t.IDs()
	}
	var views []HostView
	for _, id := range ids {
		h, err := t.Get(id)
		if err != nil {
			return nil, err
		}
		v := HostView{Host: h, UserDirs: []string{}, ProjectDirs: []string{}, Reads: []string{}}
		for _, d := range h.User {
			v.UserDirs = append(v.UserDirs, resolvedDir(d, env))
		}
		for _, d := range h.Project {
			v.ProjectDirs = append(v.ProjectDirs, resolvedDir(d, env))
		}
		p, err := t.Presence(ctx, id, env)
		if err != nil {
			return nil, err
		}
		v.Present, v.PresentBy = p.Present, p.By
		roots, err := t.SearchRoots(id, env)
		if err != nil {
			return nil, err
		}
		for _, r := range roots {
			if r.Host != id || !ownRoot(h, r, env) {
				v.Reads = append(v.Reads, r.Dir)
			}
		}
		views = append(views, v)
	}
	return &HostsResult{Hosts: views}, nil
}

// resolvedDir shows a root that does not resolve in env (no home, say)
// with the reason instead of failing the whole table.
func resolvedDir(d hosts.Dir, env hosts.Env) string {
	p, err := d.Resolve(env)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return p
}

// ownRoot reports whether r is one of h's own roots rather than one it
// reads besides them.
func ownRoot(h hosts.Host, r hosts.Root, env hosts.Env) bool {
	for _, d := range append(append([]hosts.Dir{}, h.User...), h.Project...) {
		if p, err := d.Resolve(env); err == nil && p == r.Dir {
			return true
		}
	}
	return false
}
