package audit

import (
	"bytes"
	"encoding/base64"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"gopkg.in/yaml.v3"
)

// Where instruction text sits. Text a skill quotes (code blocks, code
// spans, block quotes, quotation marks) is usually documentation, so its
// findings are one step less severe; it is never skipped, since a model
// reads a fenced directive as readily as any other.
const (
	ctxPlain = ""
	ctxFence = "fence"
	ctxCode  = "code"
	ctxQuote = "quote"
	// ctxListed is a list item under words that describe rather than
	// direct ("common mistakes:", "red flags", "the scanner rejects:").
	ctxListed = "listed"
	// ctxDescribed is text in a section whose headings say it describes
	// attacks or what to avoid ("## Prompt injection patterns", "##
	// Red flags"): a pattern library, not a procedure.
	ctxDescribed = "described"
	// ctxTable is a row of a table: a reference (endpoints, options,
	// mappings), not a procedure.
	ctxTable = "table"
	// ctxDoc is text in a file the agent does not load as instructions:
	// a README or other document SKILL.md does not reference.
	ctxDoc = "doc"
	// ctxDocumented is a line that names what it shows (an invisible
	// character with its code point): a detection pattern or an example.
	ctxDocumented = "documented"
)

// unit is a stretch of instruction text matched as one: a paragraph, a
// heading, a code block, an HTML block. text is normalized for matching;
// src maps each byte of text back to its offset in the file (int32: files
// are read up to a few MiB, and this map is the largest thing the
// instruction scan allocates).
type unit struct {
	text []byte
	src  []int32
	ctx  string
	html bool
	// listed is set for list items a descriptive lead-in introduces,
	// described for any block in a section that describes attacks
	// (role.go).
	listed, described, table bool
}

// appendSrc adds src[start:stop] to the unit, dropping Markdown emphasis
// and code markers and collapsing white space, so "**ignore** previous
// instructions" reads as the model would understand it.
func (u *unit) appendSrc(src []byte, start, stop int, keepNewlines bool) {
	stop = min(stop, len(src))
	if n := stop - start; n > 0 {
		// Room for the whole segment at once, rather than a few
		// doublings of both slices per line.
		u.text = slices.Grow(u.text, n)
		u.src = slices.Grow(u.src, n)
	}
	for i := start; i < stop; i++ {
		c := src[i]
		switch c {
		case '*':
			continue
		case '`':
			c = ' ' // a code span's edge separates words
		case '~':
			// ~~strike~~ markers go; a lone ~ is a home directory.
			if i+1 < len(src) && src[i+1] == '~' || i > 0 && src[i-1] == '~' {
				continue
			}
		case '_':
			prevWord := i > 0 && isWordByte(src[i-1])
			nextWord := i+1 < len(src) && isWordByte(src[i+1])
			if !(prevWord && nextWord) {
				continue
			}
		case '\r':
			continue
		case '\n':
			if keepNewlines {
				u.text = append(u.text, '\n')
				u.src = append(u.src, int32(i))
				continue
			}
			c = ' '
		case '\t':
			c = ' '
		}
		if c == ' ' && (len(u.text) == 0 || u.text[len(u.text)-1] == ' ' || u.text[len(u.text)-1] == '\n') {
			continue
		}
		u.text = append(u.text, c)
		u.src = append(u.src, int32(i))
	}
}

