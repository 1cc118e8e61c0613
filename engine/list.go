package engine

import (
	"context"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/resolve"
)

// ListResult is what List found.
type ListResult struct {
	// Skills are the skills in the roots read (roots.Searched), with
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
// (roots.Searched), as `skillpm list` does.
func (e *Engine) List(ctx context.Context, _ ListRequest) (*ListResult, error) {
	searched, err := roots.Searched(e.env, e.opts.Target)
	if err != nil {
		return nil, targetErr(err)
	}
	items, err := install.ListWith(ctx, searched, e.env.Table())
	if err != nil {
		return nil, err
	}
	if err := install.AgainstLock(ctx, items, projectLock(ctx)); err != nil {
		return nil, err
	}
	out := &ListResult{Skills: items}
	for _, r := range searched {
		if p, err := install.PendingIn(r.Dir); err == nil && p != nil {
			out.Pending = append(out.Pending, p.String())
		}
	}
	if len(items) > 0 {
		// What a list cannot check (no cached feed, a broken policy) it
		// says, and lists.
		found, why, err := e.cachedAdvisories(ctx, searched)
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
