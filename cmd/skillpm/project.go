package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
)

// project is a project's manifest and lock as read from disk, for the
// commands that change them together (add, remove, update, lock).
type project struct {
	mpath, lpath string
	// m is the manifest; data its bytes, nil when there is none yet.
	m    *resolve.Manifest
	data []byte
	// prev is the lock, nil when there is none yet.
	prev *resolve.Lockfile
}

// cliProject is the command line's view of an engine project.
func cliProject(p *engine.Project) *project {
	return &project{mpath: p.ManifestFile, lpath: p.LockFile, m: p.Manifest, data: p.Data, prev: p.Prev}
}

// projectOpenErr gives the engine's project-opening failures their exit codes and
// hints.
func projectOpenErr(err error) error {
	var ie *engine.InstallError
	switch {
	case errors.As(err, &ie):
		return lockExit(ie.Manifest, ie.LockFile, ie.Err)
	case errors.Is(err, engine.ErrInvalidLock):
		return classed(errdef.Usage, fmt.Errorf("%w; delete it and run skillpm lock to write it again", err))
	}
	return err
}

// projectFailure maps the failures of an engine operation on a project.
func projectFailure(ctx context.Context, g *globals, e *engine.Engine, err error) error {
	var ie *engine.InstallError
	if errors.As(err, &ie) && ie.Graph == nil {
		return projectOpenErr(err)
	}
	if errors.Is(err, engine.ErrInvalidLock) || isUsageError(err) {
		return projectOpenErr(err)
	}
	return installFailure(ctx, g, e, err, true)
}

// hasProject reports whether a project manifest is where lockPaths looks.
func hasProject(manifest string) bool { return engine.HasProject(manifest) }
