package main

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

type outdatedFlags struct {
	regFlags
	rootFlags
	projectOption
	// policyOption is --policy: the trust policy that judges statuses and
	// advisories instead of the project's.
	policyOption
	all, exitCode bool
}

// errOutdated makes the exit status 1 with nothing more to say: outdated
// --exit-code found something behind, or doctor a problem (listed
// already).
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
manifest asks for, installed in the project's roots, and the dependencies
its lock holds; elsewhere the skills installed in every host's roots (or
those --host, --scope and --root choose), saying which root: by name, from
git (what the reference gives now), from a folder (what it builds at now)
and their dependencies (what resolving what needs them gives now): what
update would move. --all lists the up-to-date ones too.

Exit status: 0 when the check ran, outdated skills or not; with
--exit-code (as git diff --exit-code) 1 when something is outdated, so a
CI job can fail on it. 2 on a usage error, 6 when a registry fails.`,
		Example: `  skillpm outdated
  skillpm outdated --exit-code   # fail a CI job when something is behind
  skillpm outdated --host claude --output json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			return runOutdated(c, g, &f)
		},
	}
	f.addPlainHTTP(c)
	f.addOffline(c)
	f.rootFlags.register(c)
	fl := c.Flags()
	fl.BoolVar(&f.resolution.Prerelease, "pre", false, "count pre-releases as wanted and latest")
	fl.BoolVar(&f.all, "all", false, "list every skill, not only the outdated ones")
	fl.BoolVar(&f.exitCode, "exit-code", false, "exit 1 when a skill is outdated (as git diff --exit-code)")
	bindRegistry(c, &f.registryOption, "`SOURCE` of bare names: a registry namespace or oci-layout:DIR", "from")
	bindProject(fl, &f.projectOption, "")
	bindPolicy(fl, &f.policyOption, "")
	return c
}

func runOutdated(c *cobra.Command, g *globals, f *outdatedFlags) error {
	ctx := c.Context()
	// A project reads its roots leniently, as the commands that change it
	// do; with --root no hosts table is needed.
	lenient := len(f.roots) > 0 || resolve.HasProject(f.manifest)
	e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: f.registry, rf: &f.rootFlags, lenientEnv: lenient, policyFile: f.policy, manifest: f.manifest, project: &f.projectOption})
	if err != nil {
		return err
	}
	res, err := e.Outdated(ctx, engine.OutdatedRequest{})
	if err != nil {
		return rootsErr(g, projectOpenErr(err))
	}
	behind := slices.DeleteFunc(slices.Clone(res.Skills), func(s install.OutdatedSkill) bool { return !s.Outdated() })
	shown := behind
	if f.all {
		shown = res.Skills
	}
	if g.json() {
		if err := g.writeJSON(map[string]any{"schema": schemaOf("outdated"), "skills": shown, "outdated": len(behind)}); err != nil {
			return err
		}
	} else if err := printOutdated(g, shown, len(res.Skills)); err != nil {
		return err
	}
	if len(behind) > 0 && f.exitCode {
		return classed(errdef.Internal, errOutdated)
	}
	return nil
}

// printOutdated renders the skills shown as a table, or says that all
// the checked ones are up to date.
func printOutdated(g *globals, shown []install.OutdatedSkill, checked int) error {
	if len(shown) == 0 {
		if !g.quiet {
			fmt.Fprintf(g.stderr, "%s up to date\n", plural(checked, "skill"))
		}
		return nil
	}
	tw := tabwriter.NewWriter(g.tableOut(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tINSTALLED\tLOCKED\tWANTED\tLATEST\tRANGE\tWHERE")
	for _, r := range shown {
		rng := r.Range
		if rng == "" {
			rng = "(dependency)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", termText(r.Name), termText(dash(r.Installed)), termText(dash(r.Locked)),
			termText(dash(r.Wanted)), termText(dash(r.Latest)), termText(rng), termText(dash(r.Root)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range shown {
		cur := cmp.Or(r.Locked, r.Installed)
		if r.Yanked {
			fmt.Fprintf(g.stdout, "%s@%s is yanked%s\n", r.Name, cur, parenthesized(r.YankReason))
		}
		if r.Deprecated != "" {
			fmt.Fprintf(g.stdout, "%s@%s is deprecated: %s\n", r.Name, cur, r.Deprecated)
		}
		for _, a := range r.Advisories {
			fmt.Fprintln(g.stdout, a.String())
		}
	}
	return nil
}

// parenthesized is " (s)", or "" for an empty s.
func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
