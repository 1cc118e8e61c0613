package audit

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/audit/attest"
)

// Attestation returns the predicate of an audit attestation for this
// report and one of its verdicts: the report's digest and counts, the
// skill, the tool and the verdict.
func (r *Report) Attestation(v Verdict) (attest.Predicate, error) {
	d, err := r.Digest()
	if err != nil {
		return attest.Predicate{}, err
	}
	counts := map[string]int{}
	for s := Low; s <= Critical; s++ {
		counts[s.String()] = 0
	}
	for s, n := range r.CountBySeverity() {
		counts[s.String()] = n
	}
	p := attest.Predicate{
		Auditor: attest.Auditor{Tool: r.Tool},
		Report:  attest.Report{Schema: r.Schema, Digest: d, Findings: counts},
		Skill:   attest.Skill{Name: r.Skill, Version: r.Version},
		Verdict: attest.Verdict{Tier: v.Tier, Decision: string(v.Decision)},
	}
	if err := p.Validate(); err != nil {
		return attest.Predicate{}, fmt.Errorf("audit: %w", err)
	}
	return p, nil
}
