package policycheck

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/pkg/audit/attest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

// TestPolicyTrust reads the keys and trusted roots a policy names.
func TestPolicyTrust(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	publisher, auditor := testKeys(t)
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("publisher.pub", publisher.PublicKeyPEM())
	write("auditor.pub", auditor.PublicKeyPEM())
	rootJSON, err := os.ReadFile("../../sign/trusted_root.json")
	if err != nil {
		t.Fatal(err)
	}
	write("private-root.json", rootJSON)
	write("policy.yaml", []byte(`version: 1
policies:
  - name: publishers
    scopes: ["*"]
    tier: community
    identities:
      - key: publisher.pub
  - name: audited
    scopes: ["embedded/*"]
    tier: verified
    identities:
      - key: publisher.pub
    requireAudit:
      - key: auditor.pub
trustedRoots: [private-root.json]
`))
	p, err := tiers.Load(ctx, filepath.Join(dir, "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	vo, err := PolicyTrust(ctx, p, TrustOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fps := func(ks []crypto.PublicKey) []string {
		var out []string
		for _, k := range ks {
			out = append(out, sign.Fingerprint(k))
		}
		return out
	}
	if got, want := fps(vo.PublicKeys), []string{publisher.Fingerprint(), auditor.Fingerprint()}; !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
	if len(vo.TrustedRoots) != 2 {
		t.Errorf("%d trusted roots, want the public-good one and the policy's", len(vo.TrustedRoots))
	}
	if vo, err := PolicyTrust(ctx, p, TrustOptions{NoPublicGood: true}); err != nil || len(vo.TrustedRoots) != 1 {
		t.Errorf("without public good: %d roots, %v", len(vo.TrustedRoots), err)
	}
	// The trust material is built from the root's bytes the load read
	// (which the policy's digest covers), not from a second read: a root
	// file replaced afterwards changes nothing.
	if err := os.WriteFile(filepath.Join(dir, "private-root.json"), []byte("not a root"), 0o644); err != nil {
		t.Fatal(err)
	}
	if vo, err := PolicyTrust(ctx, p, TrustOptions{NoPublicGood: true}); err != nil || len(vo.TrustedRoots) != 1 {
		t.Errorf("root replaced after the load: %d roots, %v", len(vo.TrustedRoots), err)
	}
	if vo, err := PolicyTrust(ctx, nil, TrustOptions{Keys: []crypto.PublicKey{auditor.Public()}}); err != nil || len(vo.PublicKeys) != 1 || len(vo.TrustedRoots) != 1 {
		t.Errorf("no policy, one key: %+v, %v", vo, err)
	}
	// A key file swapped after the policy was read is refused.
	other, _ := testKeys(t)
	write("publisher.pub", other.PublicKeyPEM())
	if _, err := PolicyTrust(ctx, p, TrustOptions{}); err == nil || !strings.Contains(err.Error(), "changed since the policy was read") {
		t.Errorf("swapped key file: %v", err)
	}
}

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

// TestVerifySkillRequireAudit: a rule with requireAudit grants its tier
// only with the auditor's passing attestation among the audit signers;
// VerifyWithAudits finds them itself.
func TestVerifySkillRequireAudit(t *testing.T) {
	ctx := context.Background()
	c := testClient(t)
	publisher, auditor := testKeys(t)
	repo, m := publish(t, c, c.Embedded(), build(t, "alpha", "1.0.0", "verified"), publisher)
	if _, err := repo.AttachBundle(ctx, m.Descriptor, attestWith(t, auditor, m.Descriptor, "verified", "review"), registry.AttachOptions{PredicateType: attest.PredicateType}); err != nil {
		t.Fatal(err)
	}
	trust := trustKeys(publisher, auditor)
	av, err := repo.VerifyAudits(ctx, m, trust)
	if err != nil {
		t.Fatal(err)
	}
	signers := av.Signers()
	if len(signers) != 1 || signers[0].KeyFingerprint != auditor.Fingerprint() {
		t.Fatalf("signers %v", signers)
	}
	pol := &tiers.Policy{Rules: []tiers.Rule{{Name: "audited", Scopes: []string{"*"}, Tier: "verified",
		Identities:   []tiers.IdentityRule{{KeyFingerprint: publisher.Fingerprint()}},
		RequireAudit: []tiers.IdentityRule{{KeyFingerprint: auditor.Fingerprint()}}}}}
	v, err := VerifySkill(ctx, repo, m, VerifyOptions{Trust: trust, Policy: pol})
	if err != nil || v.Decision.Effective != "experimental" || v.Verified() != 1 || len(v.Signers) != 1 {
		t.Fatalf("without audit signers: %+v, %v", v, err)
	}
	v, err = VerifySkill(ctx, repo, m, VerifyOptions{Trust: trust, Policy: pol, AuditSigners: signers})
	if err != nil || v.Decision.Effective != "verified" {
		t.Fatalf("with audit signers: %+v, %v", v.Decision, err)
	}
	v, av, err = VerifyWithAudits(ctx, repo, m, VerifyOptions{Trust: trust, Policy: pol})
	if err != nil || v.Decision.Effective != "verified" || len(av.Signers()) != 1 || v.Repository != "embedded/alpha" {
		t.Fatalf("with audits: %+v, %+v, %v", v, av, err)
	}
}

// TestVerificationRefused: an unsigned version is ErrNotSigned, one
// signed by nobody trusted ErrNoVerifiedSignature, both trust refusals;
// one with a verified signature is not refused.
func TestVerificationRefused(t *testing.T) {
	ctx := context.Background()
	c := testClient(t)
	publisher, stranger := testKeys(t)
	trust := trustKeys(publisher)
	for _, tt := range []struct {
		name    string
		signers []*sign.PrivateKey
		want    error
		text    string
	}{
		{"unsigned", nil, ErrNotSigned, "is not signed: no signature is attached"},
		{"stranger", []*sign.PrivateKey{stranger}, ErrNoVerifiedSignature, "no signature verifies (1 failed)"},
		{"signed", []*sign.PrivateKey{publisher}, nil, ""},
	} {
		repo, m := publish(t, c, c.Embedded(), build(t, tt.name, "1.0.0", "community"), tt.signers...)
		v, err := VerifySkill(ctx, repo, m, VerifyOptions{Trust: trust})
		if err != nil {
			t.Fatal(err)
		}
		err = v.Refused(tt.name + "@1.0.0")
		switch {
		case tt.want == nil && err != nil:
			t.Errorf("%s: %v, want no refusal", tt.name, err)
		case tt.want != nil && (!errors.Is(err, tt.want) || !errors.Is(err, tiers.ErrRefused) || !strings.Contains(fmt.Sprint(err), tt.text)):
			t.Errorf("%s: %v, want %v and tiers.ErrRefused saying %q", tt.name, err, tt.want, tt.text)
		}
	}
}
