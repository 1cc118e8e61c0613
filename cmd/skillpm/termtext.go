package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// termText makes a string that came from an artifact, a SKILL.md, a
// receipt or a registry safe to print on a terminal: control characters
// (C0, DEL and C1, which start escape sequences such as OSC 52, which
// writes the clipboard, and OSC 8, which hides a link) and the Unicode
// controls that reorder text (bidi overrides and isolates) are shown as
// escapes instead of acting; invalid UTF-8 is shown as U+FFFD. Every
// renderer of such strings goes through it; JSON output needs none (the
// encoder escapes them).
func termText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unsafeRune) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune reports a rune termText escapes.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c: // directional marks
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // embeddings, overrides, isolates
		return true
	}
	return false
}

// termTrim is termText cut to at most n runes, "..." marking the cut.
func termTrim(s string, n int) string {
	t := []rune(termText(s))
	if len(t) <= n {
		return string(t)
	}
	return string(t[:n-3]) + "..."
}

// termLines is termText for a message of several lines (an error, a
// warning, a problem doctor found): each line is escaped and the lines
// stay lines.
func termLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = termText(l)
	}
	return strings.Join(lines, "\n")
}
