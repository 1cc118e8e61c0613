package engine

import (
	"context"
	"fmt"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// GraphRequest asks for the dependency graphs: it has no knobs (the
// project and the roots are the Engine's), and is a struct so that it
// can grow some.
type GraphRequest struct{}

// GraphResult is what DependencyGraphs read.
type GraphResult struct {
	Graphs []*resolve.DepGraph
}

// DependencyGraphs returns the graphs `skillpm tree` and `why` walk: in a
// project (Options.Manifest, where resolve.FindManifest looks, and no custom
// roots), its lock's; else each searched root's receipts (roots.Searched),
// roots without skills left out. Dependency ranges are read from the
// registry graph the names resolve in (graph). A project without a lock
// yet is ErrInvalidRequest.
func (e *Engine) DependencyGraphs(ctx context.Context, _ GraphRequest) (*GraphResult, error) {
	graphs, err := e.dependencyGraphs(ctx)
	if err != nil {
		return nil, err
	}
	return &GraphResult{Graphs: graphs}, nil
}

// dependencyGraphs is DependencyGraphs.
func (e *Engine) dependencyGraphs(ctx context.Context) ([]*resolve.DepGraph, error) {
	t := e.opts.Target
	if e.inProject() {
		p, err := openProject(ctx, e.opts.Manifest, e.opts.Lock)
		if err != nil {
			return nil, err
		}
		if p.prev == nil {
			return nil, invalid(fmt.Errorf("%s has no %s yet: run skillpm lock (or skillpm install)", p.manifest.File, p.lockFile))
		}
		graph, err := e.graph(p.manifest)
		if err != nil {
			return nil, err
		}
		dg := resolve.NewDepGraph(p.lockFile, rangesFrom(ctx, graph))
		for _, s := range p.prev.Skills {
			dg.Nodes[s.Name] = &resolve.DepNode{Name: s.Name, Version: s.Version, Source: s.Source, Range: s.Requested, Deps: s.Dependencies}
			if s.Requested != "" {
				dg.Tops = append(dg.Tops, s.Name)
			}
		}
		return []*resolve.DepGraph{dg}, nil
	}
	searched, err := roots.Searched(e.env, t)
	if err != nil {
		return nil, targetErr(err)
	}
	graph, err := e.graph(&resolve.Manifest{})
	if err != nil {
		return nil, err
	}
	var out []*resolve.DepGraph
	for _, root := range searched {
		rec, err := install.ReadReceipts(root.Dir)
		if err != nil {
			return nil, err
		}
		if len(rec.Skills) == 0 {
			continue
		}
		dg := resolve.NewDepGraph(root.Dir, rangesFrom(ctx, graph))
		for _, s := range rec.Skills {
			dg.Nodes[s.Name] = &resolve.DepNode{Name: s.Name, Version: s.Version, Source: s.Source, Range: s.Requested, Deps: s.Dependencies}
			if s.Explicit() {
				dg.Tops = append(dg.Tops, s.Name)
			}
		}
		out = append(out, dg)
	}
	return out, nil
}

// rangesFrom reads dependency ranges from the registry's manifests.
func rangesFrom(ctx context.Context, graph *catalog.Registry) func(n *resolve.DepNode) map[string]string {
	return func(n *resolve.DepNode) map[string]string {
		if n.Source == "" {
			return nil
		}
		v, err := semver.NewVersion(n.Version)
		if err != nil {
			return nil
		}
		deps, err := graph.Dependencies(ctx, graph.Namespace().KeyOf(n.Source), v)
		if err != nil {
			return nil
		}
		out := map[string]string{}
		for k, r := range deps {
			out[resolve.ShortName(k)] = r
		}
		return out
	}
}
