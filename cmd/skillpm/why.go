package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

// depNode is one skill of a dependency graph: a lock entry or a receipt.
type depNode struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Source  string `json:"source,omitempty"`
	// Range is what the manifest (or the command line, for receipts)
	// asked for, "" for a skill present only as a dependency.
	Range string `json:"range,omitempty"`
	// deps maps each dependency's name to the version chosen for it.
	deps map[string]string
}

// depGraph is what tree and why walk: the project's lock, or one root's
// receipts.
type depGraph struct {
	// what names where the graph comes from: "skills.lock", a root dir.
	what  string
	nodes map[string]*depNode
	// tops are the skills asked for by name, sorted.
	tops []string
	// ranges reads the ranges a version declares for its dependencies
	// (from its manifest, cached); nil or failing means unknown.
	ranges func(n *depNode) map[string]string
}

type treeFlags struct {
	regFlags
	rootFlags
	from, manifest, lock string
}

func (f *treeFlags) register(c *cobra.Command) {
	f.addPlainHTTP(c)
	f.rootFlags.register(c)
	fl := c.Flags()
	fl.StringVar(&f.from, "from", "", "`SOURCE` of bare names: a registry namespace or oci-layout:DIR")
	fl.StringVar(&f.manifest, "manifest", "", "project manifest `FILE` (default skills.yaml, else gaia-agent.yaml)")
	fl.StringVar(&f.lock, "lock", "", "lockfile `FILE` (default skills.lock beside the manifest)")
}

// graphs returns the dependency graphs to show: the project's lock in a
// project, else each searched root's receipts.
func (f *treeFlags) graphs(ctx context.Context, g *globals) ([]*depGraph, error) {
	client, err := regClient(g, &f.regFlags)
	if err != nil {
		return nil, err
	}
	if len(f.rootFlags.roots) == 0 && hasProject(f.manifest) {
		p, err := openProject(ctx, f.manifest, f.lock)
		if err != nil {
			return nil, err
		}
		if p.prev == nil {
			return nil, &usageError{fmt.Errorf("%s has no %s yet: run skillpm lock (or skillpm install)", p.mpath, p.lpath)}
		}
		graph, err := projectGraph(client, g, f.from, p.m)
		if err != nil {
			return nil, err
		}
		dg := &depGraph{what: p.lpath, nodes: map[string]*depNode{}, ranges: rangesFrom(ctx, graph)}
		for _, s := range p.prev.Skills {
			dg.nodes[s.Name] = &depNode{Name: s.Name, Version: s.Version, Source: s.Source, Range: s.Requested, deps: s.Dependencies}
			if s.Requested != "" {
				dg.tops = append(dg.tops, s.Name)
			}
		}
		return []*depGraph{dg}, nil
	}
	roots, err := f.rootFlags.searched()
	if err != nil {
		return nil, err
	}
	graph, err := projectGraph(client, g, f.from, &resolve.Manifest{})
	if err != nil {
		return nil, err
	}
	var out []*depGraph
	for _, r := range roots {
		rec, err := install.ReadReceipts(r.Dir)
		if err != nil {
			return nil, err
		}
		if len(rec.Skills) == 0 {
			continue
		}
		dg := &depGraph{what: r.Dir, nodes: map[string]*depNode{}, ranges: rangesFrom(ctx, graph)}
		for _, s := range rec.Skills {
			dg.nodes[s.Name] = &depNode{Name: s.Name, Version: s.Version, Source: s.Source, Range: s.Requested, deps: s.Dependencies}
			if s.Explicit() {
				dg.tops = append(dg.tops, s.Name)
			}
		}
		out = append(out, dg)
	}
	return out, nil
}

