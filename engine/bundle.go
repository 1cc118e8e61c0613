package engine

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// BundleRequest writes skills, with everything they need, into an OCI
// layout directory for an air-gapped install.
type BundleRequest struct {
	// Refs are the skills (name, name@range, registry/namespace/name).
	Refs []string
	// Dir is the OCI layout directory to write (created when missing).
	Dir string
}

// Bundle resolves r.Refs with their dependencies (bare names in Source,
// else FallbackSource, else the embedded registry) and copies every
// version, with its signatures and attestations, into r.Dir, as `skillpm
// bundle` does; the result's To is the directory as a source (`install
// --registry` takes it), its From the source of bare names. A resolution
// failure is an *InstallError.
func (e *Engine) Bundle(ctx context.Context, r BundleRequest) (*registry.MirrorResult, error) {
	m, _, err := install.FromRefs(origin(""), r.Refs, nil)
	if err != nil {
		if errors.Is(err, install.ErrUnsupportedRef) || errors.Is(err, registry.ErrInvalidRef) {
			return nil, invalid(err)
		}
		return nil, err
	}
	graph, err := e.graph(m)
	if err != nil {
		return nil, err
	}
	lock, err := resolve.Lock(ctx, graph, m, nil, resolve.LockOptions{Prerelease: e.opts.Prerelease, Warn: e.warnFunc(), Hide: e.hideYanked(graph)})
	if err != nil {
		return nil, installError(m, graph, "", err)
	}
	e.decideLock(nil, lock)
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return nil, err
	}
	dst, err := e.client.Layout(r.Dir)
	if err != nil {
		return nil, err
	}
	res, err := catalog.CopyLock(ctx, e.client, lock, dst, registry.CopyLockOptions{})
	if err != nil {
		return nil, err
	}
	// The feed travels with the skills, so that an image installed from
	// the bundle offline is checked against it.
	from, err := e.openSource(e.opts.Source)
	if err != nil {
		return nil, err
	}
	// The versions come from their own sources; From is the one the feed
	// came from, the source of bare names.
	res.From = from
	if _, err := e.client.CopyAdvisories(ctx, from, dst); err != nil {
		return nil, fmt.Errorf("copying the advisory feed of %s: %w", from, err)
	}
	return res, nil
}
