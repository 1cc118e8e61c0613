package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

type treeFlags struct {
	regFlags
	rootFlags
	projectOption
}

func (f *treeFlags) register(c *cobra.Command) {
	f.addPlainHTTP(c)
	f.rootFlags.register(c)
	fl := c.Flags()
	bindRegistry(c, &f.registryOption, "`SOURCE` of bare names: a registry namespace or oci-layout:DIR", "from")
	bindProject(fl, &f.projectOption, "")
}

// graphs returns the dependency graphs to show (the engine's
// DependencyGraphs): the project's lock in a project, else each searched
// root's receipts.
func (f *treeFlags) graphs(ctx context.Context, g *globals) ([]*resolve.DepGraph, error) {
	e, err := f.engine(ctx, g)
	if err != nil {
		return nil, err
	}
	res, err := e.DependencyGraphs(ctx, engine.GraphRequest{})
	if err != nil {
		return nil, graphsErr(g, err)
	}
	return res.Graphs, nil
}

// engine opens the engine tree and why read with; a project's graph
// does not need the user's hosts file to load.
func (f *treeFlags) engine(ctx context.Context, g *globals) (*engine.Engine, error) {
	return openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: f.registry, rf: &f.rootFlags, project: &f.projectOption, lenientEnv: hasProject(f.manifest)})
}

// graphsErr maps the failures of reading dependency graphs: a project's
// manifest or lock as project commands do, the rest as roots are.
func graphsErr(g *globals, err error) error {
	var ie *engine.InstallError
	if errors.As(err, &ie) || errors.Is(err, resolve.ErrInvalidLock) {
		return projectOpenErr(err)
	}
	return rootsErr(g, err)
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
					out = append(out, map[string]any{"from": dg.From, "skills": jsonTree(dg)})
				}
				return g.writeJSON(map[string]any{"schema": schemaOf("tree"), "graphs": out})
			}
			if len(graphs) == 0 && !g.quiet {
				fmt.Fprintln(g.stderr, "no skills installed by skillpm")
			}
			for _, dg := range graphs {
				fmt.Fprintf(g.stdout, "%s:\n", termText(dg.From))
				printTree(g.stdout, dg)
			}
			return nil
		},
	}
	f.register(c)
	return c
}

// printTree writes the tree, a skill seen before marked (*) and not
// expanded.
func printTree(w io.Writer, dg *resolve.DepGraph) {
	seen := map[string]bool{}
	var walk func(name, rng, indent string, last bool, top bool)
	walk = func(name, rng, indent string, last bool, top bool) {
		n := dg.Nodes[name]
		branch, next := "", ""
		if !top {
			branch, next = "├── ", "│   "
			if last {
				branch, next = "└── ", "    "
			}
		}
		line := indent + branch + termText(name)
		if n == nil {
			fmt.Fprintf(w, "%s (missing)\n", line)
			return
		}
		line += " " + termText(n.Version)
		if rng != "" {
			line += " (" + termText(rng) + ")"
		}
		if seen[name] && len(n.Deps) > 0 {
			fmt.Fprintln(w, line+" (*)")
			return
		}
		seen[name] = true
		fmt.Fprintln(w, line)
		deps := slices.Sorted(maps.Keys(n.Deps))
		ranges := dg.Ranges(n)
		for i, d := range deps {
			walk(d, ranges[d], indent+next, i == len(deps)-1, false)
		}
	}
	for _, t := range dg.Tops {
		walk(t, dg.Nodes[t].Range, "  ", true, true)
	}
}

// treeJSON is one node of tree's JSON.
type treeJSON struct {
	Name         string     `json:"name"`
	Version      string     `json:"version"`
	Range        string     `json:"range,omitempty"`
	Dependencies []treeJSON `json:"dependencies,omitempty"`
}

func jsonTree(dg *resolve.DepGraph) []treeJSON {
	var node func(name, rng string, path []string) treeJSON
	node = func(name, rng string, path []string) treeJSON {
		n := dg.Nodes[name]
		t := treeJSON{Name: name, Range: rng}
		if n == nil || slices.Contains(path, name) {
			return t
		}
		t.Version = n.Version
		ranges := dg.Ranges(n)
		for _, d := range slices.Sorted(maps.Keys(n.Deps)) {
			t.Dependencies = append(t.Dependencies, node(d, ranges[d], append(path, name)))
		}
		return t
	}
	out := []treeJSON{}
	for _, t := range dg.Tops {
		out = append(out, node(t, dg.Nodes[t].Range, nil))
	}
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
			// Every chain to name, graph by graph, shortest first; the
			// skills of the graphs suggest a name when there is none.
			chains := []resolve.Chain{}
			var known []string
			for _, dg := range graphs {
				known = append(known, slices.Sorted(maps.Keys(dg.Nodes))...)
				chains = append(chains, dg.Chains(name)...)
			}
			if g.json() {
				return g.writeJSON(map[string]any{"schema": schemaOf("why"), "name": name, "chains": chains})
			}
			printWhy(g.stdout, chains)
			if len(chains) == 0 {
				msg := fmt.Sprintf("%s is not installed, locked or needed here", name)
				if s := suggest(name, known); len(s) > 0 {
					msg += "; did you mean " + strings.Join(s, ", ") + "?"
				}
				// Not found (4), as remove and info report a name that is
				// not installed.
				return classed(errdef.NotFound, errors.New(msg))
			}
			return nil
		},
	}
	f.register(c)
	return c
}

// printWhy writes each graph's chains: the skills with the version
// chosen and the range asked for, and who needs the last one.
func printWhy(w io.Writer, chains []resolve.Chain) {
	from := ""
	for _, ch := range chains {
		if ch.From != from {
			from = ch.From
			fmt.Fprintf(w, "%s:\n", termText(from))
		}
		var parts []string
		for _, s := range ch.Steps {
			part := termText(s.Name) + " " + termText(s.Version)
			if s.Range != "" {
				part += " (" + termText(s.Range) + ")"
			}
			parts = append(parts, part)
		}
		what := "asked for by name"
		if len(ch.Steps) > 1 {
			what = "needed by " + termText(ch.Steps[len(ch.Steps)-2].Name)
		}
		fmt.Fprintf(w, "  %s  [%s]\n", strings.Join(parts, " -> "), what)
	}
}
