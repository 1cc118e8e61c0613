package audit

import (
	"path"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// A sentence's role decides whether it is an instruction. Every
// instruction rule shares the same notion of it, so no rule keeps its own
// keyword exceptions:
//
//   - framed away (instr.go, framedAway): the sentence's own words negate
//     the pattern, forbid it, warn about it, quote an attack as an example
//     or say that something detects it. Not a finding.
//   - listed: an item of a list introduced (by the paragraph before it or
//     the heading above it) as what to avoid, reject, detect or look for.
//     One step less severe, never malicious, and not blocking by rule.
//   - quoted (markdown.go): in quotation marks or a block quote. One step
//     less severe, never malicious.
//   - in a document the agent does not load: a README, changelog, docs/,
//     tests or a nested skill that SKILL.md does not reference (notLoaded).
//     One step less severe and not
//     blocking by rule; a pattern only malware uses stays malicious there,
//     since a person reads a README too.

// descriptiveLead reports words that introduce a list of things described
// rather than directed: mistakes, red flags, what a scanner rejects.
func descriptiveLead(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"mistake", "anti-pattern", "antipattern", "pitfall", "red flag", "warning sign",
		"avoid", "don't", "do not", "never", "forbidden", "prohibited", "not allowed", "reject", "blocked",
		"blocks", "detect", "pattern", "indicator", "look for", "checklist", "check for", "examples of",
		"attack", "threat", "malicious", "suspicious", "risk", "wrong", "vulnerab", "unsafe", "dangerous",
		"warning", "common issues", "what not", "flags", "catches", "scans for", "deny", "denied", "refuse"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// blockText is the raw text of a block node's lines.
func blockText(n ast.Node, src []byte) string {
	var b strings.Builder
	if ls := n.Lines(); ls != nil {
		for i := 0; i < ls.Len() && b.Len() < 400; i++ {
			seg := ls.At(i)
			b.Write(seg.Value(src))
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// listedRole reports whether n sits in a list that a descriptive lead-in
// introduces: the paragraph just before the list (or before the item's
// parent paragraph in a nested list), or the nearest heading above it.
// memo keeps one answer per list.
func listedRole(n ast.Node, src []byte, memo map[ast.Node]bool) bool {
	var list ast.Node
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindList {
			list = p
		}
	}
	if list == nil {
		return false
	}
	if v, ok := memo[list]; ok {
		return v
	}
	v := false
	if prev := list.PreviousSibling(); prev != nil && (prev.Kind() == ast.KindParagraph || prev.Kind() == ast.KindHeading) {
		v = descriptiveLead(blockText(prev, src))
	}
	if !v {
		// The nearest heading above the list, among the document's
		// top-level blocks.
		top := list
		for top.Parent() != nil && top.Parent().Kind() != ast.KindDocument {
			top = top.Parent()
		}
		for p := top.PreviousSibling(); p != nil; p = p.PreviousSibling() {
			if p.Kind() == ast.KindHeading {
				v = descriptiveLead(blockText(p, src))
				break
			}
		}
	}
	memo[list] = v
	return v
}

// notLoaded reports whether the agent does not load the instruction file
// rel as instructions, unless SKILL.md names its path or file name: a
// README, changelog or other project document, anything under docs/,
// tests or examples, and the files of another skill nested inside this
// one. Other Markdown and text (references/, steps/, any file at the
// root) counts in full: the agent may be sent to it.
func (r *run) notLoaded(rel string) bool {
	if r.sk == nil || rel == r.skillFile {
		return false
	}
	switch strings.ToLower(path.Ext(rel)) {
	case ".md", ".markdown", ".mdx", ".mdown", ".mkd", ".txt", ".rst", ".text":
	default:
		return false
	}
	doc := false
	base := strings.ToLower(path.Base(rel))
	for _, p := range []string{"readme", "changelog", "changes", "contributing", "history", "code_of_conduct",
		"security", "authors", "todo", "launch", "release"} {
		if strings.HasPrefix(base, p) {
			doc = true
		}
	}
	for d := path.Dir(rel); d != "." && !doc; d = path.Dir(d) {
		switch strings.ToLower(path.Base(d)) {
		case "docs", "doc", ".github", "test", "tests", "test-fixtures", "fixtures", "testdata", "examples":
			doc = true
		}
		if r.paths[d+"/SKILL.md"] || r.paths[d+"/skill.md"] {
			doc = true // another skill's instructions
		}
	}
	if !doc {
		return false
	}
	body := r.sk.Body
	return !strings.Contains(body, rel) && !strings.Contains(body, path.Base(rel))
}

// weighDoc lowers an instruction finding in a file the agent does not
// load, once (a finding already lowered for its context is not lowered
// again), and marks it so that it does not block by rule.
func (r *run) weighDoc(f *Finding, rule Rule) {
	if f.Rule == RuleInstrEncoded || !(rule.Category == CategoryInstructions || r.fenceFile == f.File) {
		return
	}
	if !r.notLoaded(f.File) {
		return
	}
	if !f.Downgraded {
		f.Severity = f.Severity.lower()
		f.Downgraded = true
	}
	f.Context = ctxDoc
	f.Message += " (in a document SKILL.md does not reference)"
}
