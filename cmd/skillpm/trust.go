package main

import (
	"fmt"
	"path/filepath"
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

// trustView is the JSON document of trust add and trust remove: the
// policy entry (engine.TrustKeyResult's Rule) flattened, with the key's
// copy as a path.
type trustView struct {
	PolicyFile  string   `json:"policy"`
	KeyFile     string   `json:"key"`
	Fingerprint string   `json:"fingerprint"`
	Rule        string   `json:"rule"`
	Scopes      []string `json:"scopes,omitempty"`
	Tier        string   `json:"tier,omitempty"`
	Changed     bool     `json:"changed"`
}

// printTrust says what the policy now says about the key and how to undo
// it.
func printTrust(g *globals, res *engine.TrustKeyResult, verb string) error {
	key := res.Rule.Identities[0]
	v := trustView{PolicyFile: res.PolicyFile, KeyFile: key.KeyPath(filepath.Dir(res.PolicyFile)),
		Fingerprint: key.KeyFingerprint, Rule: res.Rule.Name, Scopes: res.Rule.Scopes, Tier: string(res.Rule.Tier), Changed: res.Changed}
	if g.json() {
		return g.writeJSON(map[string]any{"schema": schemaOf("trust"), "trust": v})
	}
	switch {
	case !v.Changed && verb == "trusts":
		fmt.Fprintf(g.stdout, "%s already trusts key %s (%s: %s)\n", v.PolicyFile, v.Fingerprint, strings.Join(v.Scopes, ", "), v.Tier)
	case !v.Changed:
		fmt.Fprintf(g.stdout, "%s does not trust key %s through skillpm trust add: nothing to remove\n", v.PolicyFile, v.Fingerprint)
	case verb == "trusts":
		fmt.Fprintf(g.stdout, "%s now trusts key %s: its signatures earn %s in %s (policy %q, key copied to %s)\n",
			v.PolicyFile, v.Fingerprint, v.Tier, strings.Join(v.Scopes, ", "), v.Rule, v.KeyFile)
		fmt.Fprintf(g.stdout, "undo with: skillpm trust remove %s\n", v.KeyFile)
	default:
		fmt.Fprintf(g.stdout, "%s no longer trusts key %s (policy %q removed)\n", v.PolicyFile, v.Fingerprint, v.Rule)
	}
	return nil
}