func (u *unit) space(at int) {
	if len(u.text) > 0 && u.text[len(u.text)-1] != ' ' && u.text[len(u.text)-1] != '\n' {
		u.text = append(u.text, ' ')
		u.src = append(u.src, int32(at))
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// lineIndex maps byte offsets of a file to 1-based lines and columns.
type lineIndex struct {
	starts []int
	// offset is added to every line: the line of the file where the
	// scanned bytes begin, minus one.
	offset int
}

func newLineIndex(b []byte, firstLine int) lineIndex {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return lineIndex{starts: starts, offset: firstLine - 1}
}

func (li lineIndex) pos(off int) (line, col int) {
	i := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1 + li.offset, off - li.starts[i] + 1
}

// scanSkillFile audits SKILL.md: the description (hosts put it in every
// prompt) and the body. When the frontmatter did not parse, the whole file
// is read as Markdown.
func (r *run) scanSkillFile(rel string, data []byte) {
	if r.sk == nil || rel != r.skillFile {
		r.analyzeFences(rel, r.scanMarkdown(rel, data, 1))
		return
	}
	if d := r.sk.Description; d != "" {
		line := descriptionLine(r.sk.Node)
		u := &unit{}
		for i := 0; i < len(d); i++ {
			c := d[i]
			if c == '\n' || c == '\t' || c == '\r' {
				c = ' '
			}
			u.text = append(u.text, c)
			u.src = append(u.src, 0)
		}
		r.matchUnit(rel, u, func(int) (int, int) { return line, 0 }, nil)
	}
	body := []byte(r.sk.Body)
	first := r.sk.BodyLine
	if first < 1 {
		first = 1
	}
	fences := r.scanMarkdown(rel, body, first)
	r.analyzeFences(rel, fences)
	r.frontmatterCommands(rel, r.sk.Node)
}

// descriptionLine finds the line of the description's value.
func descriptionLine(n *yaml.Node) int {
	if n == nil {
		return 1
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "description" {
			return n.Content[i+1].Line
		}
	}
	return 1
}

// scanMarkdown matches the instruction rules against every block of a
// Markdown document, parsed with goldmark so that fences, indented code,
// block quotes, code spans and HTML are known for what they are. It
// returns the fenced code blocks, for the code analyses.
//
// A document whose parse would cost more than the skill's analysis
// budget has left (markdownCost) is read as plain text instead: its
// instructions are still matched, its code blocks are not analysed, and
// the budget finding says the analysis is incomplete.
func (r *run) scanMarkdown(rel string, src []byte, firstLine int) []fence {
	if !r.spend(markdownCost(src) / mdOpsPerStep) {
		r.scanPlainText(rel, src, firstLine)
		return nil
	}
	li := newLineIndex(src, firstLine)
	doc := r.s.md.Parse(text.NewReader(src))
	covered := make([]bool, len(li.starts)+1)
	markLines := func(start, stop int) {
		l1, _ := li.pos(start)
		l2, _ := li.pos(max(start, stop-1))
		for l := l1 - li.offset; l <= l2-li.offset && l < len(covered); l++ {
			covered[l] = true
		}
	}
	var codeSpans [][2]int
	var units []*unit
	var fences []fence
	lists := map[ast.Node]bool{}
	var sec sections
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if h, ok := n.(*ast.Heading); ok {
			sec.enter(h.Level, blockText(h, src))
		}
		if n.Kind() == ast.KindCodeSpan {
			start, stop := -1, -1
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					if start < 0 {
						start = t.Segment.Start
					}
					stop = t.Segment.Stop
				}
			}
			if start >= 0 {
				codeSpans = append(codeSpans, [2]int{start, stop})
			}
			return ast.WalkSkipChildren, nil
		}
		if n.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		lines := n.Lines()
		if lines == nil || lines.Len() == 0 {
			return ast.WalkContinue, nil
		}
		u := &unit{ctx: ctxPlain}
		code := false
		switch n.Kind() {
		case ast.KindFencedCodeBlock, ast.KindCodeBlock:
			u.ctx, code = ctxFence, true
		case ast.KindHTMLBlock:
			u.html = true
		}
		if u.ctx == ctxPlain && insideBlockquote(n) {
			u.ctx = ctxQuote
		}
		u.listed = u.ctx == ctxPlain && listedRole(n, src, lists)
		u.described = n.Kind() != ast.KindHeading && sec.describes()
		u.table = u.ctx == ctxPlain && n.Kind() == ast.KindParagraph && tableLines(lines, src)
		if u.described && u.ctx != ctxPlain {
			for i := 0; i < lines.Len(); i++ {
				l, _ := li.pos(lines.At(i).Start)
				r.markExample(rel, l)
			}
		}
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			if !code {
				u.space(seg.Start)
			}
			u.appendSrc(src, seg.Start, seg.Stop, code)
			markLines(seg.Start, seg.Stop)
		}
		if hb, ok := n.(*ast.HTMLBlock); ok && hb.HasClosure() {
			u.space(hb.ClosureLine.Start)
			u.appendSrc(src, hb.ClosureLine.Start, hb.ClosureLine.Stop, false)
			markLines(hb.ClosureLine.Start, hb.ClosureLine.Stop)
		}
		if fc, ok := n.(*ast.FencedCodeBlock); ok {
			info := ""
			if fc.Info != nil {
				// The info string ("```bash curl … | sh") is read too.
				markLines(fc.Info.Segment.Start, fc.Info.Segment.Stop)
				seg := fc.Info.Segment
				info = string(seg.Value(src))
			}
			var code strings.Builder
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				code.Write(seg.Value(src))
			}
			line, _ := li.pos(lines.At(0).Start)
			fences = append(fences, fence{lang: info, code: code.String(), line: line, described: u.described})
		}
		units = append(units, u)
		return ast.WalkContinue, nil
	})
	// Lines no block claimed (link reference definitions with titles,
	// fence markers and info strings, thematic breaks): read as plain text.
	for l := 1; l < len(covered) && l <= len(li.starts); l++ {
		if covered[l] {
			continue
		}
		start := li.starts[l-1]
		stop := len(src)
		if l < len(li.starts) {
			stop = li.starts[l]
		}
		if len(bytes.TrimSpace(src[start:stop])) == 0 {
			continue
		}
		u := &unit{ctx: ctxPlain}
		u.appendSrc(src, start, stop, false)
		units = append(units, u)
	}
	pos := func(off int) (int, int) { return li.pos(off) }
	for _, u := range units {
		r.matchUnit(rel, u, pos, codeSpans)
	}
	return fences
}

