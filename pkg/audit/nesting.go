package audit

import (
	"fmt"
	"strings"
)

// Bounds on the shell parser's recursion. mvdan.cc/sh parses nested
// command substitutions, subshells, groups and parameter expansions by
// recursion, several kilobytes of Go stack a level: some 300,000 levels
// (900 KB of `"$(`) overflow the stack, which kills the process instead
// of failing the audit. No real script nests a thousand deep, so deeper
// code is reported opaque without being parsed. The opener count backs
// the depth up: the depth is counted without reading quotes, comments or
// here-documents (a closer there is text, not a closer), so a script
// could hide its depth from it, but never past the number of openers it
// holds, and that many levels the parser survives in bounded time.
//
// The parser recurses on chains too: && and || lists, negations (! in
// [[ ]] overflowed at 2,000,000), unary signs in arithmetic, and compound
// commands (if, while, for, case) left open. Those are counted on their
// own, with a bound a long real script stays under and the parser goes
// through in seconds.
const (
	maxShNesting = 1000
	maxShOpeners = 20000
	maxShChains  = 50000
)

// shKeywords open compound commands the parser reads by recursion.
var shKeywords = []string{"if", "while", "until", "for", "case", "select"}

// shWordStart reports whether a word may start after byte c.
func shWordStart(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == '{'
}

// shellNesting returns the line where src first nests (, {, $( or ${
// more than maxShNesting deep, or the line of its opener past
// maxShOpeners; 0 when neither bound is passed. what names the bound.
func shellNesting(src string) (line int, what string) {
	depth, openers, chains := 0, 0, 0
	line = 1
	for i := 0; i < len(src); i++ {
		c := src[i]
		next := byte(' ')
		if i+1 < len(src) {
			next = src[i+1]
		}
		switch {
		case c == '&' && next == '&', c == '|', c == '!',
			(c == '-' || c == '+' || c == '~') && (next == ' ' || next == '\t'):
			chains++
			if c == '&' || c == '|' && next == '|' {
				i++
			}
		case c >= 'a' && c <= 's' && (i == 0 || shWordStart(src[i-1])):
			for _, k := range shKeywords {
				if strings.HasPrefix(src[i:], k) && (i+len(k) == len(src) || shWordStart(src[i+len(k)])) {
					chains++
					break
				}
			}
		}
		if chains > maxShChains {
			return line, fmt.Sprintf("chains more than %d operators, negations or compound commands (&&, ||, |, !, unary signs, if, while, for, case)", maxShChains)
		}
		switch c {
		case '\n':
			line++
		case '(', '{':
			depth++
			openers++
			if depth > maxShNesting {
				return line, fmt.Sprintf("nests substitutions, subshells or groups more than %d deep", maxShNesting)
			}
			if openers > maxShOpeners {
				return line, fmt.Sprintf("opens more than %d substitutions, subshells or groups", maxShOpeners)
			}
		case ')', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return 0, ""
}

// shellTooDeep reports shell code past the parser's nesting bounds, as
// opaque, at line base+line-1 of the host file.
func (r *run) shellTooDeep(rel string, base int, src, name string) bool {
	line, what := shellNesting(src)
	if line == 0 {
		return false
	}
	r.add(Finding{Rule: RuleCodeOpaque, File: rel, Line: base + line - 1,
		Message: name + " " + what + ", past what the audit parses; it was not analysed: this blocks at community and verified"})
	return true
}

// goldmark (the Markdown parser) does work quadratic in some runs of one
// line: container markers (a line of 300,000 "> " or "1. " re-measures
// its prefix for every open container) and link destinations that never
// close ("[a](" repeated scans to the end of the line from every one).
// markdownCost is an upper estimate of those operations, found in one
// linear pass, that the audit pays from the skill's analysis budget
// (mdOpsPerStep operations a step) before parsing; a document that costs
// more than is left is read as plain text, and the analysis is reported
// incomplete. Ordinary documents cost a few operations a line.
const mdOpsPerStep = 64

// markdownCost estimates goldmark's superlinear work on src, in one
// pass with constant memory.
func markdownCost(src []byte) int64 {
	var cost int64
	// Link openers not yet closed: how many and the sum of their
	// offsets, for those scanned to the next space and those in <…> form
	// scanned to the end of the line. Each costs its distance to its
	// stop, some eight times a container marker's work.
	var nSpace, sumSpace, nAngle, sumAngle int64
	for i := 0; i < len(src); i++ {
		if i == 0 || src[i-1] == '\n' {
			end, markers := containerPrefix(src, i)
			cost += int64(markers) * int64(end-i)
		}
		c := src[i]
		if c <= ' ' && nSpace > 0 {
			cost += 8 * (nSpace*int64(i) - sumSpace)
			nSpace, sumSpace = 0, 0
		}
		if (c == '\n' || c == '>') && nAngle > 0 {
			cost += 8 * (nAngle*int64(i) - sumAngle)
			nAngle, sumAngle = 0, 0
		}
		if c == ']' && i+1 < len(src) && src[i+1] == '(' {
			if i+2 < len(src) && src[i+2] == '<' {
				nAngle++
				sumAngle += int64(i)
			} else {
				nSpace++
				sumSpace += int64(i)
			}
		}
	}
	n := int64(len(src))
	return cost + 8*(nSpace*n-sumSpace) + 8*(nAngle*n-sumAngle)
}

// containerPrefix reads the block quote markers and list markers that
// open a line at i: where they end and how many there are.
func containerPrefix(src []byte, i int) (end, markers int) {
	for i < len(src) {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if i >= len(src) {
			break
		}
		j := i
		switch c := src[i]; {
		case c == '>':
			j = i + 1
		case c == '-' || c == '*' || c == '+':
			j = i + 1
		case c >= '0' && c <= '9':
			for j < len(src) && j-i < 10 && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			if j < len(src) && (src[j] == '.' || src[j] == ')') {
				j++
			} else {
				j = i
			}
		}
		// A list marker needs a space after it; a quote marker does not.
		if j == i || src[i] != '>' && (j >= len(src) || src[j] != ' ' && src[j] != '\t') {
			break
		}
		markers++
		i = j
	}
	return i, markers
}
