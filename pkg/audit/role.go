package audit

import (
	"bytes"
	"path"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// A sentence's role decides whether it is an instruction. Every
// instruction rule (conceal, override, exfiltration, fetch-and-run,
// run-binary, and the others) shares this one notion of it; no rule keeps
// keyword exceptions of its own about it:
//
//   - framed away (instr.go, framedAway): the sentence's own words negate
//     the pattern, forbid it, warn about it, quote an attack as an example
//     or say that something detects it. Not a finding.
//   - listed: an item of a list introduced (by the paragraph before it or
//     the heading above it) as what to avoid, reject, detect or look for.
//   - described: text shown as an example (a code block, a code span, a
//     quotation) in a section whose headings say it describes attacks or
//     detection patterns ("# Prompt injection pattern library", "## Red
//     flags"). A plain paragraph there is read as written.
//     Listed and described text is one step less severe, never malicious,
//     and does not block by rule; quoted or shown in a code block as well,
//     two steps. The exception is a sentence in the imperative ("Download
//     … and run it") under such a lead-in for the rules malware's
//     directives break (fetch-and-run, run-binary, the malicious patterns):
//     it stays a directive, so that a "## Warning" heading is no cheaper
//     than honesty.
//   - in a table: a row of a Markdown table (API endpoints, options),
//     which is a reference, not a procedure. Treated as listed.
//   - quoted (markdown.go): in quotation marks or a block quote. One step
//     less severe, never malicious.
//   - in a document the agent does not load: a README, changelog, docs/,
//     tests or a nested skill that SKILL.md does not reference (notLoaded).
//     One step less severe and not
//     blocking by rule; a pattern only malware uses stays malicious there,
//     since a person reads a README too.
//   - documented (unicode.go): a line holding invisible or bidirectional
//     characters that names them ("U+202E", "zero-width spaces"). One step
//     less severe.

// describedCtx reports the roles that describe rather than direct: they
// never make a finding malicious and do not block by rule.
func describedCtx(ctx string) bool {
	return ctx == ctxListed || ctx == ctxDescribed || ctx == ctxTable || ctx == ctxDoc
}

// tableLines reports a paragraph whose lines all start with "|": a table
// (the parser reads tables as paragraphs).
func tableLines(lines *text.Segments, src []byte) bool {
	if lines.Len() < 2 {
		return false
	}
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if !bytes.HasPrefix(bytes.TrimLeft(seg.Value(src), " \t"), []byte("|")) {
			return false
		}
	}
	return true
}

// directive reports the contexts in which text is read as a directive:
// plain text, code blocks and inline code not described by their role.
func directive(ctx string) bool {
	return ctx == ctxPlain || ctx == ctxFence || ctx == ctxCode
}

// sentenceRole returns ctxListed, ctxTable or ctxDescribed when the match
// at pos in the unit's text (read in context ctx: plain, a code span, a
// quote, a code block) is described rather than directed, else ctxPlain.
// A section's heading makes an example of text shown as one (quoted, in
// code); a plain paragraph under it is still read as written.
func sentenceRole(u *unit, txt string, pos int, rule *instrRule, ctx string) string {
	role := ctxPlain
	switch {
	case u.listed:
		role = ctxListed
	case u.table:
		role = ctxTable
	case u.described && ctx != ctxPlain:
		role = ctxDescribed
	default:
		return ctxPlain
	}
	if (rule.malicious || rule.id == RuleInstrFetchExec || rule.id == RuleInstrRunBinary) && imperative(txt, pos) {
		return ctxPlain
	}
	return role
}

// imperative reports whether the sentence holding pos begins with a verb
// that directs the reader to fetch, paste, unpack or run something.
func imperative(txt string, pos int) bool {
	start := 0
	for _, sep := range []string{". ", "! ", "? ", ": ", "; ", "\n", "| "} {
		if i := strings.LastIndex(txt[:pos], sep); i >= 0 && i+len(sep) > start {
			start = i + len(sep)
		}
	}
	words := strings.FieldsFunc(strings.ToLower(txt[start:min(len(txt), pos+200)]), func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c == '-')
	})
	for i, w := range words {
		if i > 4 {
			return false
		}
		switch w {
		case "first", "then", "now", "please", "simply", "just", "next", "step", "and", "also",
			"for", "on", "windows", "macos", "mac", "linux", "users":
			continue // "First, download …", "Step 1: run …", "For Windows download …"
		case "download", "run", "paste", "copy", "open", "extract", "unzip", "unpack", "unrar", "execute",
			"install", "decode", "get", "grab", "fetch", "visit", "go", "launch", "double-click", "type", "enter",
			"save", "pipe", "source", "eval":
			return true
		}
		return false
	}
	return false
}

// sections tracks the headings above the block being read, by level, and
// whether any of them says the section describes attacks.
type sections struct {
	heads [7]bool
}

// enter records a heading of the given level (1 to 6).
func (s *sections) enter(level int, text string) {
	if level < 1 || level > 6 {
		return
	}
	s.heads[level] = describesAttacks(text)
	for l := level + 1; l < len(s.heads); l++ {
		s.heads[l] = false
	}
}

// describes reports whether a heading above says its section describes
// attacks or what to avoid.
func (s *sections) describes() bool {
	for _, d := range s.heads {
		if d {
			return true
		}
	}
	return false
}

// describesAttacks reports a heading that introduces descriptions of
// attacks, detection patterns or mistakes rather than steps. The words are
// stricter than a list's lead-in (descriptiveLead): a heading governs a
// whole section.
func describesAttacks(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"attack", "injection", "red flag", "warning sign", "detect", "indicator", "malicious",
		"suspicious", "threat", "pattern library", "patterns", "anti-pattern", "antipattern", "mistakes", "pitfalls",
		"examples of", "phishing", "scam", "exfiltration", "what not to", "evasion", "adversarial", "hostile"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

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

// exampleLine is a line of a file shown as an example.
type exampleLine struct {
	file string
	line int
}

// markExample records a line of a code block or quotation in a section
// that describes attacks.
func (r *run) markExample(file string, line int) {
	if r.examples == nil {
		r.examples = map[exampleLine]bool{}
	}
	r.examples[exampleLine{file, line}] = true
}

// weighExamples lowers once more the documented invisible characters
// (unicode.go) that sit in an example of a section describing attacks:
// the line names them and the section shows them as a pattern to detect,
// two signs. The Unicode scan runs before the Markdown one, so this is
// done when the report is assembled.
func (r *run) weighExamples() {
	for i := range r.findings {
		f := &r.findings[i]
		if f.Context == ctxDocumented && r.examples[exampleLine{f.File, f.Line}] {
			f.Severity = f.Severity.lower()
			f.Context = ctxDescribed
			f.Message += " (" + contextWords(ctxDescribed) + ")"
		}
	}
}
