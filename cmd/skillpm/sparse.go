package main

import (
	"context"
	"fmt"
	"os"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/sign"
)

// refreshSparse re-describes names in src's sparse index after publish or
// mirror wrote them, where src has an index (or create is set), and signs
// it with sopts when a key is given (the engine's RefreshSparse). A
// failure is a warning, not an error: the skills are there, and installs
// fall back to the registry (with a warning) while the index is stale or
// unsigned.
func refreshSparse(ctx context.Context, g *globals, client *registry.Client, src registry.Source, names []string, create bool, sopts *sign.SignOptions) {
	e, err := engine.Open(ctx, engine.Options{Client: client, Env: hosts.Env{Getenv: os.Getenv}})
	if err != nil {
		g.o().Warn(fmt.Sprintf("the sparse index of %s was not updated (installs read the registry until skillpm index build --registry %s): %v", src, src, err))
		return
	}
	printSparseRefresh(g, e.RefreshSparse(ctx, src, names, create, sopts))
}

// printSparseRefresh reports a refresh of a sparse index: warnings when
// it was not updated or not signed, and the index written.
func printSparseRefresh(g *globals, r *engine.SparseRefresh) {
	switch {
	case r == nil:
		return
	case r.Err != nil:
		g.o().Warn(fmt.Sprintf("the sparse index of %s was not updated (installs read the registry until skillpm index build --registry %s): %v", r.Source, r.Source, r.Err))
		return
	case r.SignErr != nil:
		g.o().Warn(fmt.Sprintf("the sparse index %s@%s was updated but not signed: %v", r.Result.Location, r.Result.Descriptor.Digest, r.SignErr))
		return
	case !r.Signed:
		g.o().Warn(fmt.Sprintf("the sparse index %s@%s was updated unsigned: installs ignore it until it is signed (skillpm index build --registry %s --sign --key K)", r.Result.Location, r.Result.Descriptor.Digest, r.Source))
	}
	signed := ""
	if r.Signed {
		signed = ", signed"
	}
	if !g.quiet && !g.json() {
		fmt.Fprintf(g.stderr, "updated the sparse index %s:%s (%s%s)\n", r.Result.Location, sparse.Tag, r.Result.Descriptor.Digest, signed)
	}
}
