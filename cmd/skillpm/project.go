package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
)

// projectOpenErr gives the engine's project-opening failures their exit codes and
// hints.
func projectOpenErr(err error) error {
	var ie *engine.InstallError
	switch {
	case errors.As(err, &ie):
		return lockExit(ie.Manifest, ie.Err)
	case errors.Is(err, resolve.ErrInvalidLock):
		return classed(errdef.Usage, fmt.Errorf("%w; delete it and run skillpm lock to write it again", err))
	}
	return err
}

// projectFailure maps the failures of an engine operation on a project.
func projectFailure(ctx context.Context, g *globals, e *engine.Engine, err error) error {
	if nip, ok := errors.AsType[*resolve.NotInProjectError](err); ok {
		return notInProjectErr(nip)
	}
	var ie *engine.InstallError
	if errors.As(err, &ie) && ie.Graph == nil {
		return projectOpenErr(err)
	}
	if errors.Is(err, resolve.ErrInvalidLock) || isUsageError(err) {
		return projectOpenErr(err)
	}
	return installFailure(ctx, g, e, err, true)
}

// hasProject reports whether a project manifest is where lockPaths looks.
func hasProject(manifest string) bool { return resolve.HasProject(manifest) }
