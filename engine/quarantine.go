package engine

import (
	"context"
	"fmt"

	"github.com/skillpm/skillpm/install"
)

// QuarantineResult is what Quarantine did: install.Quarantine's result
// over every root (the copies moved, and why each copy an advisory names
// was left in place, those skillpm did not install included), and
// whether the feed was obeyed.
type QuarantineResult struct {
	install.QuarantineResult
	// Feed is why the feed was not obeyed, "" when it was.
	Feed string `json:"feed,omitempty"`
}

// QuarantineRequest is one quarantine: it has no knobs (every host's
// roots, the engine's feed), and is a struct so that it can grow some.
type QuarantineRequest struct{}

// Quarantine moves every installed copy that an obeyed malicious or
// revoked advisory names out of every host's roots (user and project)
// into each root's quarantine, never deleting it (install.Quarantine: a
// journaled transaction, a receipt saying why and from where; only a copy
// whose bytes match exactly). A feed that cannot be read fails before
// anything moves; one that is not obeyed moves nothing and says so.
func (e *Engine) Quarantine(ctx context.Context, _ QuarantineRequest) (*QuarantineResult, error) {
	ch, _, err := e.advisoryFeed(ctx)
	if err != nil {
		return nil, err
	}
	out := &QuarantineResult{QuarantineResult: install.QuarantineResult{Moved: []install.Quarantined{}}}
	if ch.Problem != nil {
		out.Feed = ch.Problem.Error()
		return out, nil
	}
	roots := install.AllSearchRoots(e.env)
	found, err := e.auditInstalled(ctx, roots)
	if err != nil {
		return nil, err
	}
	byRoot := map[string][]install.QuarantineItem{}
	var order []string
	for _, a := range found {
		if !a.Refuses {
			continue
		}
		if a.foreign != "" {
			// No receipt says what it is or lets a restore put it back
			// as it was: reported, left to the user.
			out.Left = append(out.Left, fmt.Sprintf("%s: %s, but skillpm did not install it: left in place; remove it, or adopt it and run quarantine again", a.Dir, a.Advised))
			continue
		}
		if _, ok := byRoot[a.root]; !ok {
			order = append(order, a.root)
		}
		var digests []string
		if a.ByDigest {
			digests = []string{a.Tree}
		}
		byRoot[a.root] = append(byRoot[a.root], install.QuarantineItem{Name: a.Name, Version: a.Version, Digests: digests,
			Advisory: a.ID, Why: a.String()})
	}
	for _, root := range order {
		res, err := install.Quarantine(ctx, root, byRoot[root], install.QuarantineOptions{LockWait: e.opts.LockWait})
		if err != nil {
			return out, fmt.Errorf("%s: %w", root, err)
		}
		out.Moved = append(out.Moved, res.Moved...)
		out.Left = append(out.Left, res.Left...)
	}
	return out, nil
}

// RestoreRequest names the skills Restore puts back.
type RestoreRequest struct {
	// Names are the skills whose quarantined copies are restored.
	Names []string
}

// RestoreResult is what Restore put back.
type RestoreResult struct {
	// Restored are the copies put back, with where they were.
	Restored []install.Quarantined
}

// Restore puts the quarantined copies of r.Names back where they were, in
// every host's roots, byte for byte with their receipts. It restores what
// an advisory flagged wrongly (or what the user keeps on purpose); the
// next install or doctor still reports what the feed names. On an error
// the result holds what was restored before it.
func (e *Engine) Restore(ctx context.Context, r RestoreRequest) (*RestoreResult, error) {
	out := &RestoreResult{}
	for _, root := range install.AllSearchRoots(e.env) {
		got, err := install.Restore(ctx, root.Dir, r.Names, install.QuarantineOptions{LockWait: e.opts.LockWait})
		if err != nil {
			return out, err
		}
		out.Restored = append(out.Restored, got...)
	}
	if len(out.Restored) == 0 {
		return nil, fmt.Errorf("%w: no quarantined copy of %v in any host's roots", errNoSuchSkill, r.Names)
	}
	return out, nil
}
