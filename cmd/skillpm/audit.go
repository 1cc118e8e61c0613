package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/spf13/cobra"
)

type auditFlags struct {
	regFlags
	sign      signFlags
	tier      string
	recursive bool
	suggest   bool
}

func newAuditCmd(g *globals) *cobra.Command {
	var f auditFlags
	c := &cobra.Command{
		Use:   "audit DIR|REF [DIR...] | audit -r ROOT...",
		Short: "Statically scan a skill's instructions and code",
		Long: `Audit scans a skill without executing anything: a directory, or a
published version (REF: NAME[@VERSION], REGISTRY/NAMESPACE/NAME[@VERSION],
oci-layout:DIR/NAME[@VERSION]) pulled with the safe unpacker into a
temporary directory: exactly the files install would write. An argument
that is an existing directory is audited as one (write NAME@VERSION for a
published skill of the same name). It reads its instructions
(SKILL.md, step files, references) for hidden Unicode and hostile directives,
its Python, shell, JavaScript and TypeScript code for dynamic execution,
downloaded or obfuscated code, credential reads and the permissions it uses
beyond metadata.gaia.permissions, and its dependencies for unpinned, git and
URL sources.

Findings are printed compiler-style on stderr, then the verdict for the tier
(default: the tier the skill claims): patterns malware uses (paste sites,
password-protected archives, code fetched from a raw IP, plain HTTP or a
domain the skill is not about and run) block at every tier; otherwise
experimental blocks critical findings;
community blocks critical and reviews high; verified blocks high and reviews
medium; anything unreadable is at least review. A product's own installer,
or a known toolchain's, is reviewed and named.

Several directories, or with -r every directory holding a SKILL.md below
each ROOT, are audited in one process: each skill's findings and verdict,
then a summary line ("audited N skills: P pass, R review, B block, F
failed") and the blocked ones. With --output json the document is then
{"skills": [{"path", "report", "digest", "verdict"} or {"path", "error"}],
"summary": {…}}; the exit status is 5 when any blocks, 1 when any could not
be audited.

--suggest prints the metadata.gaia.permissions that would cover what the
code does (scoped to the hosts, programs and variables it names when all
are known), how many are not declared yet, and the allowed-tools entries
that amount to them: an author can declare instead of being blocked.

--output json prints {"report", "digest", "verdict"} (plus "manifest" and
"attestation" for a REF); the digest is the sha256 of the report's canonical
JSON, which an audit attestation records.

--sign with --key K or --keyless (REF only) signs an audit attestation and
attaches it to the skill version as an OCI referrer, like a signature: an
in-toto statement about the manifest digest, predicate type
https://skillpm.dev/attestations/audit/v1, recording the report digest and
finding counts, the verdict and its tier, and the auditor tool. A trust
policy rule with requireAudit grants its tier only when an identity it names
signed a pass or review verdict at the tier the skill claims or above;
skillpm verify lists the attestations. A block verdict is attested too (a
signed record of the refusal) but never satisfies requireAudit.

Exit status: 0 pass or review, 5 block, 1 the skill could not be audited,
2 usage (--sign on a directory), 4 no such skill, 6 registry failure.`,
		Example: `  skillpm audit ./web-search
  skillpm audit --tier verified ./web-search
  skillpm audit --suggest ./web-search
  skillpm audit --output json ./web-search
  skillpm audit ./skills/web-search ./skills/pdf
  skillpm audit -r ./skills --output json
  skillpm audit web-search@1.0.0
  skillpm audit ghcr.io/acme/skills/web-search@1.0.0 --sign --key auditor.key`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runAudit(c, g, &f, args)
		},
	}
	c.Flags().BoolVarP(&f.recursive, "recursive", "r", false, "audit every skill (directory with a SKILL.md) found below each DIR")
	c.Flags().BoolVar(&f.suggest, "suggest", false, "print the metadata.gaia.permissions (and allowed-tools) that would cover what the code does")
	c.Flags().StringVar(&f.tier, "tier", "", "judge at this tier: experimental, community or verified (default: the tier the skill claims)")
	f.sign.register(c, true)
	c.Flags().Lookup("sign").Usage = "sign an audit attestation of the verdict and attach it to the published version REF (with --key or --keyless)"
	f.addRegistry(c)
	f.addPlainHTTP(c)
	return c
}

// auditJSON is the --output json document.
type auditJSON struct {
	Report  *audit.Report `json:"report"`
	Digest  string        `json:"digest"`
	Verdict audit.Verdict `json:"verdict"`
	// Manifest is the audited version's manifest digest, for a REF.
	Manifest string `json:"manifest,omitempty"`
	// Attestation is the attestation --sign attached.
	Attestation *registry.AuditAttestation `json:"attestation,omitempty"`
	// Suggestion is what --suggest adds.
	Suggestion *audit.Suggestion `json:"suggestion,omitempty"`
}

