package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/spf13/cobra"
)

func newRemoveCmd(g *globals) *cobra.Command {
	var rf rootFlags
	var opts install.RemoveOptions
	c := &cobra.Command{
		Use:   "remove NAME...",
		Short: "Uninstall skills",
		Long: `Remove uninstalls skills from the chosen root(s) in one transaction. It
refuses while another installed skill depends on one named (the error lists
them), or while one was edited by hand since it was installed, unless
--force; --prune also removes dependencies nobody needs any more.`,
		Example: `  skillpm remove web-research
  skillpm remove fix --prune --host claude`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			roots, err := rf.targets(g.defaultHost())
			if err != nil {
				return err
			}
			for _, r := range roots {
				res, err := install.Remove(c.Context(), r.Dir, args, opts)
				if err != nil {
					if errors.Is(err, install.ErrDependedUpon) || errors.Is(err, install.ErrEdited) {
						return withCode(exitFailure, err)
					}
					return err
				}
				verb := "removed"
				if opts.DryRun {
					verb = "would remove"
				}
				if g.json() {
					if err := writeJSON(g.stdout, map[string]any{"root": r.Dir, "removed": res.Removed, "broken": res.Broken, "dryRun": opts.DryRun}); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(g.stdout, "%s %s from %s\n", verb, strings.Join(res.Removed, ", "), r.Dir)
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
	return c
}
