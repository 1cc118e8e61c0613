package sign

import (
	"bytes"
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/opencontainers/go-digest"
)

const testAuditType = "https://skillpm.dev/attestations/audit/v1"

// statementOf decodes the DSSE payload of a bundle.
func statementOf(t *testing.T, b []byte) statement {
	t.Helper()
	var m struct {
		DSSEEnvelope struct {
			Payload string `json:"payload"`
		} `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(m.DSSEEnvelope.Payload)
	if err != nil {
		t.Fatal(err)
	}
	var st statement
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSignStatementRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, alg := range []Algorithm{ECDSAP256, Ed25519} {
		t.Run(string(alg), func(t *testing.T) {
			kp := newKey(t, alg)
			d := testDigest(1)
			pred := json.RawMessage(`{"verdict": {"decision": "pass", "tier": "verified"}, "note": "<a&b>"}`)
			sig, err := SignStatement(ctx, manifestDesc(d), testAuditType, pred, SignOptions{Key: kp.Key})
			if err != nil {
				t.Fatal(err)
			}
			if sig.Identity.KeyFingerprint != kp.Key.Fingerprint() {
				t.Errorf("identity %v", sig.Identity)
			}
			st := statementOf(t, sig.Bundle)
			if st.Type != StatementType || st.PredicateType != testAuditType || len(st.Subject) != 1 || st.Subject[0].Digest["sha256"] != d.Encoded() {
				t.Errorf("statement %+v", st)
			}
			want := `{"verdict":{"decision":"pass","tier":"verified"},"note":"<a&b>"}`
			if string(st.Predicate) != want {
				t.Errorf("predicate %s, want %s", st.Predicate, want)
			}
			vo := VerifyOptions{PublicKeys: []crypto.PublicKey{kp.Key.Public()}, PredicateType: testAuditType}
			res, err := VerifyAttestations(ctx, [][]byte{sig.Bundle}, d, vo)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Verified) != 1 || len(res.Failures) != 0 {
				t.Fatalf("result %+v", res)
			}
			if got := res.Verified[0]; got.Identity != sig.Identity || string(got.Predicate) != want {
				t.Errorf("verified %+v", got)
			}
			// Another digest never verifies.
			res, err = VerifyAttestations(ctx, [][]byte{sig.Bundle}, testDigest(2), vo)
			if err != nil || len(res.Failures) != 1 || !errors.Is(res.Failures[0].Err, ErrDigestMismatch) {
				t.Errorf("other digest: %+v, %v", res, err)
			}
		})
	}
}

// TestAttestationIsNotSignature: the predicate type keeps signatures and
// attestations apart, both ways.
func TestAttestationIsNotSignature(t *testing.T) {
	ctx := context.Background()
	kp := newKey(t, ECDSAP256)
	d := testDigest(3)
	att, err := SignStatement(ctx, manifestDesc(d), testAuditType, json.RawMessage(`{}`), SignOptions{Key: kp.Key})
	if err != nil {
		t.Fatal(err)
	}
	sig := signKey(t, kp.Key, d)
	keys := []crypto.PublicKey{kp.Key.Public()}

	// An attestation is not a signature.
	res, err := VerifyAll(ctx, [][]byte{att.Bundle}, d, VerifyOptions{PublicKeys: keys})
	if err != nil || len(res.Verified) != 0 || !errors.Is(res.Failures[0].Err, ErrPredicateType) {
		t.Errorf("attestation as signature: %+v, %v", res, err)
	}
	// A signature is not an attestation.
	ares, err := VerifyAttestations(ctx, [][]byte{sig, att.Bundle}, d, VerifyOptions{PublicKeys: keys, PredicateType: testAuditType})
	if err != nil {
		t.Fatal(err)
	}
	if len(ares.Verified) != 1 || ares.Verified[0].Index != 1 || len(ares.Failures) != 1 || ares.Failures[0].Index != 0 || !errors.Is(ares.Failures[0].Err, ErrPredicateType) {
		t.Errorf("signature as attestation: %+v", ares)
	}
	// Nor under another attestation type.
	ares, err = VerifyAttestations(ctx, [][]byte{att.Bundle}, d, VerifyOptions{PublicKeys: keys, PredicateType: "https://example.invalid/other/v1"})
	if err != nil || len(ares.Verified) != 0 {
		t.Errorf("other type: %+v, %v", ares, err)
	}
	// VerifyAttestations needs a predicate type: "" would mean signatures.
	if _, err := VerifyAttestations(ctx, [][]byte{sig}, d, VerifyOptions{PublicKeys: keys}); !errors.Is(err, ErrInvalidPredicate) {
		t.Errorf("no predicate type: %v", err)
	}
}

func TestAttestationStatementInvalid(t *testing.T) {
	d := testDigest(4)
	tests := []struct {
		name, typ string
		pred      string
		want      error
	}{
		{"no type", "", `{}`, ErrInvalidPredicate},
		{"array", testAuditType, `[]`, ErrInvalidPredicate},
		{"null", testAuditType, `null`, ErrInvalidPredicate},
		{"not json", testAuditType, `{`, ErrInvalidPredicate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := AttestationStatement(d, tt.typ, json.RawMessage(tt.pred), nil); !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := AttestationStatement(digest.Digest("sha256:nothex"), testAuditType, json.RawMessage(`{}`), nil); !errors.Is(err, ErrInvalidDigest) {
		t.Errorf("bad digest: %v", err)
	}
	// With an empty predicate it is byte for byte a signature's statement
	// but for the type.
	a, err := AttestationStatement(d, PredicateType, json.RawMessage(`{}`), map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := Statement(d, map[string]string{"k": "v"})
	if !bytes.Equal(a, s) {
		t.Errorf("attestation statement\n%s\nsignature statement\n%s", a, s)
	}
}
