package main

import (
	"fmt"
	"io"

	"github.com/skillpm/skillpm/pkg/audit/attest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
)

// printAttested says which audit attestation was attached where.
func printAttested(w io.Writer, a *registry.AuditAttestation) {
	fmt.Fprintf(w, "attested %s@%s (%s) as %s: %s at tier %s; attestation %s attached to %s\n", a.Name, a.Version, a.Digest,
		a.Signer, a.Predicate.Verdict.Decision, a.Predicate.Verdict.Tier, a.Referrer, a.Repository)
}

// auditAttJSON is one audit attestation in skillpm verify --output json.
type auditAttJSON struct {
	Referrer  string            `json:"referrer"`
	Created   string            `json:"created,omitempty"`
	Verified  bool              `json:"verified"`
	Counts    bool              `json:"counts"`
	Signer    *sign.Identity    `json:"signer,omitempty"`
	Predicate *attest.Predicate `json:"predicate,omitempty"`
	Note      string            `json:"note,omitempty"`
	Error     string            `json:"error,omitempty"`
}

func auditDocs(av *registry.AuditVerification) []auditAttJSON {
	out := []auditAttJSON{}
	if av == nil {
		return out
	}
	for _, c := range av.Checks {
		j := auditAttJSON{Referrer: c.Referrer.Digest.String(), Created: c.Created, Verified: c.Err == nil,
			Counts: c.Counts, Signer: c.Signer, Predicate: c.Predicate, Note: c.Note}
		if c.Err != nil {
			j.Error = c.Err.Error()
		}
		out = append(out, j)
	}
	return out
}

// printAudits lists the audit attestations in skillpm verify's layout.
func printAudits(w io.Writer, av *registry.AuditVerification) {
	if av == nil || len(av.Checks) == 0 {
		fmt.Fprintf(w, "  %-12s %s\n", "audits:", "none attached")
		return
	}
	counting := 0
	for _, c := range av.Checks {
		if c.Counts {
			counting++
		}
	}
	fmt.Fprintf(w, "  %-12s %d counting, %d not\n", "audits:", counting, len(av.Checks)-counting)
	for _, c := range av.Checks {
		when := ""
		if c.Created != "" {
			when = ", created " + c.Created
		}
		switch {
		case c.Err != nil:
			fmt.Fprintf(w, "    FAILED    attestation %s%s: %v\n", c.Referrer.Digest, when, c.Err)
		case c.Counts:
			fmt.Fprintf(w, "    attested  %s: %s at %s, report %s (attestation %s%s)\n", c.Signer,
				c.Predicate.Verdict.Decision, c.Predicate.Verdict.Tier, c.Predicate.Report.Digest, c.Referrer.Digest, when)
		default:
			fmt.Fprintf(w, "    ignored   %s: %s (attestation %s%s)\n", c.Signer, c.Note, c.Referrer.Digest, when)
		}
	}
}
