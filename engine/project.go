package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/internal/atomicfile"
	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
)

// applyRequest makes a project what new manifest bytes ask for: the
// change add, remove and update make in a project.
type applyRequest struct {
	// Manifest and Lock are the project's files (resolve.FindManifest).
	Manifest, Lock string
	// Data is the manifest to make true; OldData the manifest on disk
	// (nil when there is none). The manifest is written only when they
	// differ.
	Data, OldData []byte
	// Prev is the lock whose versions are preferred (nil: none).
	Prev *resolve.Lockfile
	// NoInstall resolves and writes the manifest and lock only.
	NoInstall bool
	// InstallRequest carries the consent, checks and DryRun; its Refs,
	// Frozen and Skills are not used.
	InstallRequest
}

// apply locks the manifest in r.Data with r.Prev's versions preferred,
// installs that lock into the project's roots (roots.Project; verified,
// checked and consented as Install does) unless NoInstall, and only then
// writes the manifest and the lock together (saveProject). Nothing is
// written when anything fails or is refused, or with DryRun. Failures to
// parse, resolve or install are *InstallError.
func (e *Engine) apply(ctx context.Context, r applyRequest) (*install.Result, *resolve.Lockfile, error) {
	m, err := resolve.ParseManifest(r.Manifest, r.Data)
	if err != nil {
		return nil, nil, installError(&resolve.Manifest{File: r.Manifest}, nil, r.Lock, err)
	}
	if abs, err := filepath.Abs(r.Manifest); err == nil {
		m.Dir = filepath.Dir(abs)
	}
	// Git references stay at their locked commits; those Prev no longer
	// has (an update's) are resolved again.
	m, locals, done, err := e.gitRequirements(ctx, m, r.Prev, gitOptions{Mode: gitKeep})
	if err != nil {
		return nil, nil, err
	}
	defer done()
	graph, err := e.graph(m)
	if err != nil {
		return nil, nil, err
	}
	if r.NoInstall {
		var cat resolve.Catalog = graph
		lm := m
		if len(locals) > 0 {
			if cat, lm, err = install.CatalogWith(graph, m, locals); err != nil {
				return nil, nil, err
			}
		}
		lock, err := resolve.Lock(ctx, cat, lm, r.Prev, resolve.LockOptions{Prerelease: e.opts.Prerelease, Warn: e.warnFunc(), Hide: e.hideYanked(graph)})
		if err != nil {
			return nil, nil, installError(m, graph, r.Lock, err)
		}
		e.decideLock(r.Prev, lock)
		if !r.DryRun {
			if err := saveProject(r.Manifest, r.Lock, r.OldData, r.Data, lock); err != nil {
				return nil, nil, err
			}
		}
		return nil, lock, nil
	}
	t := e.opts.Target
	t.Placement = roots.Placement(t, m)
	into, err := e.place(roots.Project(e.env, t, m))
	if err != nil {
		return nil, nil, err
	}
	opts, err := e.options(ctx, into, &r.InstallRequest)
	if err != nil {
		return nil, nil, err
	}
	opts.Local = locals
	opts.Hide = e.hideYanked(graph)
	opts.Check = e.checkAdvisories
	for _, rt := range into {
		if r.DryRun {
			break // a dry run writes nothing, not even the roots' parents
		}
		if err := os.MkdirAll(filepath.Dir(rt.Dir), 0o755); err != nil {
			return nil, nil, err
		}
	}
	res, err := install.Install(ctx, e.client, graph, m, r.Prev, opts)
	if err != nil {
		return nil, nil, installError(m, graph, r.Lock, err)
	}
	e.statusWarnings(ctx, res)
	e.decideInstall(res)
	if !r.DryRun {
		if err := saveProject(r.Manifest, r.Lock, r.OldData, r.Data, res.Lock); err != nil {
			return res, res.Lock, err
		}
	}
	return res, res.Lock, nil
}

// saveProject writes a project's manifest (when data differs from old,
// the bytes read) and its lock (when its bytes change) together: both or
// neither.
func saveProject(mpath, lpath string, old, data []byte, lock *resolve.Lockfile) error {
	lb, err := lock.Marshal()
	if err != nil {
		return err
	}
	var files []atomicfile.File
	if !slices.Equal(data, old) {
		files = append(files, atomicfile.File{Path: mpath, Data: data, Perm: 0o644})
	}
	if cur, err := boundedfile.ReadRegular(lpath, resolve.MaxLockBytes); err != nil || !slices.Equal(cur, lb) {
		files = append(files, atomicfile.File{Path: lpath, Data: lb, Perm: 0o644})
	}
	if len(files) == 0 {
		return nil
	}
	return atomicfile.WriteFiles(files)
}

// projectFiles is a project's manifest and lock as read from disk, for
// the operations that change them together.
type projectFiles struct {
	// manifest is the manifest, empty when there is none yet; its File
	// is the path it is read from or would be written to (resolve.FindManifest).
	manifest *resolve.Manifest
	// lockFile is the lock's path (resolve.FindManifest).
	lockFile string
	// data is the manifest's bytes, nil when there is none yet.
	data []byte
	// prev is the lock, nil when there is none yet.
	prev *resolve.Lockfile
}

// inProject reports whether an operation that reads a project when there
// is one (Update, Remove, Outdated, DependencyGraphs) works on the
// Engine's project: its manifest is found, and the Engine's Target names
// no roots of its own (Roots, Given).
func (e *Engine) inProject() bool {
	return !e.opts.Target.NamesRoots() && resolve.HasProject(e.opts.Manifest)
}

// openProject reads the manifest and lock resolve.FindManifest picks. A missing
// manifest or lock is not an error. A manifest that does not parse is an
// *InstallError; a lock that cannot be read is resolve.ErrInvalidLock
// (marked so when it is unreadable rather than malformed).
func openProject(ctx context.Context, manifest, lock string) (*projectFiles, error) {
	mpath, lpath := resolve.FindManifest(manifest, lock)
	p := &projectFiles{lockFile: lpath}
	// The manifest comes with the repository: a FIFO or a link to a
	// device is refused by resolve's bounded read, before this one.
	data, err := boundedfile.ReadRegular(mpath, resolve.MaxManifestBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.manifest = &resolve.Manifest{File: mpath}
		if abs, err := filepath.Abs(mpath); err == nil {
			p.manifest.Dir = filepath.Dir(abs)
		}
	case err != nil:
		if _, rerr := resolve.ReadManifest(ctx, mpath); rerr != nil {
			err = rerr // says what the file is and how to fix it
		}
		return nil, installError(&resolve.Manifest{File: mpath}, nil, lpath, err)
	default:
		if p.manifest, err = resolve.ReadManifest(ctx, mpath); err != nil {
			return nil, installError(&resolve.Manifest{File: mpath}, nil, lpath, err)
		}
		p.data = data
	}
	if p.prev, err = resolve.ReadLockfile(ctx, lpath); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, errdef.Mark(resolve.ErrInvalidLock, err)
		}
		p.prev = nil
	}
	return p, nil
}
