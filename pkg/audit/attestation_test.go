package audit

import (
	"testing"

	"github.com/skillpm/skillpm/pkg/audit/attest"
)

func TestReportAttestation(t *testing.T) {
	rep := scanDir(t, fixtures(t, "hostile/instr-exfil"))
	v, err := rep.Verdict("")
	if err != nil {
		t.Fatal(err)
	}
	p, err := rep.Attestation(v)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := rep.Digest()
	if p.Report.Digest != d || p.Report.Schema != ReportSchema || p.Skill.Name != "instr-exfil" || p.Auditor.Tool != rep.Tool {
		t.Errorf("predicate %+v", p)
	}
	if p.Verdict.Tier != "community" || p.Verdict.Decision != attest.DecisionBlock || p.Passing() {
		t.Errorf("verdict %+v", p.Verdict)
	}
	if p.Report.Findings["critical"] != 1 || p.Report.Findings["high"] != 1 || p.Report.Findings["low"] != 0 {
		t.Errorf("findings %v", p.Report.Findings)
	}
	if _, ok := p.Report.Findings["medium"]; !ok {
		t.Errorf("every severity is counted, zero included: %v", p.Report.Findings)
	}
}
