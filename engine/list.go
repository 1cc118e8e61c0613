package engine

import (
	"context"
	"errors"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/resolve"
)

// SearchedRoots returns the roots read by list and the operations that
// look at what is installed: t's custom roots; else, with hosts, each
// host's view (every root it reads, its own and other hosts', in its
// precedence order); else every host's own roots, each directory once.
// t's scope keeps one scope; project scope for a host without project
// roots is ErrInvalidRequest.
func SearchedRoots(env hosts.Env, t Target) ([]install.Root, error) {
	if len(t.Roots) > 0 {
		p, err := placedRoots(env, t, install.DefaultHost)
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

// ListResult is what List found.
type ListResult struct {
	// Skills are the skills in the roots read (SearchedRoots), with
	// their status and root.
	Skills []install.Listed
	// Pending describes the transactions a crash left unfinished in the
	// roots (the next operation on a root completes its own).
	Pending []string
	// Advisories are the advisories of the cached feed naming copies in
	// the roots (list asks no registry; why no cached feed was obeyed, if
	// none was, goes to Options.Warn).
	Advisories []install.AdvisedCopy
}

// ListRequest is one listing: it has no knobs (the roots are the
// Engine's Target, as every read's), and is a struct so that it can grow
// some.
type ListRequest struct{}

// List reads what is installed in the roots the Engine's Target names
// (SearchedRoots), as `skillpm list` does.
func (e *Engine) List(ctx context.Context, _ ListRequest) (*ListResult, error) {
	roots, err := SearchedRoots(e.env, e.opts.Target)
	if err != nil {
		return nil, err
	}
	items, err := install.ListWith(ctx, roots, e.env.Table())
	if err != nil {
		return nil, err
	}
	if err := install.AgainstLock(ctx, items, projectLock(ctx)); err != nil {
		return nil, err
	}
	out := &ListResult{Skills: items}
	for _, r := range roots {
		if p, err := install.PendingIn(r.Dir); err == nil && p != nil {
			out.Pending = append(out.Pending, p.String())
		}
	}
	if len(items) > 0 {
		// What a list cannot check (no cached feed, a broken policy) it
		// says, and lists.
		found, why, err := e.cachedAdvisories(ctx, roots)
		if err != nil {
			why = err.Error()
		}
		out.Advisories = advisedCopies(found)
		if warn := e.warnFunc(); why != "" && warn != nil {
			warn(why)
		}
	}
	return out, nil
}

// projectLock is the lock of the project in the working directory, which
// is the authority on what its roots hold (their receipts are committed
// with it, and vouch for nothing); nil when there is none or it does not
// read: list and info then show what the receipts record, and install
// and doctor report the lock's problem.
func projectLock(ctx context.Context) *resolve.Lockfile {
	if !resolve.HasProject("") {
		return nil
	}
	p, err := openProject(ctx, "", "")
	if err != nil {
		return nil
	}
	return p.prev
}
