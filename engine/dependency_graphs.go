package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// DepNode is one skill of a dependency graph: a lock entry or a receipt.
type DepNode struct {
	// Name, Version and Source are the skill's.
	Name, Version, Source string
	// Range is what the manifest (or the command line, for receipts)
	// asked for, "" for a skill present only as a dependency.
	Range string
	// Deps maps each dependency's name to the version chosen for it.
	Deps map[string]string
}

// DepGraph is the dependency graph of a project's lock or of one root's
// receipts.
type DepGraph struct {
	// From names where the graph comes from: the lock file, or a root
	// directory.
	From string
	// Nodes are the skills by name.
	Nodes map[string]*DepNode
	// Tops are the skills asked for by name, in the lock's or receipts'
	// order.
	Tops []string
	// ranges reads the ranges a version declares for its dependencies.
	ranges func(n *DepNode) map[string]string
}

// Ranges returns the ranges n's version declares for its dependencies,
// read from its manifest in the registry; nil when it has none or they
// cannot be read.
func (dg *DepGraph) Ranges(n *DepNode) map[string]string {
	if dg.ranges == nil || n == nil || len(n.Deps) == 0 {
		return nil
	}
	return dg.ranges(n)
}

// chains returns every path from a skill asked for by name to target,
// shortest first.
func (dg *DepGraph) chains(target string) [][]string {
	var out [][]string
	var walk func(path []string)
	walk = func(path []string) {
		last := path[len(path)-1]
		if last == target {
			out = append(out, slices.Clone(path))
			return
		}
		n := dg.Nodes[last]
		if n == nil {
			return
		}
		for _, d := range slices.Sorted(maps.Keys(n.Deps)) {
			if !slices.Contains(path, d) {
				walk(append(path, d))
			}
		}
	}
	for _, t := range dg.Tops {
		walk([]string{t})
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) < len(out[j]) })
	return out
}

// GraphRequest chooses the dependency graphs to read.
type GraphRequest struct {
	// Manifest and Lock name a project's files (see FindManifest).
	Manifest, Lock string
	// Target overrides the Engine's Target; its roots win over a project.
	Target Target
}

// GraphResult is what DependencyGraphs read.
type GraphResult struct {
	Graphs []*DepGraph
}

// DependencyGraphs returns the graphs `skillpm tree` and `why` walk: in a
// project (a manifest where FindManifest looks, and no custom roots),
// its lock's; else each searched root's receipts (SearchedRoots), roots
// without skills left out. Dependency ranges are read from the registry
// graph the names resolve in (graph). A project without a lock yet is
// ErrInvalidRequest.
func (e *Engine) DependencyGraphs(ctx context.Context, r GraphRequest) (*GraphResult, error) {
	graphs, err := e.dependencyGraphs(ctx, r)
	if err != nil {
		return nil, err
	}
	return &GraphResult{Graphs: graphs}, nil
}

// dependencyGraphs is DependencyGraphs.
func (e *Engine) dependencyGraphs(ctx context.Context, r GraphRequest) ([]*DepGraph, error) {
	t := e.target(r.Target)
	if len(t.Roots) == 0 && HasProject(r.Manifest) {
		p, err := openProject(ctx, r.Manifest, r.Lock)
		if err != nil {
			return nil, err
		}
		if p.prev == nil {
			return nil, invalid(fmt.Errorf("%s has no %s yet: run skillpm lock (or skillpm install)", p.ManifestFile, p.LockFile))
		}
		graph, err := e.graph(p.Manifest)
		if err != nil {
			return nil, err
		}
		dg := &DepGraph{From: p.LockFile, Nodes: map[string]*DepNode{}, ranges: rangesFrom(ctx, graph)}
		for _, s := range p.prev.Skills {
			dg.Nodes[s.Name] = &DepNode{Name: s.Name, Version: s.Version, Source: s.Source, Range: s.Requested, Deps: s.Dependencies}
			if s.Requested != "" {
				dg.Tops = append(dg.Tops, s.Name)
			}
		}
		return []*DepGraph{dg}, nil
	}
	roots, err := SearchedRoots(e.env, t)
	if err != nil {
		return nil, err
	}
	graph, err := e.graph(&resolve.Manifest{})
	if err != nil {
		return nil, err
	}
	var out []*DepGraph
	for _, root := range roots {
		rec, err := install.ReadReceipts(root.Dir)
		if err != nil {
			return nil, err
		}
		if len(rec.Skills) == 0 {
			continue
		}
		dg := &DepGraph{From: root.Dir, Nodes: map[string]*DepNode{}, ranges: rangesFrom(ctx, graph)}
		for _, s := range rec.Skills {
			dg.Nodes[s.Name] = &DepNode{Name: s.Name, Version: s.Version, Source: s.Source, Range: s.Requested, Deps: s.Dependencies}
			if s.Explicit() {
				dg.Tops = append(dg.Tops, s.Name)
			}
		}
		out = append(out, dg)
	}
	return out, nil
}

// rangesFrom reads dependency ranges from the registry's manifests.
func rangesFrom(ctx context.Context, graph *catalog.Registry) func(n *DepNode) map[string]string {
	return func(n *DepNode) map[string]string {
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
