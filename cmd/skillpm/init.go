package main

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/spf13/cobra"
)

func newInitCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "init NAME|DIR",
		Short: "Create a new skill that validates",
		Long: `Init creates the directory NAME (or DIR, whose last element is the skill's
name) with a SKILL.md at version 0.1.0 that passes strict validation.`,
		Example: `  skillpm init web-research
  skillpm init skills/web-research`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := skill.Scaffold(c.Context(), args[0]); err != nil {
				return err
			}
			if !g.quiet {
				fmt.Fprintf(g.stdout, "created skill %s; edit %s/SKILL.md, then run: skillpm validate %s\n", args[0], args[0], args[0])
			}
			return nil
		},
	}
}
