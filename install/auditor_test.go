package install

import (
	"context"

	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/skill"
)

// testAuditor is pkg/audit's scanner as an Auditor for this package's
// tests, which cannot import install/auditor (it imports install).
type testAuditor struct{ tool string }

func newTestAuditor() Auditor { return testAuditor{} }

func (a testAuditor) Audit(ctx context.Context, dir string, tier skill.Tier) (AuditVerdict, error) {
	sc, err := audit.New(audit.Options{Tool: a.tool})
	if err != nil {
		return AuditVerdict{}, err
	}
	rep, err := sc.Scan(ctx, dir)
	if err != nil {
		return AuditVerdict{}, err
	}
	v, err := rep.Verdict(string(tier))
	if err != nil {
		return AuditVerdict{}, err
	}
	d, err := rep.Digest()
	if err != nil {
		return AuditVerdict{}, err
	}
	return AuditVerdict{Decision: string(v.Decision), Tier: skill.Tier(v.Tier), Reasons: v.Reasons,
		Version: rep.Version, Findings: len(rep.Findings), Digest: d, Report: rep}, nil
}
