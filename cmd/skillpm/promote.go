package main

import (
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/tiers"
	"github.com/spf13/cobra"
)

type promoteFlags struct {
	regFlags
	signFlags
	trust trustFlags
}

type promoteJSON struct {
	*signedJSON
	Policy   string         `json:"policy"`
	Tier     string         `json:"tier"`
	Decision tiers.Decision `json:"decision"`
}

func newPromoteCmd(g *globals) *cobra.Command {
	var f promoteFlags
	c := &cobra.Command{
		Use:   "promote REF --key K",
		Short: "Countersign a published skill version (the marketplace promotion)",
		Long: `Promote is the marketplace's promotion step: an auditor countersigns the
manifest digest of a published version with their own key (or keyless
identity). It is skillpm sign with other words: the countersignature is one
more signature attached to the same digest, and the skill's tier rises
wherever the trust policy trusts the auditor (a policy with tier verified
naming the auditor's key, say). Promote then shows the tier the effective
policy (--policy FILE, else the search path) now gives.

A promotion is for one digest: a new version is not promoted until it is
countersigned again.`,
		Example: `  skillpm promote web-research@1.0.0 --key auditor.key
  skillpm promote ghcr.io/acme/skills/web-research@1.2.0 --key auditor.key --policy marketplace.yaml`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			// The policy first: an invalid one stops the promotion before
			// anything is signed.
			e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, trust: &f.trust, from: f.registry})
			if err != nil {
				return err
			}
			opts, err := f.options(ctx, g)
			if err != nil {
				return err
			}
			pr, err := e.Promote(ctx, engine.SignRequest{Ref: args[0], Sign: opts})
			if err != nil {
				return sourceErr(g, f.registry, err)
			}
			return printPromotion(g, pr)
		},
	}
	f.signFlags.register(c, false)
	// promote's --key is the signing key; the verification flags other
	// than --key are shared with verify.
	bindPolicy(c.Flags(), &f.trust.policyOption, "show the tier under the trust policy in `FILE` instead of the search path's")
	f.addRegistry(c)
	f.addPlainHTTP(c)
	return c
}

// printPromotion renders a promotion: JSON, or the countersignature, the
// tier it gets and warnings (one when no policy rule names the signer).
func printPromotion(g *globals, pr *engine.PromoteResult) error {
	p, out, d := pr.Policy, pr.Signed, pr.Decision
	if g.json() {
		return g.writeJSON(promoteJSON{signedJSON: out, Policy: policyName(p), Tier: string(d.Effective), Decision: d})
	}
	warnJunk(g.stderr, out)
	printSigned(g.stdout, out, "countersigned")
	fmt.Fprintf(g.stdout, "tier under %s: %s (attested %s, claimed %s)\n", policyName(p), d.Effective, d.Attested, d.Claimed)
	for _, warn := range d.Warnings {
		g.o().Warn(fmt.Sprintf("%s@%s: %s", out.Name, out.Version, warn))
	}
	if !p.NamesSigner(out.Signer) {
		g.o().Warn(fmt.Sprintf("the trust policy (%s) trusts no identity %s: this countersignature raises no tier until a policy names it", policyName(p), out.Signer))
	}
	return nil
}