func runAudit(c *cobra.Command, g *globals, f *auditFlags, args []string) error {
	switch f.tier {
	case "", skill.TierExperimental, skill.TierCommunity, skill.TierVerified:
	default:
		return usageErrorf(c, fmt.Errorf("--tier must be experimental, community or verified, not %q", f.tier))
	}
	ctx := c.Context()
	e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: f.registry, lenientEnv: true})
	if err != nil {
		return err
	}
	r := engine.AuditRequest{Paths: args, Recursive: f.recursive, Tier: f.tier, Suggest: f.suggest}
	if f.sign.wanted() {
		r.Sign = func(ctx context.Context) (sign.SignOptions, error) { return f.sign.options(ctx, g) }
	}
	res, err := e.Audit(ctx, r)
	switch {
	case err != nil:
		return auditErr(c, g, f, args, err)
	case len(args) == 1 && !f.recursive:
		return printAudit(g, &res.Skills[0])
	}
	return printAuditMany(g, res)
}

// auditErr words the engine's refusals with the command line's flags and
// gives a skill that could not be audited exit status 1.
func auditErr(c *cobra.Command, g *globals, f *auditFlags, args []string, err error) error {
	single := len(args) == 1 && !f.recursive
	switch {
	case errors.Is(err, engine.ErrAttestVersion) && single:
		return classed(errdef.Usage, fmt.Errorf("--sign attests a published version, and %s is a directory: publish it, then skillpm audit NAME@VERSION --sign --key K", args[0]))
	case errors.Is(err, engine.ErrAttestVersion):
		return classed(errdef.Usage, errors.New("--sign attests one published version; audit several skills without it"))
	case errors.Is(err, install.ErrAuditFailed):
		return classed(errdef.Internal, err)
	case errors.Is(err, engine.ErrNoSkillDirs):
		// The message names the directory: "audit -r DIR: why".
		return classed(errdef.Internal, fmt.Errorf("audit -r %w", err))
	case errors.Is(err, audit.ErrNotDir) && !single:
		return usageErrorf(c, err)
	}
	return refErr(g, f.registry, err)
}

// printAudit renders the audit of one skill; a verdict that blocks is
// exit status 5.
func printAudit(g *globals, s *engine.AuditedSkill) error {
	rep, v := s.Report, s.Verdict
	digest, err := rep.Digest()
	if err != nil {
		return err
	}
	if g.json() {
		j := auditJSON{Report: rep, Digest: digest, Verdict: v, Attestation: s.Attestation, Suggestion: s.Suggestion}
		if s.Manifest != nil {
			j.Manifest = s.Manifest.Descriptor.Digest.String()
		}
		if err := g.writeJSON(j); err != nil {
			return err
		}
	} else {
		printFindings(g.stderr, s.Path, rep.Findings, g.quiet)
		printVerdict(g.stdout, s.Path, rep, v, digest, g.quiet)
		printSuggestion(g.stdout, s.Suggestion)
		if s.Attestation != nil {
			printAttested(g.stdout, s.Attestation)
		}
	}
	if v.Decision == audit.Block {
		name := rep.Skill
		if name == "" {
			name = s.Path
		}
		return classed(errdef.Trust, fmt.Errorf("audit blocks %s at tier %s (%s)", name, v.Tier, countText(rep)))
	}
	return nil
}

// printSuggestion renders --suggest as the frontmatter to add.
func printSuggestion(w io.Writer, sug *audit.Suggestion) {
	if sug == nil {
		return
	}
	if len(sug.Permissions) == 0 {
		fmt.Fprintln(w, "suggested permissions: none (the code uses no network, file system, program, environment, database, desktop or MCP)")
		return
	}
	fmt.Fprintf(w, "suggested permissions (%d not declared yet):\nmetadata:\n  gaia:\n    permissions:\n", len(sug.Undeclared))
	for _, p := range sug.Permissions {
		fmt.Fprintf(w, "      - %s\n", p)
	}
	if len(sug.AllowedTools) > 0 {
		fmt.Fprintf(w, "allowed-tools: %s\n", strings.Join(sug.AllowedTools, " "))
	}
}

func printFindings(w io.Writer, dir string, fs []audit.Finding, quiet bool) {
	for _, f := range fs {
		f.File = filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(f.File)))
		fmt.Fprintln(w, termLines(f.String()))
		if quiet {
			continue
		}
		if f.Evidence != "" {
			fmt.Fprintf(w, "\tevidence: %s\n", termText(f.Evidence))
		}
		if f.Hint != "" {
			fmt.Fprintf(w, "\thint: %s\n", termText(f.Hint))
		}
	}
}

func printVerdict(w io.Writer, dir string, rep *audit.Report, v audit.Verdict, digest string, quiet bool) {
	name := rep.Skill
	if name == "" {
		name = dir
	}
	fmt.Fprintf(w, "%s: %s at tier %s (%s)\n", termText(name), v.Decision, v.Tier, countText(rep))
	if quiet {
		return
	}
	for _, r := range v.Reasons {
		fmt.Fprintf(w, "  %s\n", termText(r))
	}
	fmt.Fprintf(w, "report digest %s\n", digest)
}

// countText renders "3 findings: 1 critical, 2 high" or "no findings".
func countText(rep *audit.Report) string {
	if len(rep.Findings) == 0 {
		return "no findings"
	}
	by := rep.CountBySeverity()
	var parts []string
	for s := audit.Critical; s >= audit.Low; s-- {
		if by[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", by[s], s))
		}
	}
	return plural(len(rep.Findings), "finding") + ": " + strings.Join(parts, ", ")
}
