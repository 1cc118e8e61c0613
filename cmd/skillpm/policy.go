package main

import (
	"context"
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
add KEY.pub trusts a key of your own in the policy in force.

A project's own policy counts only once this machine has approved it
(skillpm policy approve, or skillpm trust add creating it): a cloned
repository must not be able to trust its own keys. Until then, and again
after any change to it or to a key file it names, commands warn and use
the policy they would use without it.`,
		Example: `  skillpm policy show
  skillpm policy show --policy ./policy.yaml --output json
  skillpm policy check ./policy.yaml
  skillpm policy approve`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newPolicyShowCmd(g), newPolicyCheckCmd(g), newPolicyApproveCmd(g))
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
			choice, err := choosePolicy(c.Context(), g, file.policy, "", warnOnce(g))
			if err != nil {
				if choice == nil {
					return err
				}
				return policyLoadError(g, err)
			}
			p := choice.Policy
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
		fmt.Fprintf(w, "policy: %s\n", termText(p.Source))
	}
	if len(p.Rules) == 0 {
		fmt.Fprintln(w, "policies: none")
	} else {
		fmt.Fprintln(w, "policies:")
	}
	for _, r := range p.Rules {
		fmt.Fprintf(w, "  %s: %s\n", termText(r.Name), r.Tier)
		fmt.Fprintf(w, "    scopes: %s\n", termText(strings.Join(r.Scopes, ", ")))
		fmt.Fprintln(w, "    identities:")
		for _, id := range r.Identities {
			fmt.Fprintf(w, "      - %s\n", termText(id.String()))
		}
		if len(r.RequireAudit) > 0 {
			fmt.Fprintln(w, "    requireAudit:")
			for _, id := range r.RequireAudit {
				fmt.Fprintf(w, "      - %s\n", termText(id.String()))
			}
		}
	}
	fmt.Fprintln(w, "ceilings:")
	fmt.Fprintf(w, "  experimental: %s\n", p.Ceilings.Experimental)
	fmt.Fprintf(w, "  community: %s\n", p.Ceilings.Community)
	fmt.Fprintf(w, "  verified: %s\n", p.Ceilings.Verified)
	fmt.Fprintf(w, "dangerous: %s\n", p.Dangerous)
	roots := append([]string{"the public-good Sigstore root (embedded)"}, p.TrustedRoots...)
	fmt.Fprintf(w, "trusted roots: %s\n", termText(strings.Join(roots, ", ")))
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

// approveFlags are policy approve's flags.
type approveFlags struct {
	manifest string
	yes      bool
	revoke   bool
}

func newPolicyApproveCmd(g *globals) *cobra.Command {
	var f approveFlags
	c := &cobra.Command{
		Use:   "approve [FILE]",
		Short: "Approve a project's trust policy on this machine",
		Long: `Approve shows the trust policy a project's skills.yaml names (policy: FILE),
or FILE, with the digest of its bytes and of the key files and trusted roots
it names, and records on this machine that you approve exactly those bytes.
A project's policy is obeyed only while it is approved: a repository you
clone cannot trust its own keys, and any later change to the policy or its
keys needs approving again. On a terminal it asks first; in a script give
--yes. --revoke withdraws the approval. Approvals are kept in
$XDG_STATE_HOME/skillpm/approved-policies (else ~/.local/state/skillpm).`,
		Example: `  skillpm policy approve
  skillpm policy approve ./policy.yaml --yes
  skillpm policy approve --revoke`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			req := engine.ApprovePolicyRequest{Manifest: f.manifest, Revoke: f.revoke}
			if len(args) == 1 {
				req.File = args[0]
			}
			return runPolicyApprove(c.Context(), g, f, req)
		},
	}
	c.Flags().StringVar(&f.manifest, "manifest", "", "project manifest `FILE` whose policy: to approve (default skills.yaml)")
	markShared(c.Flags(), "manifest")
	c.Flags().BoolVarP(&f.yes, "yes", "y", false, "approve without asking (a script that has reviewed the policy)")
	c.Flags().BoolVar(&f.revoke, "revoke", false, "withdraw the approval instead")
	return c
}

// runPolicyApprove revokes, or shows the policy, asks, and approves the
// digest shown (so a file edited meanwhile is refused, not approved).
func runPolicyApprove(ctx context.Context, g *globals, f approveFlags, req engine.ApprovePolicyRequest) error {
	if f.revoke {
		res, err := engine.ApprovePolicy(ctx, req)
		if err != nil {
			return err
		}
		return renderApproval(g, res, false)
	}
	req.DryRun = true
	shown, err := engine.ApprovePolicy(ctx, req)
	if err != nil {
		return policyLoadError(g, err)
	}
	if !shown.Changed {
		return renderApproval(g, shown, true)
	}
	if !g.json() {
		printPolicy(g.stdout, shown.Policy, nil)
		fmt.Fprintf(g.stdout, "digest: %s\n", shown.Policy.Digest)
	}
	if !f.yes {
		if err := confirmApproval(ctx, g, shown.File); err != nil {
			return err
		}
	}
	req.DryRun, req.Digest, req.File = false, shown.Policy.Digest, shown.File
	res, err := engine.ApprovePolicy(ctx, req)
	if err != nil {
		return policyLoadError(g, err)
	}
	return renderApproval(g, res, true)
}

// confirmApproval asks on the terminal whether to approve file; without
// one it refuses, naming --yes.
func confirmApproval(ctx context.Context, g *globals, file string) error {
	p := newTermPrompter(g, false)
	if p == nil {
		return classed(errdef.Usage, fmt.Errorf("approving %s needs a yes: review it (above), then run again with --yes", file))
	}
	q := tiers.Consent{Question: fmt.Sprintf("Obey %s in every command run in this project on this machine, trusting the signers above for the tiers they name?", file)}
	ok, err := p.Confirm(ctx, q)
	if err != nil {
		return err
	}
	if !ok {
		return classed(errdef.Usage, fmt.Errorf("%s not approved: commands run in this project keep ignoring it", file))
	}
	return nil
}

// renderApproval prints what policy approve did: approved says whether
// the file is approved now.
func renderApproval(g *globals, res *engine.ApprovePolicyResult, approved bool) error {
	out := approveJSON{File: res.File, Approved: approved, Changed: res.Changed}
	if res.Policy != nil {
		out.Digest = res.Policy.Digest
	}
	if g.json() {
		return g.writeJSON(out)
	}
	// The file is the project's to name (skills.yaml's policy:).
	file := termText(res.File)
	switch {
	case !approved && res.Changed:
		fmt.Fprintf(g.stdout, "%s is no longer approved on this machine\n", file)
	case !approved:
		fmt.Fprintf(g.stdout, "%s was not approved on this machine: nothing to revoke\n", file)
	case res.Changed:
		fmt.Fprintf(g.stdout, "approved %s on this machine (%s): commands run in this project obey it until it or a key it names changes\n", file, out.Digest)
	default:
		fmt.Fprintf(g.stdout, "%s is approved on this machine already (%s)\n", file, out.Digest)
	}
	return nil
}

// approveJSON is policy approve's --output json.
type approveJSON struct {
	File     string `json:"file"`
	Digest   string `json:"digest,omitempty"`
	Approved bool   `json:"approved"`
	Changed  bool   `json:"changed"`
}
