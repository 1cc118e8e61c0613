package audit

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxEvidence bounds the evidence quoted in a finding, in runes.
const maxEvidence = 200

// invisible reports runes that render as nothing, or change how the text
// around them renders, whatever their context: they are escaped in every
// piece of evidence the report quotes.
func invisible(c rune) bool {
	switch {
	case c == '\t':
		return false
	case unicode.IsControl(c), unicode.Is(unicode.Cf, c):
		return true
	case c >= 0xFE00 && c <= 0xFE0F, c >= 0xE0100 && c <= 0xE01EF: // variation selectors
		return true
	case c == 0x115F, c == 0x1160, c == 0x3164, c == 0xFFA0, c == 0x17B4, c == 0x17B5, c == 0x034F,
		c == 0x2028, c == 0x2029, c == utf8.RuneError:
		return true
	}
	return false
}

// escapeText makes text safe to print: invisible and control characters
// become <U+XXXX>, invalid bytes <0xNN>, and line breaks a space.
func escapeText(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "<0x%02X>", s[i])
		case c == '\n' || c == '\r':
			b.WriteByte(' ')
		case c == '\t':
			b.WriteByte(' ')
		case invisible(c):
			fmt.Fprintf(&b, "<U+%04X>", c)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return string(rs[:n-1]) + "…"
}

// hiddenClass says why a rune is reported.
type hiddenClass int

const (
	notHidden hiddenClass = iota
	classBidi
	classHidden
	classTag
	classSelector
	classControl
)

func isBidiControl(c rune) bool {
	return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069)
}

func isBidiMark(c rune) bool { return c == 0x200E || c == 0x200F || c == 0x061C }

func isVariationSelector(c rune) bool {
	return (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0100 && c <= 0xE01EF)
}

func isTag(c rune) bool { return c >= 0xE0000 && c <= 0xE007F }

// isEmojiLike covers pictographs and the pieces of emoji sequences, where a
// zero-width joiner glues emoji together (👨‍💻).
func isEmojiLike(c rune) bool {
	return (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0x2190 && c <= 0x21FF) || (c >= 0x2300 && c <= 0x23FF) ||
		(c >= 0x2460 && c <= 0x27BF) || (c >= 0x2900 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F) ||
		c == 0x00A9 || c == 0x00AE || c == 0x203C || c == 0x2049 || c == 0x2122 || c == 0x2139 ||
		c == 0x3297 || c == 0x3299 || c == 0x20E3 || c == 0xFE0F || (c >= 0xE0020 && c <= 0xE007F)
}

// isJoiningScript covers letters and marks outside ASCII, where zero-width
// (non-)joiners shape Arabic, Persian and Indic text.
func isJoiningScript(c rune) bool {
	return c > 0x7F && (unicode.IsLetter(c) || unicode.IsMark(c))
}

func isCJK(c rune) bool {
	return (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) ||
		(c >= 0x20000 && c <= 0x3FFFF)
}

