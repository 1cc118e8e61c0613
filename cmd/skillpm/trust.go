package main

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/spf13/cobra"
)

type trustKeyFlags struct {
	policyOption
	scopes []string
	tier   string
}

func newTrustCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "trust",
		Short: "Trust a signing key in the trust policy, or stop trusting it",
		Long: `Trust edits the trust policy every command reads (--policy FILE, else
$XDG_CONFIG_HOME/skillpm/policy.yaml, created when missing) in one step:
trust add copies the public key beside it and adds a policy giving its
signatures a tier (community unless --tier) in the repositories --scope
names (the embedded registry, embedded/*, unless given); trust remove takes
both away again. A skill signed with the key's private half then earns that
tier, and its dependencies signed by it install with it.`,
		Example: `  skillpm keygen --output-prefix publisher
  skillpm trust add publisher.pub
  skillpm trust add release.pub --scope 'ghcr.io/acme/skills/*' --tier verified
  skillpm trust remove publisher.pub`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newTrustAddCmd(g), newTrustRemoveCmd(g))
	return c
}

func newTrustAddCmd(g *globals) *cobra.Command {
	var f trustKeyFlags
	c := &cobra.Command{
		Use:   "add KEY.pub",
		Short: "Trust the signatures of a public key (printed; trust remove undoes it)",
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			e, err := openEngine(c.Context(), g, engineFlags{policyFile: f.policy})
			if err != nil {
				return err
			}
			res, err := e.TrustKey(c.Context(), engine.TrustKeyRequest{Key: args[0], Scopes: f.scopes, Tier: f.tier})
			if err != nil {
				return err
			}
			return printTrust(g, res, "trusts")
		},
	}
	bindPolicy(c.Flags(), &f.policyOption, "edit the trust policy in `FILE` instead of the user's")
	c.Flags().StringArrayVar(&f.scopes, "scope", nil, "trust the key for the repositories `SCOPE` matches (repeatable; default embedded/*)")
	c.Flags().StringVar(&f.tier, "tier", "", "the `TIER` its signatures earn: verified, community or experimental (default community)")
	return c
}

func newTrustRemoveCmd(g *globals) *cobra.Command {
	var f trustKeyFlags
	c := &cobra.Command{
		Use:   "remove KEY.pub",
		Short: "Stop trusting a key that trust add trusted",
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			e, err := openEngine(c.Context(), g, engineFlags{policyFile: f.policy})
			if err != nil {
				return err
			}
			res, err := e.UntrustKey(c.Context(), engine.TrustKeyRequest{Key: args[0]})
			if err != nil {
				return err
			}
			return printTrust(g, res, "no longer trusts")
		},
	}
	bindPolicy(c.Flags(), &f.policyOption, "edit the trust policy in `FILE` instead of the user's")
	return c
}

// printTrust says what the policy now says about the key and how to undo
// it.
func printTrust(g *globals, res *engine.TrustKeyResult, verb string) error {
	if g.json() {
		return g.writeJSON(map[string]any{"schema": schemaOf("trust"), "trust": res})
	}
	switch {
	case !res.Changed && verb == "trusts":
		fmt.Fprintf(g.stdout, "%s already trusts key %s (%s: %s)\n", res.PolicyFile, res.Fingerprint, strings.Join(res.Scopes, ", "), res.Tier)
	case !res.Changed:
		fmt.Fprintf(g.stdout, "%s does not trust key %s through skillpm trust add: nothing to remove\n", res.PolicyFile, res.Fingerprint)
	case verb == "trusts":
		fmt.Fprintf(g.stdout, "%s now trusts key %s: its signatures earn %s in %s (policy %q, key copied to %s)\n",
			res.PolicyFile, res.Fingerprint, res.Tier, strings.Join(res.Scopes, ", "), res.Rule, res.KeyFile)
		fmt.Fprintf(g.stdout, "undo with: skillpm trust remove %s\n", res.KeyFile)
	default:
		fmt.Fprintf(g.stdout, "%s no longer trusts key %s (policy %q removed)\n", res.PolicyFile, res.Fingerprint, res.Rule)
	}
	return nil
}
