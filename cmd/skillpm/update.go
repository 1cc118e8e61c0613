package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

type updateFlags struct {
	changeFlags
	allowExperimental bool
	allowDowngrade    bool
	allowSignerChange bool
	dryRun            bool
	from              string
}

func newUpdateCmd(g *globals) *cobra.Command {
	var f updateFlags
	c := &cobra.Command{
		Use:   "update [NAME...]",
		Short: "Update installed skills within the ranges they were installed with",
		Long: `Update re-resolves the skills installed in each chosen root within the
ranges recorded when they were asked for, preferring the newest versions:
of the skills named (and what they need), or of all of them. It prints the
plan first (name: old -> new version, tier changes, NEW permissions), then
verifies and checks the whole set as install does: consent is asked only
for dangerous permissions not consented to before (--grant, --yes or a
prompt), and nothing is written when anything is refused.

A version lower than the one installed is refused unless --allow-downgrade.
A skill signed by none of the identities recorded when it was installed is
refused unless --allow-signer-change. --dry-run prints the plan only.
Skills installed from a local directory are left alone: install the
directory again.`,
		Example: `  skillpm update
  skillpm update web-research --host claude
  skillpm update --dry-run --output json`,
		RunE: func(c *cobra.Command, args []string) error {
			return runUpdate(c, g, &f, args)
		},
	}
	f.changeFlags.register(c)
	c.Flags().BoolVar(&f.allowExperimental, "allow-experimental", false, "accept experimental (unsigned or untrusted) versions of skills asked for by name")
	c.Flags().BoolVar(&f.allowDowngrade, "allow-downgrade", false, "accept a lower version than the one installed")
	c.Flags().BoolVar(&f.allowSignerChange, "allow-signer-change", false, "accept a version signed by none of the recorded identities")
	c.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the plan and change nothing")
	c.Flags().StringVar(&f.from, "from", "", "default `SOURCE` of bare dependency names: a registry namespace or oci-layout:DIR")
	return c
}

func runUpdate(c *cobra.Command, g *globals, f *updateFlags, names []string) error {
	ctx := c.Context()
	roots, client, policy, vopts, err := f.setup(ctx, g)
	if err != nil {
		return err
	}
	m := &resolve.Manifest{File: "the receipts"}
	graph, err := projectGraph(client, g, f.from, m)
	if err != nil {
		return err
	}
	opts := install.Options{
		Roots: roots, Policy: policy, Trust: vopts.Trust,
		Grants: f.grants, Yes: f.yes, AllowExperimental: f.allowExperimental, Prompter: newTermPrompter(g),
		MinTier: f.minTier, Force: f.force, DryRun: f.dryRun, Prerelease: f.pre,
		AllowDowngrade: f.allowDowngrade, AllowSignerChange: f.allowSignerChange, AllowRepublished: f.allowRepublished,
		Warn: func(s string) { fmt.Fprintln(g.stderr, "warning: "+s) },
		OnPlan: func(_ context.Context, changes []install.Change) error {
			if !g.json() {
				printPlan(g.stdout, changes)
			}
			return nil
		},
	}
	if opts.InstalledAt, err = registry.SourceDateEpoch(os.Getenv); err != nil {
		return withCode(exitUsage, err)
	}
	res, err := install.Update(ctx, client, graph, names, opts)
	if err != nil {
		return installExit(m, "", err)
	}
	if g.json() {
		rs := res.Roots
		if rs == nil {
			rs = []install.RootResult{}
		}
		return writeJSON(g.stdout, map[string]any{"changes": res.Changes, "roots": rs, "dryRun": f.dryRun})
	}
	if f.dryRun {
		return nil
	}
	for _, r := range res.Roots {
		if len(r.Installed) > 0 {
			fmt.Fprintf(g.stdout, "%s: updated %s\n", r.Root.Dir, strings.Join(r.Installed, ", "))
		}
	}
	return nil
}

// printPlan prints what an update or install changes, root by root:
// "name: 1.0.0 -> 1.1.0", tier changes, and the permissions not declared
// before, marked NEW.
func printPlan(w io.Writer, changes []install.Change) {
	if len(changes) == 0 {
		fmt.Fprintln(w, "everything is up to date")
		return
	}
	root := ""
	for _, ch := range changes {
		if ch.Root != root {
			root = ch.Root
			fmt.Fprintf(w, "%s:\n", root)
		}
		from := ch.From
		if from == "" {
			from = "(new)"
		}
		line := fmt.Sprintf("  %s: %s -> %s", ch.Name, from, ch.To)
		if ch.Kind == install.ChangeDowngrade {
			line += " (DOWNGRADE)"
		}
		switch {
		case ch.FromTier == "":
			line += "  " + ch.ToTier
		case ch.FromTier != ch.ToTier:
			line += fmt.Sprintf("  tier %s -> %s", ch.FromTier, ch.ToTier)
		default:
			line += "  " + ch.ToTier
		}
		if len(ch.NewPermissions) > 0 {
			line += "  NEW " + strings.Join(ch.NewPermissions, ", ")
		}
		if ch.SignersChanged {
			line += "  SIGNER CHANGED"
		}
		fmt.Fprintln(w, line)
	}
}
