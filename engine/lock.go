package engine

import (
	"bytes"
	"context"
	"errors"
	"io/fs"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
)

// LockRequest is one resolution of the project's manifest
// (Options.Manifest) into its lock.
type LockRequest struct {
	// Frozen changes nothing: it fails when the lock does not satisfy
	// the manifest or resolving again would change it.
	Frozen bool
	// Upgrade lets the skills named in Names (all when none) move to the
	// newest versions their ranges allow.
	Upgrade bool
	Names   []string
	// AllowRepublished accepts a git version tag moved to another commit
	// than the one locked (see gitRequirements).
	AllowRepublished bool
}

// LockResult is what Lock resolved and whether it differs from the file.
type LockResult struct {
	// Lock is the lock resolved; its File the project's lock file.
	Lock *resolve.Lockfile
	// Changed says it differs from the file: it was written unless the
	// request was Frozen.
	Changed bool
}

// Lock resolves what the project manifest asks for and writes its lock,
// installing nothing, as `skillpm lock` does: versions already locked are
// kept while they satisfy every requirement, git references are fetched
// and built so their commits and trees lock, and the file is written only
// when its bytes change. A manifest that does not exist is
// resolve.ErrNoManifest; a lock that does not parse is
// resolve.ErrInvalidLock; a resolution failure is an *InstallError.
func (e *Engine) Lock(ctx context.Context, r LockRequest) (*LockResult, error) {
	if r.Upgrade && r.Frozen {
		return nil, invalid(errors.New("upgrading and a frozen lock contradict each other"))
	}
	mpath, lpath := resolve.FindManifest(e.opts.Manifest, e.opts.Lock)
	m, err := resolve.ReadManifest(ctx, mpath)
	if errors.Is(err, resolve.ErrNoManifest) {
		return nil, err
	}
	if err != nil {
		return nil, invalid(err)
	}
	prev, err := resolve.ReadLockfile(ctx, lpath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		prev = nil
	case err != nil:
		return nil, errdef.Mark(resolve.ErrInvalidLock, err)
	}
	m, locals, done, err := e.gitRequirements(ctx, m, prev, gitOptions{Mode: gitLock(r.Frozen), AllowRepublished: r.AllowRepublished})
	if err != nil {
		return nil, err
	}
	defer done()
	// What install verified of the entries that do not move is kept.
	known := prev
	if r.Upgrade {
		if err := m.CheckSkills(prev, r.Names); err != nil {
			return nil, err
		}
		prev = prev.Without(r.Names...)
	}
	graph, err := e.graph(m)
	if err != nil {
		return nil, err
	}
	var cat resolve.Catalog = graph
	if len(locals) > 0 {
		if cat, m, err = install.CatalogWith(graph, m, locals); err != nil {
			return nil, err
		}
	}
	next, err := resolve.Lock(ctx, cat, m, prev, resolve.LockOptions{Frozen: r.Frozen, Warn: e.warnFunc(), Known: known, Hide: e.hideYanked(graph)})
	if err == nil {
		err = e.checkAdvisories(ctx, next)
	}
	if err != nil {
		return nil, installError(m, graph, lpath, err)
	}
	e.decideLock(known, next)
	next.File = lpath
	data, err := next.Marshal()
	if err != nil {
		return nil, err
	}
	old, _ := boundedfile.ReadRegular(lpath, resolve.MaxLockBytes)
	out := &LockResult{Lock: next, Changed: !bytes.Equal(old, data)}
	if out.Changed && !r.Frozen {
		if err := resolve.WriteLockfile(ctx, lpath, next); err != nil {
			return nil, err
		}
	}
	return out, nil
}
