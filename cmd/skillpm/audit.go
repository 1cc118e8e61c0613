package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/spf13/cobra"
)

type auditFlags struct {
	tier string
}

func newAuditCmd(g *globals) *cobra.Command {
	var f auditFlags
	c := &cobra.Command{
		Use:   "audit DIR",
		Short: "Statically scan a skill's instructions and code",
		Long: `Audit scans a skill directory without executing anything: its instructions
(SKILL.md, step files, references) for hidden Unicode and hostile directives,
its Python, shell, JavaScript and TypeScript code for dynamic execution,
downloaded or obfuscated code, credential reads and the permissions it uses
beyond metadata.gaia.permissions, and its dependencies for unpinned, git and
URL sources.

Findings are printed compiler-style on stderr, then the verdict for the tier
(default: the tier the skill claims): experimental blocks critical findings;
community blocks critical and reviews high; verified blocks high and reviews
medium; anything unreadable is at least review.

--output json prints {"report", "digest", "verdict"}; the digest is the
sha256 of the report's canonical JSON, the subject of an audit attestation.

Exit status: 0 pass or review, 5 block, 1 the directory could not be audited.`,
		Example: `  skillpm audit ./web-search
  skillpm audit --tier verified ./web-search
  skillpm audit --output json ./web-search`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runAudit(c, g, f, args[0])
		},
	}
	c.Flags().StringVar(&f.tier, "tier", "", "judge at this tier: experimental, community or verified (default: the tier the skill claims)")
	return c
}

// auditJSON is the --output json document.
type auditJSON struct {
	Report  *audit.Report `json:"report"`
	Digest  string        `json:"digest"`
	Verdict audit.Verdict `json:"verdict"`
}

func runAudit(c *cobra.Command, g *globals, f auditFlags, dir string) error {
	switch f.tier {
	case "", skill.TierExperimental, skill.TierCommunity, skill.TierVerified:
	default:
		return usageErrorf(c, fmt.Errorf("--tier must be experimental, community or verified, not %q", f.tier))
	}
	rep, err := audit.Scan(c.Context(), dir, audit.Options{Tool: "skillpm " + skillpmVersion()})
	if err != nil {
		return withCode(exitFailure, err)
	}
	v, err := rep.Verdict(f.tier)
	if err != nil {
		return withCode(exitUsage, err)
	}
	digest, err := rep.Digest()
	if err != nil {
		return err
	}
	if g.json() {
		if err := writeJSON(g.stdout, auditJSON{Report: rep, Digest: digest, Verdict: v}); err != nil {
			return err
		}
	} else {
		printFindings(g.stderr, dir, rep.Findings, g.quiet)
		printVerdict(g.stdout, dir, rep, v, digest, g.quiet)
	}
	if v.Decision == audit.Block {
		name := rep.Skill
		if name == "" {
			name = dir
		}
		return withCode(exitTrust, fmt.Errorf("audit blocks %s at tier %s (%s)", name, v.Tier, countText(rep)))
	}
	return nil
}

func printFindings(w io.Writer, dir string, fs []audit.Finding, quiet bool) {
	for _, f := range fs {
		f.File = filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(f.File)))
		fmt.Fprintln(w, f.String())
		if quiet {
			continue
		}
		if f.Evidence != "" {
			fmt.Fprintf(w, "\tevidence: %s\n", f.Evidence)
		}
		if f.Hint != "" {
			fmt.Fprintf(w, "\thint: %s\n", f.Hint)
		}
	}
}

func printVerdict(w io.Writer, dir string, rep *audit.Report, v audit.Verdict, digest string, quiet bool) {
	name := rep.Skill
	if name == "" {
		name = dir
	}
	fmt.Fprintf(w, "%s: %s at tier %s (%s)\n", name, v.Decision, v.Tier, countText(rep))
	if quiet {
		return
	}
	for _, r := range v.Reasons {
		fmt.Fprintf(w, "  %s\n", r)
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
