package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	spm "github.com/skillpm/skillpm"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

// outdatedRow is one skill of `skillpm outdated`.
type outdatedRow struct {
	Name      string `json:"name"`
	Installed string `json:"installed"`
	Locked    string `json:"locked"`
	Range     string `json:"range"`
	Wanted    string `json:"wanted"`
	Latest    string `json:"latest"`
	Root      string `json:"root"`
	Source    string `json:"source"`
}

// outdated reports whether the row is behind what it could have.
func (r outdatedRow) outdated() bool {
	cur := r.Locked
	if cur == "" {
		cur = r.Installed
	}
	return (r.Installed != "" && r.Installed != cur) || newer(r.Wanted, cur) || newer(r.Latest, cur)
}

type outdatedFlags struct {
	regFlags
	rootFlags
	from, manifest, lock string
	all                  bool
}

// errOutdated makes the exit status 1 with nothing more to say.
var errOutdated = errors.New("")

func newOutdatedCmd(g *globals) *cobra.Command {
	var f outdatedFlags
	c := &cobra.Command{
		Use:   "outdated",
		Short: "List skills with newer versions: installed, locked, wanted by the range, latest",
		Long: `Outdated lists the skills that have newer versions, as npm outdated
does: the version installed, the version locked in skills.lock, the newest
version the requested range allows (wanted) and the newest release
(latest). update moves a skill to wanted; update --breaking to latest.

In a project (a skills.yaml here, or --manifest) it lists the skills the
manifest asks for, installed in the project's roots; elsewhere the skills
installed by name in every host's roots (or those --host, --scope and
--root choose), saying which root. --all lists the up-to-date ones too.

Exit status: 0 when nothing is outdated, 1 when something is (so a CI
job can fail on it), 2 on a usage error, 6 when a registry fails.`,
		Example: `  skillpm outdated
  skillpm outdated --host claude --output json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			return runOutdated(c, g, &f)
		},
	}
	f.addPlainHTTP(c)
	f.rootFlags.register(c)
	fl := c.Flags()
	fl.BoolVar(&f.pre, "pre", false, "count pre-releases as wanted and latest")
	fl.BoolVar(&f.all, "all", false, "list every skill, not only the outdated ones")
	fl.StringVar(&f.from, "from", "", "`SOURCE` of bare names: a registry namespace or oci-layout:DIR")
	fl.StringVar(&f.manifest, "manifest", "", "project manifest `FILE` (default skills.yaml, else gaia-agent.yaml)")
	fl.StringVar(&f.lock, "lock", "", "lockfile `FILE` (default skills.lock beside the manifest)")
	return c
}

func runOutdated(c *cobra.Command, g *globals, f *outdatedFlags) error {
	ctx := c.Context()
	client, err := regClient(g, &f.regFlags)
	if err != nil {
		return err
	}
	var rows []outdatedRow
	m := &resolve.Manifest{File: "the receipts"}
	if len(f.rootFlags.roots) == 0 && hasProject(f.manifest) {
		p, err := openProject(ctx, f.manifest, f.lock)
		if err != nil {
			return err
		}
		m = p.m
		roots, err := projectRoots(g, &f.rootFlags, p.m)
		if err != nil {
			return err
		}
		graph, err := projectGraph(client, g, f.from, m)
		if err != nil {
			return err
		}
		for _, r := range m.Skills {
			key, err := graph.Namespace().Key(r.Name)
			if err != nil {
				return withCode(exitUsage, err)
			}
			row := outdatedRow{Name: resolve.ShortName(key), Range: orAny(r.Range), Source: graph.Namespace().Repository(key)}
			if ls := p.prev.Get(row.Name); ls != nil {
				row.Locked = ls.Version
			}
			for _, root := range roots {
				rec, err := install.ReadReceipts(root.Dir)
				if err != nil {
					return err
				}
				if got, ok := rec.Get(row.Name); ok {
					row.Installed, row.Root = got.Version, root.Dir
					break
				}
			}
			if err := fillWanted(ctx, graph, key, &row, f.pre); err != nil {
				return err
			}
			rows = append(rows, row)
		}
	} else {
		roots, err := f.rootFlags.searched()
		if err != nil {
			return err
		}
		graph, err := projectGraph(client, g, f.from, m)
		if err != nil {
			return err
		}
		for _, root := range roots {
			rec, err := install.ReadReceipts(root.Dir)
			if err != nil {
				return err
			}
			for _, r := range rec.Skills {
				if !r.Explicit() || r.Source == "" {
					continue // dependencies follow what needs them; local builds have no registry
				}
				row := outdatedRow{Name: r.Name, Installed: r.Version, Range: r.Requested, Root: root.Dir, Source: r.Source}
				if err := fillWanted(ctx, graph, graph.Namespace().KeyOf(r.Source), &row, f.pre); err != nil {
					return err
				}
				rows = append(rows, row)
			}
		}
	}
	n := 0
	shown := []outdatedRow{}
	for _, r := range rows {
		if r.outdated() {
			n++
		}
		if r.outdated() || f.all {
			shown = append(shown, r)
		}
	}
	if g.json() {
		if err := writeJSON(g.stdout, map[string]any{"schema": schemaOf("outdated"), "skills": shown, "outdated": n}); err != nil {
			return err
		}
	} else if len(shown) > 0 {
		tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tINSTALLED\tLOCKED\tWANTED\tLATEST\tRANGE\tWHERE")
		for _, r := range shown {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, dash(r.Installed), dash(r.Locked), dash(r.Wanted), dash(r.Latest), r.Range, dash(r.Root))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	} else if !g.quiet {
		fmt.Fprintf(g.stderr, "%s up to date\n", plural(len(rows), "skill"))
	}
	if n > 0 {
		return withCode(exitFailure, errOutdated)
	}
	return nil
}

// fillWanted sets the row's wanted (newest in its range) and latest
// (newest release) versions.
func fillWanted(ctx context.Context, graph *catalog.Graph, key string, row *outdatedRow, pre bool) error {
	vs, err := graph.Versions(ctx, key)
	if err != nil {
		if errors.Is(err, resolve.ErrNotFound) {
			return nil // no longer published: nothing newer to offer
		}
		return regExit(err)
	}
	if v := spm.NewestRelease(vs, pre); v != nil {
		row.Latest = v.String()
	}
	set, err := resolve.ParseRange(orAny(row.Range), pre)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("%s: range %q: %w", row.Name, row.Range, err))
	}
	for _, v := range vs {
		if set.Contains(v) && (row.Wanted == "" || newer(v.String(), row.Wanted)) {
			row.Wanted = v.String()
		}
	}
	return nil
}
