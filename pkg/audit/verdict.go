package audit

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
)

// Decision is what a verdict lets happen.
type Decision string

// Decisions, from most to least permissive.
const (
	// Pass: nothing stops publishing or installing; findings are advisory.
	Pass Decision = "pass"
	// Review: a person should look before trusting the skill at this tier;
	// publish and install proceed and show the findings.
	Review Decision = "review"
	// Block: publishing at this tier is refused; installing is refused
	// unless the user allows audit findings explicitly.
	Block Decision = "block"
)

// Verdict is the decision for one tier and why.
type Verdict struct {
	Tier     string   `json:"tier"`
	Decision Decision `json:"decision"`
	// Reasons name the findings that decided, one line per severity band.
	Reasons []string `json:"reasons"`
}

// thresholds gives, per tier, the lowest severity that blocks and the
// lowest that needs review. Verdicts tighten as the tier rises: a skill
// that asks to be trusted more is held to more.
func thresholds(tier string) (block, review Severity, ok bool) {
	switch tier {
	case skill.TierExperimental:
		// Advisory except critical: review only for what could not be read.
		return Critical, Critical + 1, true
	case skill.TierCommunity:
		return Critical, High, true
	case skill.TierVerified:
		return High, Medium, true
	}
	return 0, 0, false
}

// Verdict decides the report for a tier ("" means the tier the skill
// claims): malicious findings block at every tier; experimental blocks
// critical findings and is otherwise advisory;
// community blocks critical and reviews high; verified blocks high and
// reviews medium. Anything unreadable is at least review at every tier.
func (r *Report) Verdict(tier string) (Verdict, error) {
	if tier == "" {
		tier = r.Tier
	}
	block, review, ok := thresholds(tier)
	if !ok {
		return Verdict{}, fmt.Errorf("%w %q (want experimental, community or verified)", ErrTier, tier)
	}
	v := Verdict{Tier: tier, Decision: Pass, Reasons: []string{}}
	var malicious, blocking, trusted, reviewing, unreadable []Finding
	for _, f := range r.Findings {
		switch {
		case f.Malicious:
			malicious = append(malicious, f)
		case f.Severity >= block:
			blocking = append(blocking, f)
		case tier != skill.TierExperimental && blocksTrusted(f):
			trusted = append(trusted, f)
		case f.Severity >= review:
			reviewing = append(reviewing, f)
		case f.Unreadable:
			unreadable = append(unreadable, f)
		}
	}
	if len(malicious) > 0 {
		v.Decision = Block
		v.Reasons = append(v.Reasons, reason(malicious, "patterns malware uses block at every tier"))
	}
	if len(blocking) > 0 {
		v.Decision = Block
		v.Reasons = append(v.Reasons, reason(blocking, fmt.Sprintf("%s or worse blocks at %s", block, tier)))
	}
	if len(trusted) > 0 {
		v.Decision = Block
		v.Reasons = append(v.Reasons, reason(trusted, fmt.Sprintf("code that could not be analysed, or instructions to run fetched code, blocks at %s", tier)))
	}
	if len(reviewing) > 0 {
		if v.Decision == Pass {
			v.Decision = Review
		}
		v.Reasons = append(v.Reasons, reason(reviewing, fmt.Sprintf("%s needs review at %s", review, tier)))
	}
	if len(unreadable) > 0 {
		if v.Decision == Pass {
			v.Decision = Review
		}
		v.Reasons = append(v.Reasons, reason(unreadable, "content that could not be audited needs review at every tier"))
	}
	return v, nil
}

// blocksTrusted names the findings that block at community and verified
// whatever their severity: code the audit could not analyse (a compiled
// executable, a script it could not read) and instructions to fetch and
// run a binary or a pasted command. At experimental they follow their
// severity (and unreadable ones need review). An installer from the
// product's own domain or a known toolchain (Vendor), and text that is
// not an instruction (a document SKILL.md does not reference, a list of
// what to avoid or detect) follow their severity instead.
func blocksTrusted(f Finding) bool {
	switch f.Rule {
	case RuleCodeBinary, RuleCodeOpaque:
		return true
	case RuleInstrRunBinary, RuleInstrFetchExec:
		return f.Vendor == "" && !describedCtx(f.Context)
	}
	return false
}

// reason summarizes findings: the count, why they matter, and the first few.
func reason(fs []Finding, why string) string {
	const show = 3
	var b strings.Builder
	fmt.Fprintf(&b, "%d finding", len(fs))
	if len(fs) != 1 {
		b.WriteByte('s')
	}
	fmt.Fprintf(&b, " (%s): ", why)
	for i, f := range fs {
		if i == show {
			fmt.Fprintf(&b, ", and %d more", len(fs)-show)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s at %s", f.Rule, f.Position())
	}
	return b.String()
}
