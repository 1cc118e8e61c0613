// Package attest is the predicate of a skillpm audit attestation: an
// in-toto statement, signed like a skill signature and attached to the
// skill's manifest as an OCI referrer, saying that an auditor ran
// `skillpm audit` on exactly that manifest and what it decided.
//
// The predicate records the report's digest, not the report: the report
// is reproducible (the same skill audited by the same tool version has the
// same canonical JSON), so anyone can audit the skill again and compare.
// It is a package of its own, free of the parsers pkg/audit needs, so that
// the registry can read attestations without them.
package attest

import (
	"encoding/json"
	"fmt"
	"regexp"
)

// PredicateType is the in-toto predicate type of an audit attestation. It
// is not cosign's signature type: an audit attestation never counts as a
// signature, nor a signature as an attestation.
const PredicateType = "https://skillpm.dev/attestations/audit/v1"

// Decisions an audit verdict carries (pkg/audit.Decision).
const (
	DecisionPass   = "pass"
	DecisionReview = "review"
	DecisionBlock  = "block"
)

// Predicate is what an auditor signs.
//
//	{"auditor":{"tool":"skillpm 0.4.0"},
//	 "report":{"schema":"https://skillpm.dev/audit/v1","digest":"sha256:…",
//	           "findings":{"critical":0,"high":1,"medium":0,"low":2}},
//	 "skill":{"name":"web-research","version":"1.0.0"},
//	 "verdict":{"tier":"verified","decision":"review"}}
type Predicate struct {
	Auditor Auditor `json:"auditor"`
	Report  Report  `json:"report"`
	Skill   Skill   `json:"skill"`
	Verdict Verdict `json:"verdict"`
}

// Auditor is the program that made the report.
type Auditor struct {
	// Tool is the report's tool: name and version ("skillpm 0.4.0").
	Tool string `json:"tool"`
}

// Report identifies the audit report.
type Report struct {
	// Schema is the report's schema (audit.ReportSchema).
	Schema string `json:"schema"`
	// Digest is "sha256:<hex>" of the report's canonical JSON.
	Digest string `json:"digest"`
	// Findings counts the findings per severity name.
	Findings map[string]int `json:"findings"`
}

// Skill is the audited skill as its SKILL.md names it. The statement's
// subject (the manifest digest) is what identifies it; this is for people.
type Skill struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Verdict is the decision the attestation records, for one tier.
type Verdict struct {
	// Tier is the tier the report was judged at.
	Tier string `json:"tier"`
	// Decision is pass, review or block.
	Decision string `json:"decision"`
}

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// Validate checks the fields a verifier relies on.
func (p Predicate) Validate() error {
	switch {
	case !digestRE.MatchString(p.Report.Digest):
		return fmt.Errorf("%w: report digest %q is not sha256:<64 hex>", ErrInvalid, p.Report.Digest)
	case p.Verdict.Decision != DecisionPass && p.Verdict.Decision != DecisionReview && p.Verdict.Decision != DecisionBlock:
		return fmt.Errorf("%w: verdict decision %q (want pass, review or block)", ErrInvalid, p.Verdict.Decision)
	case p.Verdict.Tier == "":
		return fmt.Errorf("%w: no verdict tier", ErrInvalid)
	}
	return nil
}

// Passing reports whether the verdict lets the skill through at its tier:
// pass, or review (the auditor who signs a review verdict is the person
// the verdict asks to look). A block verdict never passes.
func (p Predicate) Passing() bool {
	return p.Verdict.Decision == DecisionPass || p.Verdict.Decision == DecisionReview
}

// JSON renders the predicate as the statement carries it.
func (p Predicate) JSON() (json.RawMessage, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

// Parse decodes and validates a signed predicate.
func Parse(raw json.RawMessage) (Predicate, error) {
	var p Predicate
	if err := json.Unmarshal(raw, &p); err != nil {
		return Predicate{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return p, p.Validate()
}
