package sign

import (
	"context"
	"crypto"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

const (
	githubIssuer   = "https://token.actions.githubusercontent.com"
	githubWorkflow = "https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.0.0"
	emailIssuer    = "https://accounts.example.com"
)

// keylessIdentities are the two kinds of signer the design names: a person
// (email SAN) and a CI workflow (URI SAN, GitHub Actions issuer).
var keylessIdentities = []struct {
	name   string
	claims map[string]any
	want   Identity
}{
	{"email", map[string]any{
		"iss": emailIssuer, "sub": "1234567890", "aud": "sigstore",
		"email": "dev@example.com", "email_verified": true,
	}, Identity{Subject: "dev@example.com", Issuer: emailIssuer}},
	{"github actions", map[string]any{
		"iss": githubIssuer, "aud": "sigstore",
		"sub":              "repo:acme/skills:ref:refs/tags/v1.0.0",
		"job_workflow_ref": "acme/skills/.github/workflows/release.yml@refs/tags/v1.0.0",
	}, Identity{Subject: githubWorkflow, Issuer: githubIssuer}},
}

// skillpm's own keyless path, end to end against the local Sigstore:
// Fulcio certificate, Rekor v1 entry and RFC 3161 timestamp over HTTP.
func TestKeylessSignVerify(t *testing.T) {
	ctx := context.Background()
	ls := newLocalSigstore(t)
	trusted := []root.TrustedMaterial{ls.trustedRoot(t, true)}
	for _, tt := range keylessIdentities {
		t.Run(tt.name, func(t *testing.T) {
			d := testDigest(20)
			sig, err := Sign(ctx, manifestDesc(d), SignOptions{
				IdentityToken: idToken(tt.claims),
				SigningConfig: ls.signingConfig(t, true, true),
			})
			if err != nil {
				t.Fatalf("Sign: %v", err)
			}
			if sig.Identity != tt.want {
				t.Errorf("Signature.Identity = %v, want %v", sig.Identity, tt.want)
			}
			var pb protobundle.Bundle
			if err := protojson.Unmarshal(sig.Bundle, &pb); err != nil {
				t.Fatal(err)
			}
			vm := pb.GetVerificationMaterial()
			if vm.GetCertificate() == nil || len(vm.GetTlogEntries()) != 1 || len(vm.GetTimestampVerificationData().GetRfc3161Timestamps()) != 1 {
				t.Errorf("bundle lacks certificate, log entry or timestamp: %v", vm)
			}

			id, err := Verify(ctx, sig.Bundle, d, VerifyOptions{TrustedRoots: trusted})
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if id != tt.want || id.IsKey() {
				t.Errorf("Verify identity = %v, want %v", id, tt.want)
			}

			failures := []struct {
				name   string
				bundle []byte
				digest digest.Digest
				opts   VerifyOptions
				want   error
			}{
				{"another digest", sig.Bundle, testDigest(21), VerifyOptions{TrustedRoots: trusted}, ErrDigestMismatch},
				{"public-good root", sig.Bundle, d, VerifyOptions{TrustedRoots: publicGoodRoots(t)}, ErrUntrustedCertificate},
				{"keys only", sig.Bundle, d, VerifyOptions{PublicKeys: []crypto.PublicKey{newKey(t, ECDSAP256).Key.Public()}}, ErrUntrustedCertificate},
				{"payload retargeted", editBundle(t, sig.Bundle, func(m map[string]any) {
					st := fmt.Sprintf(cosignStatement, testDigest(21).Encoded())
					dsseOf(m)["payload"] = base64.StdEncoding.EncodeToString([]byte(st))
				}), testDigest(21), VerifyOptions{TrustedRoots: trusted}, ErrUntrustedCertificate},
				{"certificate corrupted", editBundle(t, sig.Bundle, func(m map[string]any) {
					m["verificationMaterial"].(map[string]any)["certificate"] = map[string]any{"rawBytes": base64.StdEncoding.EncodeToString([]byte("not DER"))}
				}), d, VerifyOptions{TrustedRoots: trusted}, ErrMalformedBundle},
				{"identity refused", sig.Bundle, d, VerifyOptions{TrustedRoots: trusted, Accept: func(id Identity) bool { return id.Issuer == "https://other.example" }}, ErrIdentityRejected},
			}
			for _, f := range failures {
				_, err := Verify(ctx, f.bundle, f.digest, f.opts)
				if !errors.Is(err, f.want) {
					t.Errorf("%s: err = %v, want %v", f.name, err, f.want)
				}
				t.Logf("%s fails as it should: %v", f.name, err)
			}
		})
	}
	if n := ls.count("fulcio"); n != len(keylessIdentities) {
		t.Errorf("%d Fulcio requests, want %d", n, len(keylessIdentities))
	}
	if ls.count("rekor") != len(keylessIdentities) || ls.count("tsa") != len(keylessIdentities) {
		t.Errorf("Rekor %d / TSA %d requests", ls.count("rekor"), ls.count("tsa"))
	}
}

// A private Sigstore's trusted root comes from a file in protobuf-specs
// JSON, as the trust policy's trustedRoots name it.
func TestKeylessTrustedRootFile(t *testing.T) {
	ctx := context.Background()
	ls := newLocalSigstore(t)
	rootJSON, err := ls.trustedRoot(t, true).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "private-sigstore.json")
	if err := os.WriteFile(path, rootJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := LoadTrustedRoot(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	d := testDigest(22)
	sig, err := Sign(ctx, manifestDesc(d), SignOptions{
		IdentityToken: idToken(keylessIdentities[1].claims), SigningConfig: ls.signingConfig(t, true, true),
	})
	if err != nil {
		t.Fatal(err)
	}
	// Beside the public-good root, as a policy's trustedRoots are.
	id, err := Verify(ctx, sig.Bundle, d, VerifyOptions{TrustedRoots: append(publicGoodRoots(t), fromFile)})
	if err != nil {
		t.Fatal(err)
	}
	if id != keylessIdentities[1].want {
		t.Errorf("identity %v", id)
	}
}

// What the signing config must offer for a keyless signature to be
// verifiable: a Fulcio, and a Rekor v1 log or a TSA for the time.
func TestKeylessSigningConfigServices(t *testing.T) {
	ctx := context.Background()
	ls := newLocalSigstore(t)
	tok := idToken(keylessIdentities[0].claims)
	d := testDigest(23)

	// TSA only: no log entry, the signed timestamp proves the time.
	sig, err := Sign(ctx, manifestDesc(d), SignOptions{IdentityToken: tok, SigningConfig: ls.signingConfig(t, false, true)})
	if err != nil {
		t.Fatalf("TSA only: %v", err)
	}
	if _, err := Verify(ctx, sig.Bundle, d, VerifyOptions{TrustedRoots: []root.TrustedMaterial{ls.trustedRoot(t, false)}}); err != nil {
		t.Errorf("TSA-only bundle under a TSA-only root: %v", err)
	}
	// A root with a log requires the signature to be in it.
	if _, err := Verify(ctx, sig.Bundle, d, VerifyOptions{TrustedRoots: []root.TrustedMaterial{ls.trustedRoot(t, true)}}); !errors.Is(err, ErrUntrustedCertificate) {
		t.Errorf("unlogged bundle under a root with a log: err = %v", err)
	}

	// Rekor only: the integrated time proves it.
	sig, err = Sign(ctx, manifestDesc(d), SignOptions{IdentityToken: tok, SigningConfig: ls.signingConfig(t, true, false)})
	if err != nil {
		t.Fatalf("Rekor only: %v", err)
	}
	if _, err := Verify(ctx, sig.Bundle, d, VerifyOptions{TrustedRoots: []root.TrustedMaterial{ls.trustedRoot(t, true)}}); err != nil {
		t.Errorf("Rekor-only bundle: %v", err)
	}

	// Neither: refused before Fulcio is asked.
	before := ls.count("fulcio")
	if _, err := Sign(ctx, manifestDesc(d), SignOptions{IdentityToken: tok, SigningConfig: ls.signingConfig(t, false, false)}); !errors.Is(err, ErrNoService) {
		t.Errorf("no log, no TSA: err = %v, want ErrNoService", err)
	}
	if ls.count("fulcio") != before {
		t.Error("Fulcio was asked for a certificate that could not be used")
	}
	// No Fulcio.
	noFulcio, err := root.NewSigningConfig(root.SigningConfigMediaType02, nil, nil, nil, root.ServiceConfiguration{}, nil, root.ServiceConfiguration{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Sign(ctx, manifestDesc(d), SignOptions{IdentityToken: tok, SigningConfig: noFulcio}); !errors.Is(err, ErrNoService) {
		t.Errorf("no Fulcio: err = %v, want ErrNoService", err)
	}
	// Fulcio refuses a token without an identity: the error says so.
	if _, err := Sign(ctx, manifestDesc(d), SignOptions{IdentityToken: idToken(map[string]any{"iss": emailIssuer, "sub": "x"}), SigningConfig: ls.signingConfig(t, true, true)}); err == nil {
		t.Error("Fulcio's refusal did not fail the signature")
	}
}

// A key signature logged in Rekor on request (TransparencyLog), for both
// key types.
func TestKeySignatureTransparencyLog(t *testing.T) {
	ctx := context.Background()
	ls := newLocalSigstore(t)
	for _, alg := range []Algorithm{ECDSAP256, Ed25519} {
		t.Run(string(alg), func(t *testing.T) {
			kp := newKey(t, alg)
			d := testDigest(24)
			sig, err := Sign(ctx, manifestDesc(d), SignOptions{Key: kp.Key, TransparencyLog: true, SigningConfig: ls.signingConfig(t, true, false)})
			if err != nil {
				t.Fatal(err)
			}
			var pb protobundle.Bundle
			if err := protojson.Unmarshal(sig.Bundle, &pb); err != nil {
				t.Fatal(err)
			}
			if n := len(pb.GetVerificationMaterial().GetTlogEntries()); n != 1 {
				t.Errorf("%d log entries, want 1", n)
			}
			if _, err := Verify(ctx, sig.Bundle, d, VerifyOptions{PublicKeys: []crypto.PublicKey{kp.Key.Public()}}); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
	if _, err := Sign(ctx, manifestDesc(testDigest(24)), SignOptions{Key: newKey(t, ECDSAP256).Key, TransparencyLog: true, SigningConfig: ls.signingConfig(t, false, true)}); !errors.Is(err, ErrNoService) {
		t.Errorf("TransparencyLog without a Rekor: err = %v", err)
	}
}

// A short-lived certificate is valid only with a trusted time of signing
// inside its validity: a certificate that has expired verifies with a
// timestamp from when it was valid, and never without one.
func TestKeylessCertificateTime(t *testing.T) {
	ctx := context.Background()
	ls := newLocalSigstore(t)
	now := time.Now()
	notBefore, notAfter := now.Add(-2*time.Hour), now.Add(-110*time.Minute)
	trusted := []root.TrustedMaterial{ls.trustedRoot(t, false)} // TSA, no log
	d := testDigest(25)
	payload, err := Statement(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		timestamp bool
		at        time.Time
		wantErr   error
	}{
		{"expired, no timestamp", false, time.Time{}, ErrUntrustedCertificate},
		{"expired, timestamped while valid", true, now.Add(-115 * time.Minute), nil},
		{"expired, timestamped after expiry", true, now, ErrUntrustedCertificate},
		{"expired, timestamped before issue", true, now.Add(-3 * time.Hour), ErrUntrustedCertificate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls.setTimestampTime(tt.at)
			kp, err := sgsign.NewEphemeralKeypair(nil)
			if err != nil {
				t.Fatal(err)
			}
			opts := sgsign.BundleOptions{
				Context:             ctx,
				CertificateProvider: caProvider{ca: ls.ca, san: "dev@example.com", issuer: emailIssuer, notBefore: notBefore, notAfter: notAfter},
			}
			if tt.timestamp {
				opts.TimestampAuthorities = []*sgsign.TimestampAuthority{sgsign.NewTimestampAuthority(&sgsign.TimestampAuthorityOptions{URL: ls.tsa.URL})}
			}
			pb, err := sgsign.Bundle(&sgsign.DSSEData{Data: payload, PayloadType: InTotoPayloadType}, kp, opts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := protojson.Marshal(pb)
			if err != nil {
				t.Fatal(err)
			}
			id, err := Verify(ctx, b, d, VerifyOptions{TrustedRoots: trusted})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			t.Logf("result: %v", err)
			if err == nil && id != (Identity{Subject: "dev@example.com", Issuer: emailIssuer}) {
				t.Errorf("identity %v", id)
			}
		})
	}
}

// withoutCTLogs presents a trust material without its CT logs: the
// virtual Sigstore lists one but issues certificates without SCTs.
type withoutCTLogs struct{ root.TrustedMaterial }

func (withoutCTLogs) CTLogs() map[string]*root.TransparencyLog { return nil }

// bundleFromEntity serializes a virtual-Sigstore test entity into the
// bundle JSON a registry would hold. The entity's log entries lack the
// inclusion promise in their protobuf form; it is re-signed with the
// virtual log's key (the same deterministic payload).
func bundleFromEntity(t testing.TB, vs *ca.VirtualSigstore, e *ca.TestEntity) []byte {
	t.Helper()
	vc, err := e.VerificationContent()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := e.SignatureContent()
	if err != nil {
		t.Fatal(err)
	}
	env := sc.EnvelopeContent().RawEnvelope()
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	if err != nil {
		t.Fatal(err)
	}
	tss, err := e.Timestamps()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := e.TlogEntries()
	if err != nil {
		t.Fatal(err)
	}
	vm := &protobundle.VerificationMaterial{
		Content:                   &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw}},
		TimestampVerificationData: &protobundle.TimestampVerificationData{},
	}
	for _, ts := range tss {
		vm.TimestampVerificationData.Rfc3161Timestamps = append(vm.TimestampVerificationData.Rfc3161Timestamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: ts})
	}
	for _, entry := range entries {
		tle := proto.Clone(entry.TransparencyLogEntry()).(*protorekor.TransparencyLogEntry)
		tle.KindVersion = &protorekor.KindVersion{Kind: "dsse", Version: "0.0.1"}
		set, err := vs.RekorSignPayload(tlog.RekorPayload{
			Body:           base64.StdEncoding.EncodeToString(tle.GetCanonicalizedBody()),
			IntegratedTime: tle.GetIntegratedTime(),
			LogIndex:       tle.GetLogIndex(),
			LogID:          hex.EncodeToString(tle.GetLogId().GetKeyId()),
		})
		if err != nil {
			t.Fatal(err)
		}
		tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
		vm.TlogEntries = append(vm.TlogEntries, tle)
	}
	pb := &protobundle.Bundle{
		MediaType:            BundleMediaType,
		VerificationMaterial: vm,
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload: payload, PayloadType: env.PayloadType,
			Signatures: []*protodsse.Signature{{Sig: sig}},
		}},
	}
	b, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// DSSE bundles made by sigstore-go's virtual Sigstore (its certificate,
// Rekor entry and timestamp) in cosign's statement shape verify into the
// certificate's identity; the same made wrong do not.
func TestVirtualSigstoreBundles(t *testing.T) {
	ctx := context.Background()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	trusted := VerifyOptions{TrustedRoots: []root.TrustedMaterial{withoutCTLogs{vs}}}
	d := testDigest(30)
	st, err := Statement(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Identity{Subject: "dev@example.com", Issuer: emailIssuer}

	// Bundles v0.3 need the log's inclusion proof, which Attest leaves out.
	attest := func(stmt []byte, logged time.Time) *ca.TestEntity {
		t.Helper()
		e, err := vs.AttestAtTime(want.Subject, want.Issuer, stmt, logged, true)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	entity := attest(st, time.Now().Add(5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	good := bundleFromEntity(t, vs, entity)
	id, err := Verify(ctx, good, d, trusted)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if id != want {
		t.Errorf("identity %v, want %v", id, want)
	}

	// Logged (the log's only time) 20 minutes after the ten-minute
	// certificate expired, while the log key is valid.
	late := attest(st, time.Now().Add(30*time.Minute))
	slsa := []byte(fmt.Sprintf(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"x","digest":{"sha256":"%s"}}],"predicateType":"https://slsa.dev/provenance/v1","predicate":{}}`, d.Encoded()))
	provenance := attest(slsa, time.Now().Add(5*time.Minute))
	tests := []struct {
		name   string
		bundle []byte
		digest digest.Digest
		opts   VerifyOptions
		want   error
	}{
		{"another digest", good, testDigest(31), trusted, ErrDigestMismatch},
		{"logged after expiry", bundleFromEntity(t, vs, late), d, trusted, ErrUntrustedCertificate},
		{"no log entry, no timestamp", editBundle(t, good, func(m map[string]any) {
			vm := m["verificationMaterial"].(map[string]any)
			delete(vm, "tlogEntries")
			delete(vm, "timestampVerificationData")
		}), d, trusted, ErrUntrustedCertificate},
		{"log entry removed, timestamp kept", editBundle(t, good, func(m map[string]any) {
			delete(m["verificationMaterial"].(map[string]any), "tlogEntries")
		}), d, trusted, ErrUntrustedCertificate},
		{"untrusted CA", good, d, VerifyOptions{TrustedRoots: publicGoodRoots(t)}, ErrUntrustedCertificate},
		{"SCT required by a root with CT logs", good, d, VerifyOptions{TrustedRoots: []root.TrustedMaterial{vs}}, ErrUntrustedCertificate},
		{"provenance is not a signature", bundleFromEntity(t, vs, provenance), d, trusted, ErrPredicateType},
		{"malformed", good[:len(good)/2], d, trusted, ErrMalformedBundle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Verify(ctx, tt.bundle, tt.digest, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			t.Logf("fails as it should: %v", err)
		})
	}

	// A batch of keyless and key bundles: each counted once, by its kind.
	kp := newKey(t, Ed25519)
	res, err := VerifyAll(ctx, [][]byte{good, signKey(t, kp.Key, d), bundleFromEntity(t, vs, late)}, d,
		VerifyOptions{PublicKeys: []crypto.PublicKey{kp.Key.Public()}, TrustedRoots: trusted.TrustedRoots})
	if err != nil {
		t.Fatal(err)
	}
	gotIDs, _ := json.Marshal(res.Identities())
	wantIDs, _ := json.Marshal([]Identity{want, {KeyFingerprint: kp.Key.Fingerprint()}})
	if string(gotIDs) != string(wantIDs) || len(res.Failures) != 1 || res.Failures[0].Index != 2 {
		t.Errorf("batch: identities %s failures %v", gotIDs, res.Failures)
	}
}
