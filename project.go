package skillpm

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/internal/atomicfile"
	"github.com/skillpm/skillpm/resolve"
)

// ApplyRequest makes a project what new manifest bytes ask for: the
// change add, remove and update make in a project.
type ApplyRequest struct {
	// Manifest and Lock are the project's files (FindManifest).
	Manifest, Lock string
	// Data is the manifest to make true; OldData the manifest on disk
	// (nil when there is none). The manifest is written only when they
	// differ.
	Data, OldData []byte
	// Prev is the lock whose versions are preferred (nil: none).
	Prev *resolve.Lockfile
	// NoInstall resolves and writes the manifest and lock only.
	NoInstall bool
	// InstallRequest carries the consent, checks, target, DryRun and
	// OnPlan; its Refs, Manifest, Lock, Frozen, Skills and Offline are
	// not used.
	InstallRequest
}

// Apply locks the manifest in r.Data with r.Prev's versions preferred,
// installs that lock into the project's roots (ProjectRoots; verified,
// checked and consented as Install does) unless NoInstall, and only then
// writes the manifest and the lock together (SaveProject). Nothing is
// written when anything fails or is refused, or with DryRun. Failures to
// parse, resolve or install are *InstallError.
func (e *Engine) Apply(ctx context.Context, r ApplyRequest) (*install.Result, *resolve.Lockfile, error) {
	m, err := resolve.ParseManifest(r.Manifest, r.Data)
	if err != nil {
		return nil, nil, &InstallError{Manifest: &resolve.Manifest{File: r.Manifest}, LockFile: r.Lock, Err: err}
	}
	if abs, err := filepath.Abs(r.Manifest); err == nil {
		m.Dir = filepath.Dir(abs)
	}
	graph, err := e.Graph(m)
	if err != nil {
		return nil, nil, err
	}
	if r.NoInstall {
		lock, err := resolve.Lock(ctx, graph, m, r.Prev, resolve.LockOptions{Prerelease: r.Prerelease, Warn: e.opts.Warn})
		if err != nil {
			return nil, nil, &InstallError{Manifest: m, Graph: graph, LockFile: r.Lock, Err: err}
		}
		if !r.DryRun {
			if err := SaveProject(r.Manifest, r.Lock, r.OldData, r.Data, lock); err != nil {
				return nil, nil, err
			}
		}
		return nil, lock, nil
	}
	roots := r.Roots
	if len(roots) == 0 {
		if roots, err = ProjectRoots(e.env, e.target(r.Target), m, e.opts.Host); err != nil {
			return nil, nil, err
		}
	}
	opts, err := e.options(ctx, roots, &r.InstallRequest)
	if err != nil {
		return nil, nil, err
	}
	for _, rt := range roots {
		if err := os.MkdirAll(filepath.Dir(rt.Dir), 0o755); err != nil {
			return nil, nil, err
		}
	}
	res, err := install.Install(ctx, e.client, graph, m, r.Prev, opts)
	if err != nil {
		return nil, nil, &InstallError{Manifest: m, Graph: graph, LockFile: r.Lock, Err: err}
	}
	if !r.DryRun {
		if err := SaveProject(r.Manifest, r.Lock, r.OldData, r.Data, res.Lock); err != nil {
			return res, res.Lock, err
		}
	}
	return res, res.Lock, nil
}

// SaveProject writes a project's manifest (when data differs from old,
// the bytes read) and its lock (when its bytes change) together: both or
// neither.
func SaveProject(mpath, lpath string, old, data []byte, lock *resolve.Lockfile) error {
	lb, err := lock.Marshal()
	if err != nil {
		return err
	}
	var files []atomicfile.File
	if !slices.Equal(data, old) {
		files = append(files, atomicfile.File{Path: mpath, Data: data, Perm: 0o644})
	}
	if cur, err := os.ReadFile(lpath); err != nil || !slices.Equal(cur, lb) {
		files = append(files, atomicfile.File{Path: lpath, Data: lb, Perm: 0o644})
	}
	if len(files) == 0 {
		return nil
	}
	return atomicfile.WriteFiles(files)
}