// rangesFrom reads dependency ranges from the registry's manifests.
func rangesFrom(ctx context.Context, graph *catalog.Graph) func(n *depNode) map[string]string {
	return func(n *depNode) map[string]string {
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

func newTreeCmd(g *globals) *cobra.Command {
	var f treeFlags
	c := &cobra.Command{
		Use:   "tree",
		Short: "Print the dependency tree of the project or of the installed skills",
		Long: `Tree prints each skill asked for by name with the skills it needs, the
version chosen for each and the range it was asked for: from skills.lock
in a project (a skills.yaml here, or --manifest), else from the receipts
of every host's roots (or those --host, --scope and --root choose).`,
		Example: `  skillpm tree
  skillpm tree --host claude --output json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			graphs, err := f.graphs(c.Context(), g)
			if err != nil {
				return err
			}
			if g.json() {
				out := []map[string]any{}
				for _, dg := range graphs {
					out = append(out, map[string]any{"from": dg.what, "skills": dg.jsonTree()})
				}
				return writeJSON(g.stdout, map[string]any{"schema": schemaOf("tree"), "graphs": out})
			}
			if len(graphs) == 0 && !g.quiet {
				fmt.Fprintln(g.stderr, "no skills installed by skillpm")
			}
			for _, dg := range graphs {
				fmt.Fprintf(g.stdout, "%s:\n", dg.what)
				dg.print(g.stdout)
			}
			return nil
		},
	}
	f.register(c)
	return c
}

// print writes the tree, a skill seen before marked (*) and not expanded.
func (dg *depGraph) print(w io.Writer) {
	seen := map[string]bool{}
	var walk func(name, rng, indent string, last bool, top bool)
	walk = func(name, rng, indent string, last bool, top bool) {
		n := dg.nodes[name]
		branch, next := "", ""
		if !top {
			branch, next = "├── ", "│   "
			if last {
				branch, next = "└── ", "    "
			}
		}
		line := indent + branch + name
		if n == nil {
			fmt.Fprintf(w, "%s (missing)\n", line)
			return
		}
		line += " " + n.Version
		if rng != "" {
			line += " (" + rng + ")"
		}
		if seen[name] && len(n.deps) > 0 {
			fmt.Fprintln(w, line+" (*)")
			return
		}
		seen[name] = true
		fmt.Fprintln(w, line)
		deps := slices.Sorted(maps.Keys(n.deps))
		ranges := dg.rangesOf(n)
		for i, d := range deps {
			walk(d, ranges[d], indent+next, i == len(deps)-1, false)
		}
	}
	for _, t := range dg.tops {
		walk(t, dg.nodes[t].Range, "  ", true, true)
	}
}

func (dg *depGraph) rangesOf(n *depNode) map[string]string {
	if dg.ranges == nil || len(n.deps) == 0 {
		return nil
	}
	return dg.ranges(n)
}

// treeJSON is one node of tree's JSON.
type treeJSON struct {
	Name         string     `json:"name"`
	Version      string     `json:"version"`
	Range        string     `json:"range,omitempty"`
	Dependencies []treeJSON `json:"dependencies,omitempty"`
}

func (dg *depGraph) jsonTree() []treeJSON {
	var node func(name, rng string, path []string) treeJSON
	node = func(name, rng string, path []string) treeJSON {
		n := dg.nodes[name]
		t := treeJSON{Name: name, Range: rng}
		if n == nil || slices.Contains(path, name) {
			return t
		}
		t.Version = n.Version
		ranges := dg.rangesOf(n)
		for _, d := range slices.Sorted(maps.Keys(n.deps)) {
			t.Dependencies = append(t.Dependencies, node(d, ranges[d], append(path, name)))
		}
		return t
	}
	out := []treeJSON{}
	for _, t := range dg.tops {
		out = append(out, node(t, dg.nodes[t].Range, nil))
	}
	return out
}

// chains returns every path from a skill asked for by name to target.
func (dg *depGraph) chains(target string) [][]string {
	var out [][]string
	var walk func(path []string)
	walk = func(path []string) {
		last := path[len(path)-1]
		if last == target {
			out = append(out, slices.Clone(path))
			return
		}
		n := dg.nodes[last]
		if n == nil {
			return
		}
		for _, d := range slices.Sorted(maps.Keys(n.deps)) {
			if !slices.Contains(path, d) {
				walk(append(path, d))
			}
		}
	}
	for _, t := range dg.tops {
		walk([]string{t})
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) < len(out[j]) })
	return out
}

func newWhyCmd(g *globals) *cobra.Command {
	var f treeFlags
	c := &cobra.Command{
		Use:   "why NAME",
		Short: "Explain why a skill is installed: the chains of skills that need it, with ranges",
		Long: `Why prints every chain from a skill asked for by name (in skills.yaml, or
on the install command line) to NAME, with the version chosen at each step
and the range each step asked for, as cargo tree -i and npm explain do.`,
		Example: `  skillpm why helper-lib
  skillpm why helper-lib --host claude --output json`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			name := args[0]
			graphs, err := f.graphs(c.Context(), g)
			if err != nil {
				return err
			}
			type chainJSON struct {
				From  string     `json:"from"`
				Chain []treeJSON `json:"chain"`
			}
			found := []chainJSON{}
			var known []string
			for _, dg := range graphs {
				for n := range dg.nodes {
					known = append(known, n)
				}
				chains := dg.chains(name)
				if len(chains) == 0 {
					continue
				}
				if !g.json() {
					fmt.Fprintf(g.stdout, "%s:\n", dg.what)
				}
				for _, ch := range chains {
					steps := []treeJSON{}
					var parts []string
					for i, s := range ch {
						n := dg.nodes[s]
						rng := n.Range
						if i > 0 {
							rng = dg.rangesOf(dg.nodes[ch[i-1]])[s]
						}
						steps = append(steps, treeJSON{Name: s, Version: n.Version, Range: rng})
						part := s + " " + n.Version
						if rng != "" {
							part += " (" + rng + ")"
						}
						parts = append(parts, part)
					}
					found = append(found, chainJSON{From: dg.what, Chain: steps})
					if !g.json() {
						what := "asked for by name"
						if len(ch) > 1 {
							what = "needed by " + ch[len(ch)-2]
						}
						fmt.Fprintf(g.stdout, "  %s  [%s]\n", strings.Join(parts, " -> "), what)
					}
				}
			}
			if g.json() {
				return writeJSON(g.stdout, map[string]any{"schema": schemaOf("why"), "name": name, "chains": found})
			}
			if len(found) == 0 {
				msg := fmt.Sprintf("%s is not installed, locked or needed here", name)
				if s := suggest(name, known); len(s) > 0 {
					msg += "; did you mean " + strings.Join(s, ", ") + "?"
				}
				return withCode(exitFailure, fmt.Errorf("%s", msg))
			}
			return nil
		},
	}
	f.register(c)
	return c
}
