package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/tiers"
	"github.com/spf13/cobra"
)

func newPolicyCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "policy",
		Short: "Show the effective trust policy or check a policy file",
		Long: `The trust policy says which signers earn which tier (verified, community,
experimental) for which repositories, and which permissions each tier may be
granted. It is read from --policy FILE, else the file a project's skills.yaml
names (policy: FILE, beside it), else config.yaml's policy:, else
$XDG_CONFIG_HOME/skillpm/policy.yaml, else /etc/skillpm/policy.yaml; with none
of them, the built-in default makes every skill experimental. skillpm trust
add KEY.pub trusts a key of your own in the policy in force.`,
		Example: `  skillpm policy show
  skillpm policy show --policy ./policy.yaml --output json
  skillpm policy check ./policy.yaml`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newPolicyShowCmd(g), newPolicyCheckCmd(g))
	return c
}

func newPolicyShowCmd(g *globals) *cobra.Command {
	var file policyOption
	c := &cobra.Command{
		Use:   "show",
		Short: "Print the effective trust policy",
		Long: `Show prints the policy commands use: its source file (or the built-in
default), each policy with its scopes, tier and identities, the permission
ceilings, the dangerous permissions and the trusted roots. An invalid policy
file is reported with file:line:col and exit status 3.`,
		Example: `  skillpm policy show
  skillpm policy show --policy /etc/skillpm/policy.yaml --output json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			path, err := engine.PolicyFileFor(c.Context(), file.policy, "", g.config().Policy)
			if err != nil {
				return err
			}
			p, err := tiers.LoadEffective(c.Context(), path, os.Getenv)
			if err != nil {
				return policyLoadError(g, err)
			}
			if g.json() {
				return g.writeJSON(showJSON(p))
			}
			printPolicy(g.stdout, p, tiers.SearchPath(os.Getenv))
			return nil
		},
	}
	bindPolicy(c.Flags(), &file, "show the trust policy in `FILE` instead of the project's (policy: in skills.yaml), the configuration's or the search path's")
	return c
}

func newPolicyCheckCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE",
		Short: "Check a trust policy file",
		Long: `Check parses FILE as a trust policy, reads the key files and trusted roots
it names, and reports every problem as file:line:col: what — how to fix, on
stderr. Exit status 3 when the policy is invalid, 1 when FILE cannot be read.`,
		Example: `  skillpm policy check ./policy.yaml
  skillpm policy check --output json ./policy.yaml`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			p, err := tiers.Load(c.Context(), args[0])
			if err != nil {
				return policyLoadError(g, err)
			}
			if g.json() {
				return g.writeJSON(checkJSON{File: args[0], Valid: true, Problems: []tiers.Problem{}})
			}
			if !g.quiet {
				fmt.Fprintf(g.stdout, "%s: valid trust policy (%s, %s)\n", args[0], plural(len(p.Rules), "policy rule"), plural(len(p.TrustedRoots), "trusted root"))
			}
			return nil
		},
	}
}

type checkJSON struct {
	File     string          `json:"file"`
	Valid    bool            `json:"valid"`
	Problems []tiers.Problem `json:"problems"`
}

// policyLoadError prints an invalid policy's problems (every one, on
// stderr, or as JSON on stdout) and returns the error with exit status 3;
// anything else (an unreadable or missing file) is a plain failure.
func policyLoadError(g *globals, err error) error {
	var pe *tiers.PolicyError
	if !errors.As(err, &pe) {
		if errors.Is(err, fs.ErrNotExist) {
			return classed(errdef.Internal, fmt.Errorf("%w\n\n%s", err, policyExample))
		}
		return err
	}
	file := ""
	if len(pe.Problems) > 0 {
		file = pe.Problems[0].File
	}
	if g.json() {
		if werr := g.writeJSON(checkJSON{File: file, Valid: false, Problems: pe.Problems}); werr != nil {
			return werr
		}
	} else {
		for _, p := range pe.Problems {
			fmt.Fprintln(g.stderr, p.String())
		}
	}
	return classed(errdef.Validation, fmt.Errorf("%s: invalid trust policy (%s)", file, plural(len(pe.Problems), "problem")))
}

type policyJSON struct {
	Source       string              `json:"source"`
	Builtin      bool                `json:"builtin"`
	Version      int                 `json:"version"`
	Policies     []tiers.Rule        `json:"policies"`
	Ceilings     tiers.Ceilings      `json:"ceilings"`
	Dangerous    tiers.PermissionSet `json:"dangerous"`
	TrustedRoots []string            `json:"trustedRoots"`
}

func showJSON(p *tiers.Policy) policyJSON {
	j := policyJSON{Source: p.Source, Builtin: p.IsDefault(), Version: p.Version, Policies: p.Rules,
		Ceilings: p.Ceilings, Dangerous: p.Dangerous, TrustedRoots: p.TrustedRoots}
	if j.Builtin {
		j.Source = "built-in default"
	}
	if j.Policies == nil {
		j.Policies = []tiers.Rule{}
	}
	if j.Dangerous == nil {
		j.Dangerous = tiers.PermissionSet{}
	}
	if j.TrustedRoots == nil {
		j.TrustedRoots = []string{}
	}
	return j
}

func printPolicy(w io.Writer, p *tiers.Policy, searched []string) {
	if p.IsDefault() {
		fmt.Fprintf(w, "policy: built-in default (no file at %s): every skill is experimental\n", strings.Join(searched, " or "))
	} else {
		fmt.Fprintf(w, "policy: %s\n", p.Source)
	}
	if len(p.Rules) == 0 {
		fmt.Fprintln(w, "policies: none")
	} else {
		fmt.Fprintln(w, "policies:")
	}
	for _, r := range p.Rules {
		fmt.Fprintf(w, "  %s: %s\n", r.Name, r.Tier)
		fmt.Fprintf(w, "    scopes: %s\n", strings.Join(r.Scopes, ", "))
		fmt.Fprintln(w, "    identities:")
		for _, id := range r.Identities {
			fmt.Fprintf(w, "      - %s\n", id)
		}
		if len(r.RequireAudit) > 0 {
			fmt.Fprintln(w, "    requireAudit:")
			for _, id := range r.RequireAudit {
				fmt.Fprintf(w, "      - %s\n", id)
			}
		}
	}
	fmt.Fprintln(w, "ceilings:")
	fmt.Fprintf(w, "  experimental: %s\n", p.Ceilings.Experimental)
	fmt.Fprintf(w, "  community: %s\n", p.Ceilings.Community)
	fmt.Fprintf(w, "  verified: %s\n", p.Ceilings.Verified)
	fmt.Fprintf(w, "dangerous: %s\n", p.Dangerous)
	roots := append([]string{"the public-good Sigstore root (embedded)"}, p.TrustedRoots...)
	fmt.Fprintf(w, "trusted roots: %s\n", strings.Join(roots, ", "))
}

// policyExample is how to start a trust policy, shown when the file named
// does not exist.
const policyExample = `Write one, for instance (keys are read relative to the file):

  version: 1
  policies:
    - name: our publishers
      scopes: ["embedded/*"]        # or ghcr.io/acme/skills/*
      tier: community
      identities:
        - key: publisher.pub        # skillpm keygen --output-prefix publisher

then check it with skillpm policy check FILE, and put it at
$XDG_CONFIG_HOME/skillpm/policy.yaml to use it without --policy.`
