package audit

import "fmt"

// Bounds on the static analyses, so that no input makes an audit slow or
// hungry: value folding and taint are memoised per syntax node, cut at
// maxFoldDepth nested evaluations, and every evaluation spends from one
// budget per skill. A skill that exhausts the budget gets the
// AUD-ANALYSIS-BUDGET finding (unreadable: review at every tier); what was
// found before stays in the report.
const (
	// maxFoldDepth bounds the evaluations nested inside one another (a
	// chain of assignments, a deeply nested expression).
	maxFoldDepth = 64
	// maxValLen bounds the text of a folded value; beyond it the value is
	// cut and its tail unknown (chained doubling would otherwise grow to
	// gigabytes).
	maxValLen = 64 << 10
	// DefaultAnalysisSteps is the budget of analysis steps per skill: one
	// per evaluated expression plus one per 16 bytes of folded text. The
	// largest corpus skill spends under 0.3 % of it; spending all of it
	// takes about a quarter of a second.
	DefaultAnalysisSteps = 2_000_000
	// DefaultParseSteps is the parse budget per skill, in steps of 100
	// tree-sitter operations (about one operation per token, one per
	// syntax node). A step costs about the same on any input, some 0.1 ms
	// on a 2020s server core, so the default bounds the parsing of a skill
	// to some 0.3 s: about 550 KiB of ordinary Python (real skills vendor
	// scripts of a few hundred KiB; the corpus skill with the most code
	// needs 242 steps), which keeps the slowest skill the budgets admit
	// under a second. A code file
	// whose parse it cannot pay for is opaque (AUD-CODE-OPAQUE); code
	// found in strings or Markdown code blocks makes the analysis
	// incomplete (AUD-ANALYSIS-BUDGET).
	DefaultParseSteps = 3_000
)

// spend takes n steps from the skill's budget and reports whether they
// were there. The first refusal records the finding.
func (r *run) spend(n int64) bool {
	if r.stepsLeft < n {
		if !r.budgetOut {
			r.budgetOut = true
			r.stepsLeft = 0
		}
		return false
	}
	r.stepsLeft -= n
	return true
}

// budgetFinding reports an exhausted budget, once per skill, at the file
// being analysed when it ran out.
func (r *run) budgetFinding() {
	if !r.budgetOut {
		return
	}
	need := fmt.Sprintf("more than %d analysis steps", r.s.opts.Limits.MaxAnalysisSteps)
	if r.stepsLeft > 0 {
		// Only the parse budget ran out: code embedded in strings or
		// Markdown code blocks was left unparsed.
		need = fmt.Sprintf("more than %d parse steps for the code it embeds in strings and code blocks", r.s.opts.Limits.MaxParseSteps)
	}
	r.add(Finding{Rule: RuleAnalysisBudget, File: r.budgetFile,
		Message: "analysis incomplete (budget): the skill needs " + need + "; what follows this file was analysed only in part"})
}

// capVal bounds the text of a folded value.
func capVal(v val) val {
	if len(v.s) <= maxValLen {
		return v
	}
	v.s = v.s[:maxValLen] + unknownPart
	v.known = false
	return v
}

// Bracket nesting beyond what the languages' own parsers accept: CPython
// refuses more than 200 nested brackets ("too many nested parentheses"),
// and JavaScript engines overflow their parser's stack a few thousand
// levels deep. Such a file cannot run, and parsing it is where the time of
// a bracket bomb goes, so it is reported opaque without being parsed.
const (
	maxPyNesting = 200
	maxJSNesting = 2000
)

// bracketDepth returns the deepest bracket nesting of source code outside
// string literals and comments (# for Python, // and /* */ for
// JavaScript), and the line where it is first exceeded past limit (0 when
// it is not). Template literals and regular expressions are read as
// strings, which is close enough for a bound.
func bracketDepth(src []byte, python bool, limit int) (int, int) {
	depth, deepest, line := 0, 0, 1
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line++
		case python && c == '#', !python && c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			line++
		case !python && c == '/' && i+1 < len(src) && src[i+1] == '*':
			for i += 2; i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/'); i++ {
				if src[i] == '\n' {
					line++
				}
			}
			i++
		case c == '\'' || c == '"' || !python && c == '`':
			triple := python && i+2 < len(src) && src[i+1] == c && src[i+2] == c
			if triple {
				i += 2
			}
			for i++; i < len(src); i++ {
				if src[i] == '\\' {
					i++
					continue
				}
				if src[i] == '\n' {
					line++
					if !triple && c != '`' {
						break
					}
				}
				if src[i] == c && (!triple || i+2 < len(src) && src[i+1] == c && src[i+2] == c) {
					if triple {
						i += 2
					}
					break
				}
			}
		case c == '(' || c == '[' || c == '{':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest == limit+1 {
					return deepest, line
				}
			}
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest, 0
}

// tooDeep reports code nested beyond what its language runs, as opaque.
func (r *run) tooDeep(rel, name string, src []byte, python bool) bool {
	limit := maxJSNesting
	if python {
		limit = maxPyNesting
	}
	if _, line := bracketDepth(src, python, limit); line > 0 {
		r.add(Finding{Rule: RuleCodeOpaque, File: rel, Line: line,
			Message: fmt.Sprintf("%s nests brackets more than %d deep, which its interpreter refuses; it was not analysed: this blocks at community and verified", name, limit)})
		return true
	}
	return false
}