func insideBlockquote(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindBlockquote {
			return true
		}
	}
	return false
}

// scanPlainText reads a text file as paragraphs separated by blank lines.
func (r *run) scanPlainText(rel string, src []byte, firstLine int) {
	li := newLineIndex(src, firstLine)
	u := &unit{}
	flush := func() {
		if len(u.text) > 0 {
			r.matchUnit(rel, u, li.pos, nil)
		}
		u = &unit{}
	}
	for l, start := range li.starts {
		stop := len(src)
		if l+1 < len(li.starts) {
			stop = li.starts[l+1]
		}
		if len(bytes.TrimSpace(src[start:stop])) == 0 {
			flush()
			continue
		}
		u.space(start)
		u.appendSrc(src, start, stop, false)
	}
	flush()
}

// matchUnit runs every instruction rule over a unit and records findings,
// at most one per rule and line.
func (r *run) matchUnit(rel string, u *unit, pos func(int) (int, int), codeSpans [][2]int) {
	if len(u.text) == 0 {
		return
	}
	txt := string(u.text)
	var quotes [][2]int
	quoted := false
	done := map[string]bool{}
	for _, im := range r.s.matchInstr(txt) {
		rule := &r.s.instr[im.rule]
		m := im.span[:]
		off := int(u.src[m[0]])
		line, col := pos(off)
		key := rule.id + "\x00" + strconv.Itoa(line)
		if done[key] {
			continue
		}
		done[key] = true
		ctx := u.ctx
		if ctx == ctxPlain {
			if !quoted {
				// Only texts with a match need their quotations.
				quotes, quoted = quoteSpans(txt), true
			}
			switch {
			case inSpans(codeSpans, off):
				ctx = ctxCode
			case inSpans(quotes, m[0]):
				ctx = ctxQuote
			}
		}
		role := sentenceRole(u, txt, m[0], rule, ctx)
		f := Finding{Rule: rule.id, File: rel, Line: line, Column: col,
			Message: rule.what, Evidence: excerpt(txt, m[0], m[1])}
		if u.html && strings.Contains(txt, "<!--") {
			f.Message += " (inside an HTML comment, invisible when rendered)"
		}
		f.Severity = r.s.rules[rule.id].Severity
		if ctx != ctxPlain {
			f.Severity = f.Severity.lower()
			f.Context = ctx
			f.Downgraded = true
			f.Message += " (" + contextWords(ctx) + ")"
		}
		if role != ctxPlain {
			// Described rather than directed (role.go). Quoted as well
			// (an attack quoted as an example in a list of what to
			// detect, a pattern shown in a code block of a pattern
			// library): two signs, two steps.
			if ctx != ctxPlain && ctx != ctxCode {
				f.Severity = f.Severity.lower()
			}
			if ctx != ctxQuote {
				f.Context = role
			}
			if !f.Downgraded {
				f.Severity = f.Severity.lower()
				f.Downgraded = true
			}
			f.Message += " (" + contextWords(role) + ")"
		}
		f.Malicious = rule.malicious && directive(f.Context)
		r.add(f)
	}
	r.matchEncoded(rel, u, txt, pos, done)
}

