package main

import (
	"fmt"
	"github.com/skillpm/skillpm/engine"
	"path/filepath"

	"github.com/spf13/cobra"
)

func newQuarantineCmd(g *globals) *cobra.Command {
	var reg regFlags
	c := &cobra.Command{
		Use:   "quarantine",
		Short: "Move installed copies a malicious or revoked advisory names out of every host's roots",
		Long: `Quarantine reads the advisory feed (as install does) and moves every installed
copy that an obeyed malicious or revoked advisory names out of every host's
roots, user and project, into the root's .skillpm/quarantine folder, where no
agent loads it. Nothing is deleted: each move is journaled with the receipts
(a crash is finished by the next skillpm run) and leaves a receipt saying why
and from where; skillpm restore puts a copy back byte for byte.

A copy moves only when its bytes match exactly: its files are those skillpm
installed for the version the advisory names, or their tree hash is a digest
it names. A copy that was edited, or a feed that cannot be read or is not
obeyed, leaves everything in place and says so.`,
		Example: `  skillpm quarantine
  skillpm restore web-research`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			e, err := openEngine(ctx, g, engineFlags{reg: &reg, from: reg.registry, lenientEnv: true})
			if err != nil {
				return err
			}
			res, err := e.Quarantine(ctx, engine.QuarantineRequest{})
			if err != nil {
				return err
			}
			if g.json() {
				return g.writeJSON(res)
			}
			if res.Feed != "" {
				g.o().Warn(fmt.Sprintf("%s: nothing was moved", res.Feed))
			}
			for _, q := range res.Moved {
				fmt.Fprintf(g.stdout, "quarantined %s from %s into %s (%s)\n", q.Name, q.Root, filepath.Join(q.Root, ".skillpm", "quarantine", q.ID), q.Why)
			}
			for _, l := range res.Left {
				g.o().Warn(l)
			}
			if len(res.Moved) == 0 && res.Feed == "" {
				fmt.Fprintln(g.stderr, "no installed copy is named by a malicious or revoked advisory")
			}
			return nil
		},
	}
	reg.addRegistry(c)
	reg.addPlainHTTP(c)
	return c
}

func newRestoreCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "restore NAME...",
		Short: "Put quarantined copies back where they were",
		Long: `Restore moves the quarantined copies of the named skills back into the roots
they were taken from, byte for byte, with their receipts, in one journaled
transaction per root. A skill installed again in the meantime is refused.
The advisory still stands: install and doctor keep reporting it.`,
		Example: `  skillpm restore web-research`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			e, err := openEngine(ctx, g, engineFlags{lenientEnv: true})
			if err != nil {
				return err
			}
			got, err := e.Restore(ctx, engine.RestoreRequest{Names: args})
			if err != nil {
				return err
			}
			if g.json() {
				return g.writeJSON(got.Restored)
			}
			for _, q := range got.Restored {
				fmt.Fprintf(g.stdout, "restored %s into %s\n", q.Name, q.Root)
			}
			return nil
		},
	}
	return c
}