// classifyRune decides whether rs[i] is reported. Context matters only for
// the characters that have honest uses: joiners inside emoji or joining
// scripts, direction marks inside right-to-left text, a variation selector
// after an emoji or ideograph, tag characters spelling a flag after 🏴.
func classifyRune(rs []rune, i int, instructions bool) hiddenClass {
	c := rs[i]
	if c < 0x80 {
		if instructions && c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' || instructions && c == 0x7F {
			return classControl
		}
		return notHidden
	}
	prev, next := rune(0), rune(0)
	if i > 0 {
		prev = rs[i-1]
	}
	if i+1 < len(rs) {
		next = rs[i+1]
	}
	switch {
	case isBidiControl(c):
		return classBidi
	case isBidiMark(c):
		// Direction marks (U+200E, U+200F, U+061C) only set the direction
		// of neutral characters around them; they cannot reorder text, and
		// style guides and localized text use them honestly anywhere.
		return notHidden
	case c == 0x200D:
		if (isEmojiLike(prev) || prev == 0xFE0F || (prev >= 0x1F3FB && prev <= 0x1F3FF)) && isEmojiLike(next) {
			return notHidden
		}
		if isJoiningScript(prev) && isJoiningScript(next) {
			return notHidden
		}
		return classHidden
	case c == 0x200C:
		if isJoiningScript(prev) && isJoiningScript(next) {
			return notHidden
		}
		return classHidden
	case c == 0xFEFF:
		if i == 0 {
			return notHidden // a byte order mark
		}
		return classHidden
	case isTag(c):
		if flagTagSequence(rs, i) {
			return notHidden
		}
		return classTag
	case isVariationSelector(c):
		if isVariationSelector(prev) || isVariationSelector(next) {
			return classSelector // a run of selectors carries bytes, not a glyph choice
		}
		if c <= 0xFE0F || isCJK(prev) {
			return notHidden
		}
		return classSelector
	case c == 0x200B, c >= 0x2060 && c <= 0x2064, c == 0x180E, c == 0x00AD, c == 0x034F,
		c == 0x115F, c == 0x1160, c == 0x3164, c == 0xFFA0, c == 0x17B4, c == 0x17B5,
		c >= 0xFFF9 && c <= 0xFFFB, c >= 0x1D173 && c <= 0x1D17A, c == 0x2028, c == 0x2029:
		return classHidden
	case c >= 0x80 && c <= 0x9F:
		// Text decoded twice (UTF-8 read as Latin-1: "â\u0094\u009c" for
		// "├") shows C1 controls after a Latin-1 letter: garbled, not hidden.
		if instructions && !(prev >= 0xC0 && prev <= 0xFF || prev >= 0x80 && prev <= 0x9F) {
			return classControl
		}
	}
	return notHidden
}

// flagTagSequence reports whether the tag character at i belongs to an
// emoji subdivision flag: U+1F3F4, then lowercase letters or digits as tags,
// then U+E007F CANCEL TAG.
func flagTagSequence(rs []rune, i int) bool {
	start := i
	for start > 0 && isTag(rs[start-1]) {
		start--
	}
	if start == 0 || rs[start-1] != 0x1F3F4 {
		return false
	}
	n := 0
	for j := start; j < len(rs) && isTag(rs[j]); j++ {
		t := rs[j] - 0xE0000
		if t == 0x7F {
			return n >= 2 && n <= 7
		}
		if !(t >= 'a' && t <= 'z' || t >= '0' && t <= '9') {
			return false
		}
		n++
	}
	return false
}

// scanUnicode reports bidirectional and invisible characters, one finding
// per line and class. Instruction files also get terminal control
// characters reported, since those can hide text when a file is shown.
func (r *run) scanUnicode(rel string, data []byte, instructions bool) {
	if !needsUnicodeScan(data, instructions) {
		return
	}
	line := 1
	for len(data) > 0 {
		end := 0
		for end < len(data) && data[end] != '\n' {
			end++
		}
		lineBytes := data[:end]
		if needsUnicodeScan(lineBytes, instructions) {
			r.scanUnicodeLine(rel, line, lineBytes, instructions, line == 1)
		}
		if end < len(data) {
			end++
		}
		data = data[end:]
		line++
	}
}

func needsUnicodeScan(b []byte, instructions bool) bool {
	for _, c := range b {
		if c >= 0x80 || instructions && (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' || c == 0x7F) {
			return true
		}
	}
	return false
}