func contextWords(ctx string) string {
	switch ctx {
	case ctxFence:
		return "in a code block"
	case ctxCode:
		return "in inline code"
	case ctxQuote:
		return "quoted"
	case ctxListed:
		return "in a list of what to avoid or detect"
	case ctxDescribed:
		return "in a section that describes attacks or what to avoid"
	case ctxTable:
		return "in a table"
	}
	return ""
}

// matchEncoded decodes base64 runs in instruction text and reports those
// that decode to a directive another rule recognizes. Encoding a directive
// only hides it from people, so these are never downgraded.
func (r *run) matchEncoded(rel string, u *unit, txt string, pos func(int) (int, int), done map[string]bool) {
	for _, m := range base64Runs(txt, 24) {
		dec, ok := decodeBase64(txt[m[0]:m[1]])
		if !ok || len(dec) < 12 || !printable(dec) {
			continue
		}
		s := string(dec)
		for _, im := range r.s.matchInstr(s) {
			rule := &r.s.instr[im.rule]
			line, col := pos(int(u.src[m[0]]))
			key := "decoded\x00" + strconv.Itoa(line)
			if done[key] {
				break
			}
			done[key] = true
			r.add(Finding{Rule: RuleInstrEncoded, File: rel, Line: line, Column: col,
				Message:  "base64 text decodes to a hidden directive: " + rule.what + " (" + rule.id + ")",
				Evidence: "decodes to: " + s})
			break
		}
	}
}

// instrMatch is one match of an instruction rule: the rule's index in
// Scanner.instr and the byte span in the text.
type instrMatch struct {
	rule int
	span [2]int
}

