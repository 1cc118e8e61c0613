package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/spf13/cobra"
)

type updateFlags struct {
	changeFlags
	dryRun  bool
	project projectUpdateFlags
}

func newUpdateCmd(g *globals) *cobra.Command { return updateCmd(g, &updateFlags{}) }

// updateCmd is update with its flags bound to f.
func updateCmd(g *globals, f *updateFlags) *cobra.Command {
	c := &cobra.Command{
		Use:     "update [NAME...]",
		Aliases: []string{"upgrade"},
		Short:   "Update installed skills within the ranges they were installed with",
		Long: `Update re-resolves the skills installed in each chosen root (without
--host, --scope or --root: every host's roots that hold them) within the
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
directory again. Skills installed from git move to the newest commit of the
branch, tag or range they were installed with.

In a project (a skills.yaml here, or --manifest), update moves the
project instead: the skills named (or all) go to the newest versions the
ranges in skills.yaml allow, the others keep their locked versions, the
result is installed into the project's roots and skills.lock is
rewritten. The ranges themselves change only with --breaking (those the
newest release is outside of) or --latest (all of them), each to
^NEWEST. install --frozen then installs exactly the new lock.`,
		Example: `  skillpm update
  skillpm update web-research --host claude
  skillpm update --dry-run --output json
  skillpm update web-research --breaking    # in a project: skills.yaml and skills.lock`,
		RunE: func(c *cobra.Command, args []string) error {
			return runUpdate(c, g, f, args)
		},
	}
	f.changeFlags.register(c)
	// Update keeps how each root holds its skills (copies or links).
	f.rootFlags.place = install.PlaceAuto
	c.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the plan and change nothing")
	bindRegistry(c, &f.registryOption, "default `SOURCE` of bare dependency names: a registry namespace or oci-layout:DIR", "from")
	bindProject(c.Flags(), &f.project.projectOption, "")
	c.Flags().BoolVar(&f.project.breaking, "breaking", false, "in a project: raise the ranges in skills.yaml that exclude the newest release")
	c.Flags().BoolVar(&f.project.latest, "latest", false, "in a project: set every range in skills.yaml to ^NEWEST")
	return c
}

func runUpdate(c *cobra.Command, g *globals, f *updateFlags, names []string) error {
	ctx := c.Context()
	project := len(f.roots) == 0 && hasProject(f.project.manifest)
	if !project && (f.project.breaking || f.project.latest) {
		return &usageError{errors.New("--breaking and --latest change the ranges in skills.yaml: run update in a project (or name it with --manifest)")}
	}
	if err := f.check(); err != nil {
		return err
	}
	e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, trust: &f.trustFlags, from: f.registry, rf: &f.rootFlags, lenientEnv: project, manifest: f.project.manifest, project: &f.project.projectOption, ask: f.ask,
		plan: showPlan(g, project), ranges: printRangeBumps(g)})
	if err != nil {
		return err
	}
	r := engine.UpdateRequest{Names: names, InstallRequest: f.request()}
	if project {
		return runProjectUpdate(c, g, f, e, r)
	}
	res, err := e.Update(ctx, r)
	if err != nil {
		return installFailure(ctx, g, e, err, false)
	}
	return printUpdate(g, res, f.dryRun)
}

// request is what update passes on, in a project or not: every flag
// that sets a field of the request (TestRequestFields checks it).
func (f *updateFlags) request() engine.InstallRequest {
	return engine.InstallRequest{Consent: f.Consent, Checks: f.Checks, DryRun: f.dryRun}
}

// showPlan renders the plan an update reports before consent (an event
// of the engine's log), except as JSON and, in a project, with -q.
func showPlan(g *globals, project bool) func([]install.Change) {
	return func(changes []install.Change) {
		if !g.json() && !(project && g.quiet) {
			printPlan(g.stdout, changes)
		}
	}
}

// printUpdate renders an update of the roots: JSON, or the skills each
// root updated (the plan was shown before).
func printUpdate(g *globals, res *engine.UpdateResult, dryRun bool) error {
	if len(res.Roots) == 0 {
		// Nothing installed by skillpm anywhere: nothing to update.
		if !g.quiet && !g.json() {
			fmt.Fprintln(g.stdout, "no skills installed by skillpm in any host's roots")
		}
		return nil
	}
	if g.json() {
		rs := res.Roots
		if rs == nil {
			rs = []install.RootResult{}
		}
		return g.writeJSON(map[string]any{"schema": schemaOf("update"), "changes": res.Changes, "roots": rs, "dry_run": dryRun})
	}
	if dryRun {
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
			fmt.Fprintf(w, "%s:\n", termText(root))
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
			line += "  " + string(ch.ToTier)
		case ch.FromTier != ch.ToTier:
			line += fmt.Sprintf("  tier %s -> %s", ch.FromTier, ch.ToTier)
		default:
			line += "  " + string(ch.ToTier)
		}
		if len(ch.NewPermissions) > 0 {
			line += "  NEW " + strings.Join(ch.NewPermissions, ", ")
		}
		if ch.SignersChanged {
			line += "  SIGNER CHANGED"
		}
		// Versions, tiers and permissions come from receipts and SKILL.md.
		fmt.Fprintln(w, termText(line))
	}
}
