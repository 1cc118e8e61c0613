package sign

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/options"
	"google.golang.org/protobuf/encoding/protojson"
)

// cosignStatement is what `cosign sign --new-bundle-format` (v3.1.3) signs
// for a manifest, captured from a bundle it pushed to a registry.
const cosignStatement = `{"_type":"https://in-toto.io/Statement/v1","subject":[{"digest":{"sha256":"%s"},"annotations":{}}],"predicateType":"https://sigstore.dev/cosign/sign/v1","predicate":{}}`

func TestStatementIsCosigns(t *testing.T) {
	d := testDigest(7)
	got, err := Statement(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(cosignStatement, d.Encoded()); string(got) != want {
		t.Errorf("Statement =\n%s\nwant\n%s", got, want)
	}
	got, err = Statement(d, map[string]string{"skill": "a&b<c>"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte(`"annotations":{"skill":"a&b<c>"}`)) {
		t.Errorf("annotations not as protojson writes them: %s", got)
	}
	for _, bad := range []digest.Digest{"", "sha256:abc", "sha512:" + digest.Digest(strings.Repeat("ab", 64)), digest.Digest(strings.ToUpper(string(d)))} {
		if _, err := Statement(bad, nil); !errors.Is(err, ErrInvalidDigest) {
			t.Errorf("Statement(%q): err = %v, want ErrInvalidDigest", bad, err)
		}
	}
}

func TestSignVerifyKey(t *testing.T) {
	ctx := context.Background()
	for _, alg := range []Algorithm{ECDSAP256, Ed25519} {
		t.Run(string(alg), func(t *testing.T) {
			kp := newKey(t, alg)
			d := testDigest(1)
			sig, err := Sign(ctx, manifestDesc(d), SignOptions{Key: kp.Key})
			if err != nil {
				t.Fatal(err)
			}
			if want := (Identity{KeyFingerprint: kp.Key.Fingerprint()}); sig.Identity != want {
				t.Errorf("Signature.Identity = %v, want %v", sig.Identity, want)
			}
			if sig.Manifest.Digest != d || sig.Manifest.Size != 512 {
				t.Errorf("Signature.Manifest = %+v", sig.Manifest)
			}
			pub, err := LoadPublicKey(kp.PublicPEM)
			if err != nil {
				t.Fatal(err)
			}
			id, err := Verify(ctx, sig.Bundle, d, VerifyOptions{PublicKeys: []crypto.PublicKey{pub}})
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if !id.IsKey() || id.KeyFingerprint != kp.Key.Fingerprint() {
				t.Errorf("Verify identity = %v, want key %s", id, kp.Key.Fingerprint())
			}
		})
	}
}

func TestBundleShape(t *testing.T) {
	kp := newKey(t, ECDSAP256)
	d := testDigest(2)
	b := signKey(t, kp.Key, d)
	var m struct {
		MediaType            string `json:"mediaType"`
		VerificationMaterial struct {
			PublicKey struct {
				Hint string `json:"hint"`
			} `json:"publicKey"`
			TlogEntries []any `json:"tlogEntries"`
		} `json:"verificationMaterial"`
		DSSEEnvelope struct {
			Payload     []byte `json:"payload"`
			PayloadType string `json:"payloadType"`
			Signatures  []struct {
				Sig []byte `json:"sig"`
			} `json:"signatures"`
		} `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.MediaType != BundleMediaType {
		t.Errorf("mediaType %q", m.MediaType)
	}
	if want := string(kp.Key.hint()); m.VerificationMaterial.PublicKey.Hint != want {
		t.Errorf("hint %q, want %q", m.VerificationMaterial.PublicKey.Hint, want)
	}
	if len(m.VerificationMaterial.TlogEntries) != 0 {
		t.Error("a key signature was logged without TransparencyLog")
	}
	if m.DSSEEnvelope.PayloadType != InTotoPayloadType || len(m.DSSEEnvelope.Signatures) != 1 {
		t.Errorf("envelope %q with %d signatures", m.DSSEEnvelope.PayloadType, len(m.DSSEEnvelope.Signatures))
	}
	if want := fmt.Sprintf(cosignStatement, d.Encoded()); string(m.DSSEEnvelope.Payload) != want {
		t.Errorf("payload\n%s\nwant\n%s", m.DSSEEnvelope.Payload, want)
	}
	if again := signKey(t, kp.Key, d); len(again) == 0 || bytes.Contains(again, []byte("\n")) {
		t.Error("bundle JSON is not compact")
	}
	if ann := ReferrerAnnotations(); ann[AnnotationBundleContent] != "dsse-envelope" || ann[AnnotationBundlePredicateType] != PredicateType {
		t.Errorf("ReferrerAnnotations = %v", ann)
	}
}

func TestVerifyKeyFailures(t *testing.T) {
	ctx := context.Background()
	signer := newKey(t, ECDSAP256)
	other := newKey(t, ECDSAP256)
	edOther := newKey(t, Ed25519)
	d := testDigest(3)
	good := signKey(t, signer.Key, d)
	trusted := VerifyOptions{PublicKeys: []crypto.PublicKey{signer.Key.Public()}}

	otherStatement := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf(cosignStatement, testDigest(4).Encoded())))
	msgSig, err := sgsign.Bundle(&sgsign.PlainData{Data: []byte("not a statement")}, fileKeypair{signer.Key}, sgsign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msgSigJSON, err := protojson.Marshal(msgSig)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		bundle []byte
		digest digest.Digest
		opts   VerifyOptions
		want   error
	}{
		{"wrong key", good, d, VerifyOptions{PublicKeys: []crypto.PublicKey{other.Key.Public(), edOther.Key.Public()}}, ErrUntrustedKey},
		{"another digest", good, testDigest(4), trusted, ErrDigestMismatch},
		{"payload retargeted to another digest", editBundle(t, good, func(m map[string]any) {
			dsseOf(m)["payload"] = otherStatement
		}), testDigest(4), trusted, ErrUntrustedKey},
		{"signature flipped", editBundle(t, good, func(m map[string]any) {
			sigs := dsseOf(m)["signatures"].([]any)
			s := sigs[0].(map[string]any)
			raw, _ := base64.StdEncoding.DecodeString(s["sig"].(string))
			raw[len(raw)/2] ^= 0x01
			s["sig"] = base64.StdEncoding.EncodeToString(raw)
		}), d, trusted, ErrUntrustedKey},
		{"payload type changed", editBundle(t, good, func(m map[string]any) {
			dsseOf(m)["payloadType"] = "text/plain"
		}), d, trusted, ErrUnsupportedBundle},
		{"two signatures", editBundle(t, good, func(m map[string]any) {
			sigs := dsseOf(m)["signatures"].([]any)
			dsseOf(m)["signatures"] = append(sigs, sigs[0])
		}), d, trusted, ErrMalformedBundle},
		{"no signature", editBundle(t, good, func(m map[string]any) {
			dsseOf(m)["signatures"] = []any{}
		}), d, trusted, ErrMalformedBundle},
		{"unknown media type", editBundle(t, good, func(m map[string]any) {
			m["mediaType"] = "application/json"
		}), d, trusted, ErrUnsupportedBundle},
		{"no verification material", editBundle(t, good, func(m map[string]any) {
			delete(m, "verificationMaterial")
		}), d, trusted, ErrMalformedBundle},
		{"message signature", msgSigJSON, d, trusted, ErrUnsupportedBundle},
		{"malformed JSON", []byte(`{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",`), d, trusted, ErrMalformedBundle},
		{"empty", nil, d, trusted, ErrMalformedBundle},
		{"JSON array", []byte(`[]`), d, trusted, ErrMalformedBundle},
		{"statement not JSON", editBundle(t, good, func(m map[string]any) {
			dsseOf(m)["payload"] = base64.StdEncoding.EncodeToString([]byte("nope"))
		}), d, trusted, ErrMalformedBundle},
		{"too large", append(bytes.Repeat([]byte(" "), MaxBundleSize), good...), d, trusted, ErrBundleTooLarge},
		{"other predicate type expected", good, d, VerifyOptions{PublicKeys: trusted.PublicKeys, PredicateType: "https://skillpm.dev/audit/v1"}, ErrPredicateType},
		{"key bundle, only roots trusted", good, d, VerifyOptions{TrustedRoots: publicGoodRoots(t)}, ErrUntrustedKey},
		{"identity refused", good, d, VerifyOptions{PublicKeys: trusted.PublicKeys, Accept: func(Identity) bool { return false }}, ErrIdentityRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := Verify(ctx, tt.bundle, tt.digest, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			t.Logf("fails as it should: %v", err)
			if id != (Identity{}) {
				t.Errorf("a failed bundle returned identity %v", id)
			}
		})
	}

	// The good bundle still verifies: the cases above tampered with copies.
	if _, err := Verify(ctx, good, d, trusted); err != nil {
		t.Fatalf("good bundle: %v", err)
	}
	// A malformed bundle says so in plain words.
	_, err = Verify(ctx, []byte("{not json"), d, trusted)
	if err == nil || !strings.Contains(err.Error(), "malformed Sigstore bundle") {
		t.Errorf("malformed bundle error %q does not say so", err)
	}
}

func TestVerifyOptionErrors(t *testing.T) {
	ctx := context.Background()
	kp := newKey(t, ECDSAP256)
	b := signKey(t, kp.Key, testDigest(1))
	if _, err := Verify(ctx, b, testDigest(1), VerifyOptions{}); !errors.Is(err, ErrNoTrust) {
		t.Errorf("no trust: err = %v", err)
	}
	if _, err := Verify(ctx, b, "sha256:xyz", VerifyOptions{PublicKeys: []crypto.PublicKey{kp.Key.Public()}}); !errors.Is(err, ErrInvalidDigest) {
		t.Errorf("bad digest: err = %v", err)
	}
	if _, err := Verify(ctx, b, testDigest(1), VerifyOptions{PublicKeys: []crypto.PublicKey{"not a key"}}); !errors.Is(err, ErrUnsupportedKey) {
		t.Errorf("bad key: err = %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Verify(cancelled, b, testDigest(1), VerifyOptions{PublicKeys: []crypto.PublicKey{kp.Key.Public()}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestSignOptionsValidate(t *testing.T) {
	key := newKey(t, ECDSAP256).Key
	sc, err := PublicGoodSigningConfig()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts SignOptions
		want error
	}{
		{"key", SignOptions{Key: key}, nil},
		{"key logged", SignOptions{Key: key, TransparencyLog: true, SigningConfig: sc}, nil},
		{"keyless", SignOptions{IdentityToken: "a.b.c", SigningConfig: sc}, nil},
		{"nothing", SignOptions{}, ErrNoSigner},
		{"both", SignOptions{Key: key, IdentityToken: "a.b.c", SigningConfig: sc}, ErrConflictingSigners},
		{"keyless without config", SignOptions{IdentityToken: "a.b.c"}, ErrNoSigningConfig},
		{"key logged without config", SignOptions{Key: key, TransparencyLog: true}, ErrNoSigningConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.opts.Validate(); !errors.Is(err, tt.want) {
				t.Errorf("Validate() = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := Sign(context.Background(), manifestDesc(testDigest(1)), SignOptions{}); !errors.Is(err, ErrNoSigner) {
		t.Errorf("Sign with no signer: %v", err)
	}
	if _, err := Sign(context.Background(), manifestDesc("sha256:nope"), SignOptions{Key: key}); !errors.Is(err, ErrInvalidDigest) {
		t.Errorf("Sign with a bad digest: %v", err)
	}
}

func TestVerifyAll(t *testing.T) {
	ctx := context.Background()
	a := newKey(t, ECDSAP256)
	b := newKey(t, Ed25519)
	untrusted := newKey(t, ECDSAP256)
	d := testDigest(5)
	bundles := [][]byte{
		signKey(t, a.Key, d),
		[]byte("garbage"),
		signKey(t, b.Key, d),
		signKey(t, untrusted.Key, d),
		signKey(t, a.Key, testDigest(6)),
		signKey(t, a.Key, d),
	}
	res, err := VerifyAll(ctx, bundles, d, VerifyOptions{PublicKeys: []crypto.PublicKey{a.Key.Public(), b.Key.Public()}})
	if err != nil {
		t.Fatal(err)
	}
	idA, idB := Identity{KeyFingerprint: a.Key.Fingerprint()}, Identity{KeyFingerprint: b.Key.Fingerprint()}
	wantVerified := []Verified{{0, idA}, {2, idB}, {5, idA}}
	if fmt.Sprint(res.Verified) != fmt.Sprint(wantVerified) {
		t.Errorf("Verified = %v, want %v", res.Verified, wantVerified)
	}
	wantFail := map[int]error{1: ErrMalformedBundle, 3: ErrUntrustedKey, 4: ErrDigestMismatch}
	if len(res.Failures) != len(wantFail) {
		t.Fatalf("Failures = %v", res.Failures)
	}
	for _, f := range res.Failures {
		if !errors.Is(f, wantFail[f.Index]) {
			t.Errorf("failure %v, want %v", f, wantFail[f.Index])
		}
		if !strings.HasPrefix(f.Error(), fmt.Sprintf("bundle %d: ", f.Index)) {
			t.Errorf("Failure.Error() = %q", f.Error())
		}
	}
	if got := res.Identities(); fmt.Sprint(got) != fmt.Sprint([]Identity{idA, idB}) {
		t.Errorf("Identities() = %v", got)
	}
	if _, err := VerifyAll(ctx, bundles, d, VerifyOptions{}); !errors.Is(err, ErrNoTrust) {
		t.Errorf("no trust: %v", err)
	}
}

// The hint is not trusted: a bundle with a wrong hint still verifies with
// the right key, and the identity is the key that verified, not the hint.
func TestVerifyIgnoresHint(t *testing.T) {
	a, b := newKey(t, ECDSAP256), newKey(t, ECDSAP256)
	d := testDigest(8)
	bundle := editBundle(t, signKey(t, a.Key, d), func(m map[string]any) {
		m["verificationMaterial"].(map[string]any)["publicKey"].(map[string]any)["hint"] = string(b.Key.hint())
	})
	id, err := Verify(context.Background(), bundle, d, VerifyOptions{PublicKeys: []crypto.PublicKey{b.Key.Public(), a.Key.Public()}})
	if err != nil {
		t.Fatal(err)
	}
	if id.KeyFingerprint != a.Key.Fingerprint() {
		t.Errorf("identity %v, want key a %s", id, a.Key.Fingerprint())
	}
}

// ed25519phKeypair signs like cosign does with an Ed25519 key when it
// logs the signature (and always for `cosign sign`): Ed25519ph.
type ed25519phKeypair struct {
	fileKeypair
	sv signature.SignerVerifier
}

func (k ed25519phKeypair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return protocommon.PublicKeyDetails_PKIX_ED25519_PH
}

func (k ed25519phKeypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	sig, err := k.sv.SignMessage(bytes.NewReader(data))
	return sig, data, err
}

func TestVerifyEd25519ph(t *testing.T) {
	kp := newKey(t, Ed25519)
	sv, err := signature.LoadSignerVerifierWithOpts(kp.Key.signer, options.WithED25519ph())
	if err != nil {
		t.Fatal(err)
	}
	d := testDigest(9)
	payload, err := Statement(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := sgsign.Bundle(&sgsign.DSSEData{Data: payload, PayloadType: InTotoPayloadType}, ed25519phKeypair{fileKeypair{kp.Key}, sv}, sgsign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	// Not a pure Ed25519 signature...
	sig := pb.GetDsseEnvelope().GetSignatures()[0].GetSig()
	if ed25519.Verify(kp.Key.Public().(ed25519.PublicKey), payload, sig) {
		t.Fatal("test keypair made a pure Ed25519 signature")
	}
	// ...yet the key's signature.
	id, err := Verify(context.Background(), b, d, VerifyOptions{PublicKeys: []crypto.PublicKey{kp.Key.Public()}})
	if err != nil {
		t.Fatal(err)
	}
	if id.KeyFingerprint != kp.Key.Fingerprint() {
		t.Errorf("identity %v", id)
	}
}
