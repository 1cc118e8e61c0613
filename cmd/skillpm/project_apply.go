package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	spm "github.com/skillpm/skillpm"
	"github.com/skillpm/skillpm/install"
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
	// allowAudit installs skills whose static audit blocks at their tier.
	allowAudit bool
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
// asks for (the engine's Apply): it locks it with prev's versions
// preferred, installs that lock into the project's roots (verified,
// checked and consented as install does), and only then writes the
// manifest and the lock together. Nothing is written when anything fails
// or is refused, or with dryRun.
func projectApply(c *cobra.Command, g *globals, f *changeFlags, p *project, data []byte, prev *resolve.Lockfile, o applyOptions) (*install.Result, *resolve.Lockfile, error) {
	ctx := c.Context()
	if f.minTier != "" && !tiers.ValidTier(f.minTier) {
		return nil, nil, &usageError{fmt.Errorf("--min-tier %q: use verified, community or experimental", f.minTier)}
	}
	ef := engineFlags{reg: &f.regFlags, from: o.from, rf: &f.rootFlags, lenientEnv: true}
	if !o.noInstall {
		ef.trust = &f.trustFlags
	}
	e, err := openEngine(ctx, g, ef)
	if err != nil {
		return nil, nil, err
	}
	r := spm.ApplyRequest{Manifest: p.mpath, Lock: p.lpath, Data: data, OldData: p.data, Prev: prev, NoInstall: o.noInstall,
		InstallRequest: spm.InstallRequest{
			Grants: f.grants, Yes: f.yes, AllowExperimental: o.allowExperimental, AllowAuditFindings: o.allowAudit,
			MinTier: f.minTier, Force: f.force, DryRun: o.dryRun, Prerelease: f.pre,
			AllowSignerChange: o.allowSignerChange, AllowRepublished: f.allowRepublished, NoIndex: f.noIndex,
		}}
	if o.showPlan {
		r.OnPlan = func(_ context.Context, changes []install.Change) error {
			if !g.json() && !g.quiet {
				printPlan(g.stdout, changes)
			}
			return nil
		}
	}
	res, lock, err := e.Apply(ctx, r)
	if err != nil {
		return res, lock, installFailure(ctx, g, e, err, true)
	}
	return res, lock, nil
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
