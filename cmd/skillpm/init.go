package main

import (
	"fmt"
	"path/filepath"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/tiers"
	"github.com/spf13/cobra"
)

func newInitCmd(g *globals) *cobra.Command {
	tier := "community"
	c := &cobra.Command{
		Use:     "init NAME|DIR|.",
		Aliases: []string{"new"},
		Short:   "Create a new skill",
		Long: `Init creates the directory NAME (or DIR, whose last element is the skill's
name) with a SKILL.md at version 0.1.0; "init ." makes the skill in the
current directory, named after it (which must be empty). Its description is a placeholder:
validate and publish refuse it until you say what the skill does and when
to use it.

The skill claims --tier (default community). Install gives a skill the
lower of the tier it claims and the tier the trust policy gives its
signer, so claim the tier your signing identity will be trusted at:
community for a signed skill anyone can consent to, verified when a policy
trusts your identity at verified, experimental for a draft.`,
		Example: `  skillpm init web-research
  mkdir web-research && cd web-research && skillpm init .
  skillpm init skills/web-research --tier verified`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if !tiers.ValidTier(tier) {
				return usageErrorf(c, fmt.Errorf("--tier %q: use verified, community or experimental", tier))
			}
			if err := skill.ScaffoldWith(c.Context(), args[0], skill.ScaffoldOptions{Tier: tier}); err != nil {
				return err
			}
			if !g.quiet {
				name, _ := skill.ScaffoldName(args[0]) // it did not fail in ScaffoldWith
				fmt.Fprintf(g.stdout, "created skill %s (version 0.1.0, claims %s); write its description in %s, then run: skillpm validate %s\n",
					name, tier, filepath.Join(args[0], "SKILL.md"), args[0])
			}
			return nil
		},
	}
	c.Flags().StringVar(&tier, "tier", tier, "security tier the skill claims: verified, community or experimental")
	return c
}