func (r *run) scanUnicodeLine(rel string, line int, b []byte, instructions, first bool) {
	s := string(b)
	rs := []rune(s)
	offsets := make([]int, len(rs))
	off := 0
	for i, c := range rs {
		offsets[i] = off
		if c == utf8.RuneError {
			_, size := utf8.DecodeRuneInString(s[off:])
			off += size
		} else {
			off += utf8.RuneLen(c)
		}
	}
	type hit struct {
		col   int
		names []string
	}
	hits := map[string]*hit{}
	var tags, selectors []rune
	for i := range rs {
		cls := classifyRune(rs, i, instructions)
		if i == 0 && !first && rs[0] == 0xFEFF {
			cls = classHidden
		}
		if cls == notHidden {
			continue
		}
		rule := RuleUnicodeHidden
		if cls == classBidi {
			rule = RuleUnicodeBidi
		}
		h := hits[rule]
		if h == nil {
			h = &hit{col: offsets[i] + 1}
			hits[rule] = h
		}
		h.names = append(h.names, fmt.Sprintf("U+%04X", rs[i]))
		switch cls {
		case classTag:
			tags = append(tags, rs[i])
		case classSelector:
			selectors = append(selectors, rs[i])
		}
	}
	for _, rule := range []string{RuleUnicodeBidi, RuleUnicodeHidden} {
		h := hits[rule]
		if h == nil {
			continue
		}
		msg := describeHidden(rule, h.names, tags, selectors)
		f := Finding{Rule: rule, File: rel, Line: line, Column: h.col, Message: msg, Evidence: s}
		if len(tags) == 0 && decodeSelectors(selectors) == "" && namesHidden(rule, s) {
			// The sentence's role (role.go): a line that says which
			// characters it holds documents them for a reader, as a
			// detection pattern or an example; it hides nothing. Tag
			// characters and variation selectors that spell text are a
			// channel whatever the line says.
			f.Severity = r.s.rules[rule].Severity.lower()
			f.Downgraded = true
			f.Context = ctxDocumented
			f.Message += " (the line names them: documented, not hidden)"
		}
		r.add(f)
	}
}

// describeHidden names the characters found and any text they smuggle.
func describeHidden(rule string, names []string, tags, selectors []rune) string {
	uniq := names[:0:0]
	seen := map[string]bool{}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	list := strings.Join(uniq, ", ")
	if len(uniq) > 6 {
		list = strings.Join(uniq[:6], ", ") + ", …"
	}
	if rule == RuleUnicodeBidi {
		return fmt.Sprintf("%d bidirectional control character(s) (%s): the line can display in a different order than it is read", len(names), list)
	}
	msg := fmt.Sprintf("%d invisible character(s) (%s) hide content from a reviewer", len(names), list)
	if t := decodeTags(tags); t != "" {
		msg += fmt.Sprintf("; tag characters spell %q", t)
	}
	if t := decodeSelectors(selectors); t != "" {
		msg += fmt.Sprintf("; variation selectors encode %q", t)
	}
	return msg
}

// decodeTags reads the ASCII text that Unicode tag characters carry.
func decodeTags(tags []rune) string {
	var b strings.Builder
	for _, t := range tags {
		if c := t - 0xE0000; c >= 0x20 && c < 0x7F {
			b.WriteRune(c)
		}
	}
	return clip(b.String(), 120)
}

// decodeSelectors reads bytes smuggled as variation selectors (one selector
// per byte: U+FE00..FE0F for 0..15, U+E0100..E01EF for 16..255), shown
// only when they make printable text.
func decodeSelectors(sel []rune) string {
	if len(sel) < 4 {
		return ""
	}
	buf := make([]byte, 0, len(sel))
	for _, c := range sel {
		switch {
		case c >= 0xFE00 && c <= 0xFE0F:
			buf = append(buf, byte(c-0xFE00))
		case c >= 0xE0100 && c <= 0xE01EF:
			buf = append(buf, byte(c-0xE0100+16))
		}
	}
	if !printable(buf) {
		return ""
	}
	return clip(string(buf), 120)
}

// printable reports whether b is mostly readable UTF-8 text.
func printable(b []byte) bool {
	if len(b) == 0 || !utf8.Valid(b) {
		return false
	}
	good, total := 0, 0
	for _, c := range string(b) {
		total++
		if c == '\n' || c == '\t' || c == '\r' || (c >= 0x20 && c != 0x7F && !unicode.IsControl(c)) {
			good++
		}
	}
	return good*100 >= total*95
}

// namesHidden reports whether a line names the kind of invisible or
// bidirectional character it holds ("zero-width space", "U+202E", "RTL
// override").
func namesHidden(rule, line string) bool {
	l := strings.ToLower(line)
	words := []string{"zero-width", "zero width", "zwsp", "zwj", "zwnj", "invisible", "u+200b", "u+200c", "u+200d", "u+2060", "u+feff", "soft hyphen", "u+00ad"}
	if rule == RuleUnicodeBidi {
		words = []string{"rtl", "ltr", "right-to-left", "left-to-right", "bidi", "bidirectional", "u+202", "u+206", "u+200e", "u+200f", "direction"}
	}
	for _, w := range words {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}
