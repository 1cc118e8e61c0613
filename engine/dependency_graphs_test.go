package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/resolve"
)

// chainsTo is every chain to name in the graphs DependencyGraphs reads,
// as skillpm why walks them.
func chainsTo(ctx context.Context, e *engine.Engine, name string) ([]resolve.Chain, error) {
	res, err := e.DependencyGraphs(ctx, engine.GraphRequest{})
	if err != nil {
		return nil, err
	}
	var out []resolve.Chain
	for _, dg := range res.Graphs {
		out = append(out, dg.Chains(name)...)
	}
	return out, nil
}

// TestDependencyGraphs: a project without a lock yet is
// ErrInvalidRequest; once installed, the project's lock explains its
// skill (asked for by name, with the range), and so do the receipts of
// the root a plain install wrote; a skill nobody needs has no chain and
// is not an error.
func TestDependencyGraphs(t *testing.T) {
	opts, key, dir, home, done := exampleOptions()
	t.Cleanup(done)
	ctx := context.Background()
	e := inProject(t, opts, "")
	manifest := notesProject(t, e, key, dir)
	proj := filepath.Dir(manifest)
	pe := inProject(t, opts, manifest)
	if _, err := pe.DependencyGraphs(ctx, engine.GraphRequest{}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("a project without a lock: %v, want ErrInvalidRequest", err)
	}
	if _, err := pe.Install(ctx, engine.InstallRequest{}); err != nil {
		t.Fatal(err)
	}
	chains, err := chainsTo(ctx, pe, "notes")
	if err != nil {
		t.Fatal(err)
	}
	want := resolve.ChainStep{Name: "notes", Version: "1.0.0", Range: "^1"}
	if len(chains) != 1 || chains[0].From != filepath.Join(proj, "skills.lock") || len(chains[0].Steps) != 1 || chains[0].Steps[0] != want {
		t.Errorf("project: %+v; want one chain [%+v] from skills.lock", chains, want)
	}

	if _, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes@^1"}}); err != nil {
		t.Fatal(err)
	}
	gr, err := inProject(t, opts, filepath.Join(proj, "none.yaml")).DependencyGraphs(ctx, engine.GraphRequest{})
	if err != nil {
		t.Fatal(err)
	}
	graphs := gr.Graphs
	if len(graphs) != 1 || graphs[0].From != filepath.Join(home, ".agents", "skills") || len(graphs[0].Tops) != 1 || graphs[0].Nodes["notes"] == nil {
		t.Errorf("receipts: %+v; want the agents user root holding notes", graphs)
	}
	none, err := chainsTo(ctx, pe, "other")
	if err != nil || len(none) != 0 {
		t.Errorf("a skill nobody needs: %+v, %v; want no chain", none, err)
	}
}
