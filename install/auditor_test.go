package install

import (
	"context"
	"sync"

	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/skill"
)

// testAuditor is pkg/audit's scanner as an Auditor for this package's
// tests, which cannot import install/auditor (it imports install).
// Like install/auditor's, newTestAuditor's compiles the rules once for
// all the skills it audits (compiling them per skill was a fifth of a
// 100-skill benchmark's CPU, which the real auditor does not spend).
type testAuditor struct {
	tool    string
	scanner func() (*audit.Scanner, error)
}

func newTestAuditor() Auditor {
	return testAuditor{scanner: sync.OnceValues(func() (*audit.Scanner, error) { return audit.New(audit.Options{}) })}
}

func (a testAuditor) Audit(ctx context.Context, dir string, tier skill.Tier) (AuditVerdict, error) {
	newScanner := a.scanner
	if newScanner == nil {
		newScanner = func() (*audit.Scanner, error) { return audit.New(audit.Options{Tool: a.tool}) }
	}
	sc, err := newScanner()
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
