package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/spf13/cobra"
)

type auditFlags struct {
	regFlags
	sign      signFlags
	tier      string
	recursive bool
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
(default: the tier the skill claims): experimental blocks critical findings;
community blocks critical and reviews high; verified blocks high and reviews
medium; anything unreadable is at least review.

Several directories, or with -r every directory holding a SKILL.md below
each ROOT, are audited in one process: each skill's findings and verdict,
then a summary line ("audited N skills: P pass, R review, B block, F
failed") and the blocked ones. With --output json the document is then
{"skills": [{"path", "report", "digest", "verdict"} or {"path", "error"}],
"summary": {…}}; the exit status is 5 when any blocks, 1 when any could not
be audited.

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
  skillpm audit --output json ./web-search
  skillpm audit ./skills/web-search ./skills/pdf
  skillpm audit -r ./skills --output json
  skillpm audit web-search@1.0.0
  skillpm audit ghcr.io/acme/skills/web-search@1.0.0 --sign --key auditor.key`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 && !f.recursive {
				return runAudit(c, g, &f, args[0])
			}
			switch f.tier {
			case "", skill.TierExperimental, skill.TierCommunity, skill.TierVerified:
			default:
				return usageErrorf(c, fmt.Errorf("--tier must be experimental, community or verified, not %q", f.tier))
			}
			var dirs []string
			for _, a := range args {
				if st, err := os.Stat(a); err != nil || !st.IsDir() {
					return usageErrorf(c, fmt.Errorf("%s is not a directory: several skills are audited from directories (audit a published REF on its own)", a))
				}
				if !f.recursive {
					dirs = append(dirs, a)
				}
			}
			for _, root := range args {
				if !f.recursive {
					break
				}
				found, err := skillDirsUnder(root)
				if err != nil {
					return withCode(exitFailure, fmt.Errorf("audit -r %s: %w", root, err))
				}
				if len(found) == 0 {
					return withCode(exitFailure, fmt.Errorf("audit -r %s: no directory below it holds a SKILL.md", root))
				}
				dirs = append(dirs, found...)
			}
			return runAuditMany(c, g, &f, dirs)
		},
	}
	c.Flags().BoolVarP(&f.recursive, "recursive", "r", false, "audit every skill (directory with a SKILL.md) found below each DIR")
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
	Attestation *attestedJSON `json:"attestation,omitempty"`
}

func runAudit(c *cobra.Command, g *globals, f *auditFlags, arg string) error {
	switch f.tier {
	case "", skill.TierExperimental, skill.TierCommunity, skill.TierVerified:
	default:
		return usageErrorf(c, fmt.Errorf("--tier must be experimental, community or verified, not %q", f.tier))
	}
	ctx := c.Context()
	dir := arg
	var src *auditSource
	if isAuditRef(arg) {
		var cleanup func()
		var err error
		src, cleanup, err = pullForAudit(c, g, f, arg)
		if err != nil {
			return err
		}
		defer cleanup()
		dir = src.dir
	} else if f.sign.wanted() {
		return withCode(exitUsage, fmt.Errorf("--sign attests a published version, and %s is a directory: publish it, then skillpm audit NAME@VERSION --sign --key K", arg))
	}
	rep, err := audit.Scan(ctx, dir, audit.Options{Tool: "skillpm " + skillpmVersion()})
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
	shown := arg
	var att *attestedJSON
	if src != nil {
		shown = src.shown
		if src.opts != nil {
			if att, err = attestAudit(ctx, src, rep, v); err != nil {
				return err
			}
		}
	}
	if g.json() {
		j := auditJSON{Report: rep, Digest: digest, Verdict: v, Attestation: att}
		if src != nil {
			j.Manifest = src.m.Descriptor.Digest.String()
		}
		if err := writeJSON(g.stdout, j); err != nil {
			return err
		}
	} else {
		printFindings(g.stderr, shown, rep.Findings, g.quiet)
		printVerdict(g.stdout, shown, rep, v, digest, g.quiet)
		if att != nil {
			printAttested(g.stdout, att)
		}
	}
	if v.Decision == audit.Block {
		name := rep.Skill
		if name == "" {
			name = shown
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
