package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/spf13/cobra"
)

// auditManyJSON is the --output json document when several skills are
// audited: one entry per skill, in the order given, and the counts.
type auditManyJSON struct {
	Skills  []auditEntryJSON `json:"skills"`
	Summary auditSummary     `json:"summary"`
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

// auditSummary counts the verdicts of a multi-skill audit.
type auditSummary struct {
	Skills int      `json:"skills"`
	Pass   int      `json:"pass"`
	Review int      `json:"review"`
	Block  int      `json:"block"`
	Failed int      `json:"failed"`
	Blocks []string `json:"blocked"`
}

// skillDirsUnder lists every directory below root (root included) that
// holds a SKILL.md, skipping VCS and dependency folders.
func skillDirsUnder(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		switch d.Name() {
		case ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv":
			if p != root {
				return fs.SkipDir
			}
		}
		for _, name := range []string{skill.SkillFile, "skill.md"} {
			if st, err := os.Stat(filepath.Join(p, name)); err == nil && st.Mode().IsRegular() {
				dirs = append(dirs, p)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	return dirs, nil
}

// runAuditMany audits several skill directories with one Scanner and
// prints each one's findings and verdict, then a summary. Exit status: 5
// when any skill blocks, 1 when any could not be audited, else 0.
func runAuditMany(c *cobra.Command, g *globals, f *auditFlags, dirs []string) error {
	if f.sign.wanted() {
		return withCode(exitUsage, errors.New("--sign attests one published version; audit several skills without it"))
	}
	s, err := audit.New(audit.Options{Tool: "skillpm " + skillpmVersion()})
	if err != nil {
		return withCode(exitFailure, err)
	}
	ctx := c.Context()
	var out auditManyJSON
	out.Skills = []auditEntryJSON{}
	out.Summary.Blocks = []string{}
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return withCode(exitFailure, err)
		}
		e := auditEntryJSON{Path: dir}
		out.Summary.Skills++
		rep, err := s.Scan(ctx, dir)
		if err != nil {
			e.Error = err.Error()
			out.Summary.Failed++
			out.Skills = append(out.Skills, e)
			if !g.json() {
				fmt.Fprintf(g.stderr, "skillpm: %v\n", err)
			}
			continue
		}
		v, err := rep.Verdict(f.tier)
		if err != nil {
			return withCode(exitUsage, err)
		}
		digest, err := rep.Digest()
		if err != nil {
			return err
		}
		e.Report, e.Digest, e.Verdict = rep, digest, &v
		out.Skills = append(out.Skills, e)
		switch v.Decision {
		case audit.Pass:
			out.Summary.Pass++
		case audit.Review:
			out.Summary.Review++
		case audit.Block:
			out.Summary.Block++
			out.Summary.Blocks = append(out.Summary.Blocks, dir)
		}
		if !g.json() {
			printFindings(g.stderr, dir, rep.Findings, g.quiet)
			printVerdict(g.stdout, dir, rep, v, digest, g.quiet)
		}
	}
	if g.json() {
		if err := writeJSON(g.stdout, out); err != nil {
			return err
		}
	} else {
		sm := out.Summary
		fmt.Fprintf(g.stdout, "audited %s: %d pass, %d review, %d block, %d failed\n", plural(sm.Skills, "skill"), sm.Pass, sm.Review, sm.Block, sm.Failed)
		for _, b := range sm.Blocks {
			fmt.Fprintf(g.stdout, "  blocked: %s\n", b)
		}
	}
	switch {
	case out.Summary.Block > 0:
		return withCode(exitTrust, fmt.Errorf("audit blocks %d of %s", out.Summary.Block, plural(out.Summary.Skills, "skill")))
	case out.Summary.Failed > 0:
		return withCode(exitFailure, fmt.Errorf("%d of %s could not be audited", out.Summary.Failed, plural(out.Summary.Skills, "skill")))
	}
	return nil
}