// matchInstr runs the instruction rules over text sentence by sentence:
// a directive is a sentence, and keyword prefilters on sentences keep the
// patterns from running over long documents.
func (s *Scanner) matchInstr(text string) []instrMatch {
	// The keywords are found once in the whole text. A rule whose keywords
	// are not all in the text cannot run in any of its sentences, and most
	// texts leave no rule to run; the others learn each sentence's
	// keywords from the occurrences that lie inside it, which is what
	// scanning the sentence itself would find.
	occ := s.kw.hits(text, nil)
	hit := make([]bool, s.kw.n)
	for _, o := range occ {
		hit[o.id] = true
	}
	var cand []int
	for i := range s.instr {
		if needsIDs(hit, s.instr[i].needIDs) {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return nil
	}
	clear(hit)
	var out []instrMatch
	next := 0
	for _, sp := range sentences(text) {
		sent := text[sp[0]:sp[1]]
		from := next
		for next < len(occ) && int(occ[next].end) <= sp[1] {
			next++
		}
		for _, o := range occ[from:next] {
			if int(o.end-s.kw.lens[o.id]) >= sp[0] {
				hit[o.id] = true
			}
		}
		for _, i := range cand {
			rule := &s.instr[i]
			if !needsIDs(hit, rule.needIDs) {
				continue
			}
			for _, m := range rule.find(sent) {
				abs := []int{m[0] + sp[0], m[1] + sp[0]}
				if rule.reject != nil && rule.reject(text, abs) {
					continue
				}
				out = append(out, instrMatch{rule: i, span: [2]int{abs[0], abs[1]}})
			}
		}
		for _, o := range occ[from:next] {
			hit[o.id] = false
		}
	}
	return out
}

// needsIDs reports whether every keyword group has a hit.
func needsIDs(hit []bool, groups [][]int32) bool {
	for _, g := range groups {
		ok := false
		for _, id := range g {
			if hit[id] {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// sentences splits text after ".", "!" or "?" followed by white space,
// and at line breaks (kept only inside code blocks). URLs and file names
// keep their dots.
func sentences(text string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := -1
		switch {
		case c == '\n':
			end = i
		case (c == '.' || c == '!' || c == '?') && i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\n'):
			end = i + 1
		}
		if end >= 0 {
			if end > start {
				out = append(out, [2]int{start, end})
			}
			start = i + 1
		}
	}
	if start < len(text) {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// base64Runs finds runs of base64 characters at least n long that mix
// letters and digits or symbols the way encoded data does.
func base64Runs(s string, n int) [][2]int {
	var out [][2]int
	start := -1
	flush := func(end int) {
		if start >= 0 && end-start >= n && looksEncoded(s[start:end]) {
			out = append(out, [2]int{start, end})
		}
		start = -1
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c == '=' {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	return out
}

// looksEncoded rejects words, paths and identifiers: encoded data has
// upper and lower case letters and no long runs of one class.
func looksEncoded(s string) bool {
	var upper, lower, digit int
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		case c >= '0' && c <= '9':
			digit++
		}
	}
	return upper > 0 && lower > 0 && upper+lower+digit >= len(s)*3/4
}

// decodeBase64 tries the standard and URL alphabets, padded or not.
func decodeBase64(s string) ([]byte, bool) {
	s = strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	// A run may end with a stray character: try the longest prefix that
	// is a whole number of quads.
	if n := len(s) / 4 * 4; n >= 16 && n < len(s) {
		if b, err := base64.RawStdEncoding.DecodeString(s[:n]); err == nil {
			return b, true
		}
	}
	return nil, false
}

// quoteSpans finds text between quotation marks: straight double quotes
// pair up in order; curly quotes open and close.
func quoteSpans(s string) [][2]int {
	var out [][2]int
	open := -1
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			if open < 0 {
				open = i
			} else {
				out = append(out, [2]int{open, i + 1})
				open = -1
			}
		case strings.HasPrefix(s[i:], "“"):
			open = i
		case strings.HasPrefix(s[i:], "”"):
			if open >= 0 {
				out = append(out, [2]int{open, i + len("”")})
				open = -1
			}
		}
	}
	return out
}

func inSpans(spans [][2]int, off int) bool {
	for _, s := range spans {
		if off >= s[0] && off < s[1] {
			return true
		}
	}
	return false
}

// excerpt quotes a match with some text around it.
func excerpt(s string, start, end int) string {
	const around = 40
	a, b := start-around, end+around
	prefix, suffix := "…", "…"
	if a <= 0 {
		a, prefix = 0, ""
	}
	if b >= len(s) {
		b, suffix = len(s), ""
	}
	for a > 0 && a < len(s) && s[a]&0xC0 == 0x80 {
		a--
	}
	for b < len(s) && s[b]&0xC0 == 0x80 {
		b++
	}
	return prefix + strings.TrimSpace(s[a:b]) + suffix
}
