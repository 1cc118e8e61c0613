package attest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func valid() Predicate {
	return Predicate{
		Auditor: Auditor{Tool: "skillpm 0.4.0"},
		Report:  Report{Schema: "https://skillpm.dev/audit/v1", Digest: "sha256:" + strings.Repeat("0f", 32), Findings: map[string]int{"high": 1}},
		Skill:   Skill{Name: "web-research", Version: "1.0.0"},
		Verdict: Verdict{Tier: "verified", Decision: DecisionReview},
	}
}

func TestPredicateRoundTrip(t *testing.T) {
	raw, err := valid().JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"auditor":{"tool":"skillpm 0.4.0"}`, `"verdict":{"tier":"verified","decision":"review"}`, `"digest":"sha256:0f0f`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("%s lacks %s", raw, key)
		}
	}
	p, err := Parse(raw)
	if err != nil || p.Verdict != valid().Verdict || p.Report.Digest != valid().Report.Digest {
		t.Fatalf("Parse: %+v, %v", p, err)
	}
}

func TestPassing(t *testing.T) {
	for d, want := range map[string]bool{DecisionPass: true, DecisionReview: true, DecisionBlock: false} {
		p := valid()
		p.Verdict.Decision = d
		if p.Passing() != want {
			t.Errorf("%s: passing %v", d, !want)
		}
	}
}

func TestInvalid(t *testing.T) {
	tests := map[string]func(*Predicate){
		"digest":   func(p *Predicate) { p.Report.Digest = "sha256:abc" },
		"decision": func(p *Predicate) { p.Verdict.Decision = "maybe" },
		"tier":     func(p *Predicate) { p.Verdict.Tier = "" },
	}
	for name, edit := range tests {
		t.Run(name, func(t *testing.T) {
			p := valid()
			edit(&p)
			if _, err := p.JSON(); !errors.Is(err, ErrInvalid) {
				t.Errorf("JSON: %v", err)
			}
			raw, _ := json.Marshal(p)
			if _, err := Parse(raw); !errors.Is(err, ErrInvalid) {
				t.Errorf("Parse: %v", err)
			}
		})
	}
	if _, err := Parse(json.RawMessage(`[1]`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("array: %v", err)
	}
}
