package hosts

import "context"

// View is one host of a table with its roots as an environment resolves
// them and whether it is present: what `skillpm hosts` shows.
type View struct {
	Host
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

// Views describes the hosts ids name, in that order, or every host of
// e's table when there are none, as `skillpm hosts` shows them. An id the
// table does not hold is an *UnknownHostError.
func (e Env) Views(ctx context.Context, ids []string) ([]View, error) {
	t := e.Table()
	if len(ids) == 0 {
		ids = t.IDs()
	}
	var views []View
	for _, id := range ids {
		v, err := t.View(ctx, id, e)
		if err != nil {
			return nil, err
		}
		views = append(views, v)
	}
	return views, nil
}

// View describes host id as env resolves it. A root that does not
// resolve (no home, say) is shown with the reason instead of failing the
// whole view; an id the table does not hold is an *UnknownHostError.
func (t *Table) View(ctx context.Context, id string, env Env) (View, error) {
	h, err := t.Get(id)
	if err != nil {
		return View{}, err
	}
	v := View{Host: h, UserDirs: []string{}, ProjectDirs: []string{}, Reads: []string{}}
	for _, d := range h.User {
		v.UserDirs = append(v.UserDirs, resolvedDir(d, env))
	}
	for _, d := range h.Project {
		v.ProjectDirs = append(v.ProjectDirs, resolvedDir(d, env))
	}
	p, err := t.Presence(ctx, id, env)
	if err != nil {
		return View{}, err
	}
	v.Present, v.PresentBy = p.Present, p.By
	roots, err := t.SearchRoots(id, env)
	if err != nil {
		return View{}, err
	}
	for _, r := range roots {
		if r.Host != id || !h.ownRoot(r, env) {
			v.Reads = append(v.Reads, r.Dir)
		}
	}
	return v, nil
}

// resolvedDir is d resolved in env, or why it does not resolve.
func resolvedDir(d Dir, env Env) string {
	p, err := d.Resolve(env)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return p
}

// ownRoot reports whether r is one of h's own roots rather than one it
// reads besides them.
func (h Host) ownRoot(r Root, env Env) bool {
	for _, d := range append(append([]Dir{}, h.User...), h.Project...) {
		if p, err := d.Resolve(env); err == nil && p == r.Dir {
			return true
		}
	}
	return false
}
