package engine_test

import (
	"context"
	"testing"

	"github.com/skillpm/skillpm/engine"
)

// inProject opens an engine with opts and manifest as its project (""
// looks for one where resolve.FindManifest does), as --manifest opens the
// command line's: a test that reads or changes several projects, or a
// project and the roots alone, opens one per project with the same
// options (the same registry, home and policy).
func inProject(t testing.TB, opts engine.Options, manifest string) *engine.Engine {
	t.Helper()
	opts.Manifest = manifest
	e, err := engine.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
