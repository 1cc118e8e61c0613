package main

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/engine"
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
			project := !noSave && len(rf.roots) == 0 && hasProject("")
			e, err := openEngine(c.Context(), g, engineFlags{rf: &rf, lenientEnv: project || rf.none()})
			if err != nil {
				return err
			}
			r := engine.RemoveRequest{Names: args, Options: opts, NoSave: noSave}
			if project {
				return runProjectRemove(c, g, e, r)
			}
			done, err := e.Remove(c.Context(), r)
			if perr := printRemovals(g, done.Roots, opts.DryRun); perr != nil {
				return perr
			}
			if mapped, ok := engineErr(g, err); ok {
				return mapped
			}
			return err
		},
	}
	rf.register(c)
	c.Flags().BoolVar(&opts.Prune, "prune", false, "also remove dependencies no remaining skill needs")
	c.Flags().BoolVar(&opts.Force, "force", false, "remove even though other skills depend on it or its files were edited")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print what would be removed and change nothing")
	c.Flags().BoolVar(&noSave, "no-save", false, "in a project: leave skills.yaml and skills.lock as they are")
	return c
}

// printRemovals renders what each root lost: a JSON document per root,
// or a line per root (with what happened to links and their copies) and a
// warning for the skills left broken.
func printRemovals(g *globals, done []install.Removal, dryRun bool) error {
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	for _, r := range done {
		if g.json() {
			if err := g.writeJSON(map[string]any{"schema": schemaOf("remove"), "root": r.Root.Dir, "removed": r.Removed, "broken": r.Broken, "notes": r.Notes, "dry_run": dryRun}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(g.stdout, "%s %s from %s\n", verb, strings.Join(r.Removed, ", "), r.Root.Dir)
		for _, n := range r.Notes {
			fmt.Fprintln(g.stdout, "  "+n)
		}
		if len(r.Broken) > 0 {
			g.o().Warn(fmt.Sprintf("%s now miss a dependency (--force)", strings.Join(r.Broken, ", ")))
		}
	}
	return nil
}
