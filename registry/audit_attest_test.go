package registry

import (
	"context"
	"errors"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/pkg/audit/attest"
	"github.com/skillpm/skillpm/sign"
)

func attestWith(t *testing.T, key *sign.PrivateKey, m ocispec.Descriptor, tier, decision string) []byte {
	t.Helper()
	p := attest.Predicate{
		Auditor: attest.Auditor{Tool: "skillpm-test"},
		Report:  attest.Report{Schema: "https://skillpm.dev/audit/v1", Digest: "sha256:" + strings.Repeat("ab", 32), Findings: map[string]int{}},
		Skill:   attest.Skill{Name: "alpha", Version: "1.0.0"},
		Verdict: attest.Verdict{Tier: tier, Decision: decision},
	}
	raw, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := sign.SignStatement(context.Background(), m, attest.PredicateType, raw, sign.SignOptions{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return sig.Bundle
}

// TestVerifyAudits: attestations are read apart from signatures, and only
// a verified pass or review at the claimed tier or above counts toward
// requireAudit (whose policy side registry/policycheck tests).
func TestVerifyAudits(t *testing.T) {
	ctx := context.Background()
	c := testClient(t, nil)
	src := c.Embedded()
	publisher, auditor := testKeys(t)
	stranger, _ := testKeys(t)
	res := publish(t, c, src, writeSkill(t, t.TempDir(), skillSpec{name: "alpha", version: "1.0.0", tier: "verified"}), PublishOptions{})
	repo, err := c.Repository(src, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	m, err := repo.Manifest(ctx, res.Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	trust := trustKeys(publisher, auditor)
	attach := func(b []byte, predicateType string) {
		t.Helper()
		if _, err := repo.AttachBundle(ctx, m.Descriptor, b, AttachOptions{PredicateType: predicateType}); err != nil {
			t.Fatal(err)
		}
	}
	attach(signWith(t, publisher, m.Descriptor), sign.PredicateType)

	av, err := repo.VerifyAudits(ctx, m, trust)
	if err != nil || len(av.Checks) != 0 || len(av.Signers()) != 0 {
		t.Fatalf("no attestation: %+v, %v", av, err)
	}

	attach(attestWith(t, auditor, m.Descriptor, "verified", "block"), attest.PredicateType)
	attach(attestWith(t, auditor, m.Descriptor, "community", "pass"), attest.PredicateType)
	attach(attestWith(t, stranger, m.Descriptor, "verified", "pass"), attest.PredicateType)
	// A signature posing as an attestation (referrer annotation says audit)
	// does not verify as one.
	attach(signWith(t, auditor, m.Descriptor), attest.PredicateType)
	av, err = repo.VerifyAudits(ctx, m, trust)
	if err != nil {
		t.Fatal(err)
	}
	if len(av.Checks) != 4 || len(av.Signers()) != 0 {
		t.Fatalf("checks %d, signers %v", len(av.Checks), av.Signers())
	}
	var notes, failures []string
	for _, ch := range av.Checks {
		if ch.Counts {
			t.Errorf("counts: %+v", ch)
		}
		if ch.Err != nil {
			failures = append(failures, ch.Err.Error())
		} else {
			notes = append(notes, ch.Note)
		}
	}
	joined := strings.Join(notes, "|")
	if !strings.Contains(joined, "a blocking audit never satisfies requireAudit") || !strings.Contains(joined, "judged at community, below the verified") {
		t.Errorf("notes %q", notes)
	}
	if len(failures) != 2 {
		t.Errorf("failures %q", failures)
	}

	// The signatures are untouched by attestations: one, the publisher's.
	v, err := repo.VerifySignatures(ctx, m, trust)
	if err != nil || len(v.Checks) != 1 || len(v.Signers) != 1 {
		t.Fatalf("signatures: %+v, %v", v, err)
	}
	for _, ch := range v.Checks {
		if ch.Err != nil && errors.Is(ch.Err, sign.ErrPredicateType) {
			t.Errorf("an attestation was read as a signature: %v", ch.Err)
		}
	}

	// A passing attestation by the auditor counts and meets requireAudit.
	attach(attestWith(t, auditor, m.Descriptor, "verified", "review"), attest.PredicateType)
	av, err = repo.VerifyAudits(ctx, m, trust)
	if err != nil {
		t.Fatal(err)
	}
	signers := av.Signers()
	if len(signers) != 1 || signers[0].KeyFingerprint != auditor.Fingerprint() {
		t.Fatalf("signers %v", signers)
	}
}
