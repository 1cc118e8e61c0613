package main

import (
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/errdef"
)

// auditManyJSON is the --output json document when several skills are
// audited: one entry per skill, in the order given, and the counts.
type auditManyJSON struct {
	Skills  []auditEntryJSON `json:"skills"`
	Summary audit.Summary    `json:"summary"`
}

// auditEntryJSON is one audited skill: its report, digest and verdict, or
// the error that stopped it from being audited.
type auditEntryJSON struct {
	Path    string         `json:"path"`
	Report  *audit.Report  `json:"report,omitempty"`
	Digest  string         `json:"digest,omitempty"`
	Verdict *audit.Verdict `json:"verdict,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// printAuditMany renders the audits of several skills: each one's
// findings and verdict (or why it could not be audited), then a summary.
// Exit status: 5 when any skill blocks, 1 when any could not be audited.
func printAuditMany(g *globals, res *engine.AuditResult) error {
	out := auditManyJSON{Skills: []auditEntryJSON{}, Summary: audit.NewSummary()}
	for _, s := range res.Skills {
		out.Summary.Add(s.Path, s.Verdict, s.Err != nil)
		e := auditEntryJSON{Path: s.Path}
		switch {
		case s.Err != nil:
			e.Error = s.Err.Error()
			if !g.json() {
				fmt.Fprintf(g.stderr, "skillpm: %s\n", termLines(s.Err.Error()))
			}
		default:
			digest, err := s.Report.Digest()
			if err != nil {
				return err
			}
			e.Report, e.Digest, e.Verdict = s.Report, digest, &s.Verdict
			if !g.json() {
				printFindings(g.stderr, s.Path, s.Report.Findings, g.quiet)
				printVerdict(g.stdout, s.Path, s.Report, s.Verdict, digest, g.quiet)
			}
		}
		out.Skills = append(out.Skills, e)
	}
	if g.json() {
		if err := g.writeJSON(out); err != nil {
			return err
		}
	} else {
		sm := out.Summary
		fmt.Fprintf(g.stdout, "audited %s: %d pass, %d review, %d block, %d failed\n", plural(sm.Skills, "skill"), sm.Pass, sm.Review, sm.Block, sm.Failed)
		for _, b := range sm.Blocks {
			fmt.Fprintf(g.stdout, "  blocked: %s\n", termText(b))
		}
	}
	switch {
	case out.Summary.Block > 0:
		return classed(errdef.Trust, fmt.Errorf("audit blocks %d of %s", out.Summary.Block, plural(out.Summary.Skills, "skill")))
	case out.Summary.Failed > 0:
		return classed(errdef.Internal, fmt.Errorf("%d of %s could not be audited", out.Summary.Failed, plural(out.Summary.Skills, "skill")))
	}
	return nil
}
