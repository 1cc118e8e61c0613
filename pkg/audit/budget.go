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
	// largest corpus skill spends under 2 % of it.
	DefaultAnalysisSteps = 4_000_000
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
	r.add(Finding{Rule: RuleAnalysisBudget, File: r.budgetFile,
		Message: fmt.Sprintf("analysis incomplete (budget): the skill needs more than %d analysis steps; what follows this file was analysed only in part", r.s.opts.Limits.MaxAnalysisSteps)})
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
