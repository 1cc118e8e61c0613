package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/spf13/cobra"
)

func newRemoveCmd(g *globals) *cobra.Command {
	var rf rootFlags
	var opts install.RemoveOptions
	var noSave bool
	c := &cobra.Command{
		Use:   "remove NAME...",
		Short: "Uninstall skills",
		Long: `Remove uninstalls skills from the chosen root(s) in one transaction. It
refuses while another installed skill depends on one named (the error lists
them), or while one was edited by hand since it was installed, unless
--force; --prune also removes dependencies nobody needs any more.
Without --host, --scope or --root it removes the skills from every host's
roots that hold them, naming each.

In a project (a skills.yaml here), remove also takes the skills out of
skills.yaml and skills.lock (with the dependencies nothing else needs),
from the project's roots; --no-save removes the installed copies only,
from the roots --host, --scope and --root choose.

A skill installed with --link is removed as a link; the copy it pointed to
goes with the last link when no host asked for was served by it directly.
A copy links still point to is refused unless --force.`,
		Example: `  skillpm remove web-research
  skillpm remove fix --prune --host claude`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if !noSave && len(rf.roots) == 0 && hasProject("") {
				return runProjectRemove(c, g, &rf, opts, args)
			}
			roots, all, err := rootsHolding(&rf, g.defaultHost(), args)
			if err != nil {
				return err
			}
			if all && len(roots) == 0 {
				return notInstalledAnywhere(args)
			}
			// Links go before the copies they point to, which go with
			// their last link or are refused while linked.
			slices.SortStableFunc(roots, func(a, b install.Root) int {
				la, lb := install.HoldsLinks(a.Dir), install.HoldsLinks(b.Dir)
				switch {
				case la && !lb:
					return -1
				case lb && !la:
					return 1
				}
				return 0
			})
			for _, r := range roots {
				here := args
				if all {
					// Every root that holds any of them loses what it holds.
					rec, err := install.ReadReceipts(r.Dir)
					if err != nil {
						return err
					}
					here = slices.DeleteFunc(slices.Clone(args), func(n string) bool { _, ok := rec.Get(n); return !ok })
					if len(here) == 0 {
						continue // a copy that went with its last link
					}
				}
				res, err := install.Remove(c.Context(), r.Dir, here, opts)
				if err != nil {
					return removeExit(err)
				}
				verb := "removed"
				if opts.DryRun {
					verb = "would remove"
				}
				if g.json() {
					if err := writeJSON(g.stdout, map[string]any{"schema": schemaOf("remove"), "root": r.Dir, "removed": res.Removed, "broken": res.Broken, "notes": res.Notes, "dry_run": opts.DryRun}); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(g.stdout, "%s %s from %s\n", verb, strings.Join(res.Removed, ", "), r.Dir)
				for _, n := range res.Notes {
					fmt.Fprintln(g.stdout, "  "+n)
				}
				if len(res.Broken) > 0 {
					fmt.Fprintf(g.stderr, "warning: %s now miss a dependency (--force)\n", strings.Join(res.Broken, ", "))
				}
			}
			return nil
		},
	}
	rf.register(c)
	c.Flags().BoolVar(&opts.Prune, "prune", false, "also remove dependencies no remaining skill needs")
	c.Flags().BoolVar(&opts.Force, "force", false, "remove even though other skills depend on it or its files were edited")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print what would be removed and change nothing")
	c.Flags().BoolVar(&noSave, "no-save", false, "in a project: leave skills.yaml and skills.lock as they are")
	return c
}

// removeExit gives remove's failures the exit code of their class (a
// skill others depend on is a conflict: 1).
func removeExit(err error) error { return classExit(err) }
