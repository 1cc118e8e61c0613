package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/tiers"
	"github.com/spf13/cobra"
)

// applyOptions are what add, remove and update pass to projectApply
// beyond the shared change flags.
type applyOptions struct {
	from              string
	dryRun            bool
	allowExperimental bool
	allowSignerChange bool
	// noInstall writes the manifest and lock only (lock --upgrade).
	noInstall bool
	// showPlan prints the changes before consent, as update does.
	showPlan bool
}

// parseProjectManifest parses manifest bytes as the project's manifest.
func (p *project) parse(data []byte) (*resolve.Manifest, error) {
	m, err := resolve.ParseManifest(p.mpath, data)
	if err != nil {
		return nil, lockExit(&resolve.Manifest{File: p.mpath}, p.lpath, err)
	}
	m.Dir = p.m.Dir
	return m, nil
}

// projectApply makes the project what data (the new manifest bytes)
// asks for: it locks it with prev's versions preferred, installs that
// lock into the project's roots (verified, checked and consented as
// install does), and only then writes the manifest and the lock together.
// Nothing is written when anything fails or is refused, or with dryRun.
func projectApply(c *cobra.Command, g *globals, f *changeFlags, p *project, data []byte, prev *resolve.Lockfile, o applyOptions) (*install.Result, *resolve.Lockfile, error) {
	ctx := c.Context()
	m, err := p.parse(data)
	if err != nil {
		return nil, nil, err
	}
	if f.minTier != "" && !tiers.ValidTier(f.minTier) {
		return nil, nil, &usageError{fmt.Errorf("--min-tier %q: use verified, community or experimental", f.minTier)}
	}
	client, err := regClient(g, &f.regFlags)
	if err != nil {
		return nil, nil, err
	}
	graph, err := projectGraph(client, g, o.from, m)
	if err != nil {
		return nil, nil, err
	}
	warn := warnOnce(g)
	if o.noInstall {
		lock, err := resolve.Lock(ctx, graph, m, prev, resolve.LockOptions{Prerelease: f.pre, Warn: warn})
		if err != nil {
			return nil, nil, notFoundHint(ctx, client, graph, m, err, lockExit(m, p.lpath, err))
		}
		if !o.dryRun {
			if err := p.save(data, lock); err != nil {
				return nil, nil, err
			}
		}
		return nil, lock, nil
	}
	roots, err := projectRoots(g, &f.rootFlags, m)
	if err != nil {
		return nil, nil, err
	}
	printNotes(g, f.rootFlags.notes)
	policy, vopts, err := f.trustFlags.load(ctx, g)
	if err != nil {
		return nil, nil, err
	}
	aud, err := newAuditor()
	if err != nil {
		return nil, nil, err
	}
	opts := install.Options{
		Roots: roots, Policy: policy, Trust: vopts.Trust,
		Grants: f.grants, Yes: f.yes, AllowExperimental: o.allowExperimental, Prompter: newTermPrompter(g),
		Auditor: aud,
		MinTier: skill.Tier(f.minTier), Force: f.force, DryRun: o.dryRun, Prerelease: f.pre,
		AllowSignerChange: o.allowSignerChange, NoIndex: f.noIndex,
		Warn: warn,
	}
	if o.showPlan {
		opts.OnPlan = func(_ context.Context, changes []install.Change) error {
			if !g.json() && !g.quiet {
				printPlan(g.stdout, changes)
			}
			return nil
		}
	}
	if opts.InstalledAt, err = registry.SourceDateEpoch(os.Getenv); err != nil {
		return nil, nil, withCode(exitUsage, err)
	}
	for _, r := range roots {
		if err := os.MkdirAll(filepath.Dir(r.Dir), 0o755); err != nil {
			return nil, nil, err
		}
	}
	res, err := install.Install(ctx, client, graph, m, prev, opts)
	if err != nil {
		return nil, nil, notFoundHint(ctx, client, graph, m, err, installExit(m, p.lpath, err))
	}
	if !o.dryRun {
		if err := p.save(data, res.Lock); err != nil {
			return res, res.Lock, err
		}
	}
	return res, res.Lock, nil
}

// warnOnce prints each distinct warning once per command (unless -q):
// an install of several roots meets the same skill several times.
func warnOnce(g *globals) func(string) {
	seen := map[string]bool{}
	return func(s string) {
		if g.quiet || seen[s] {
			return
		}
		seen[s] = true
		fmt.Fprintln(g.stderr, "warning: "+s)
	}
}

// dryRunRoots keeps, in each root's "installed", only the skills the
// dry run would change; the others are listed as unchanged.
func dryRunRoots(res *install.Result) []install.RootResult {
	out := []install.RootResult{}
	for _, r := range res.Roots {
		nr := install.RootResult{Root: r.Root, Installed: []string{}, Unchanged: []string{}}
		for _, n := range append(append([]string{}, r.Installed...), r.Unchanged...) {
			changed := slices.ContainsFunc(res.Changes, func(c install.Change) bool { return c.Root == r.Root.Dir && c.Name == n })
			if changed {
				nr.Installed = append(nr.Installed, n)
			} else {
				nr.Unchanged = append(nr.Unchanged, n)
			}
		}
		out = append(out, nr)
	}
	return out
}

// printRoots prints what an install did in each root, as install does.
func printRoots(g *globals, res *install.Result, dryRun bool) {
	if dryRun {
		printPlan(g.stdout, res.Changes)
		return
	}
	for _, r := range res.Roots {
		verb := "installed"
		if dryRun {
			verb = "would install"
		}
		switch {
		case len(r.Installed) == 0:
			fmt.Fprintf(g.stdout, "%s: up to date (%s)\n", r.Root.Dir, strings.Join(r.Unchanged, ", "))
		case r.Root.Link != "":
			fmt.Fprintf(g.stdout, "%s: linked %s to the copy in %s (read here by %s)\n", r.Root.Dir, strings.Join(r.Installed, ", "), r.Root.Link, strings.Join(r.Root.ReadBy, ", "))
		default:
			fmt.Fprintf(g.stdout, "%s: %s %s%s\n", r.Root.Dir, verb, strings.Join(r.Installed, ", "), readBy(r.Root))
		}
	}
}
