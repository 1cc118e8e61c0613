package sign

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/opencontainers/go-digest"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/options"
	"google.golang.org/protobuf/encoding/protojson"
)

// VerifyOptions says what to trust. A bundle signed with a key verifies
// against PublicKeys; a bundle with a certificate verifies against
// TrustedRoots. At least one of the two must be given.
type VerifyOptions struct {
	// PublicKeys are trusted signing keys (ECDSA P-256 or Ed25519, e.g.
	// from LoadPublicKey). Key bundles are checked without a transparency
	// log or timestamps, as `cosign verify --key --insecure-ignore-tlog`
	// does: a key is trusted for all time.
	PublicKeys []crypto.PublicKey
	// TrustedRoots are the Sigstore instances whose certificates are
	// trusted: PublicGoodTrustedRoot, private roots from LoadTrustedRoot,
	// or any sigstore-go TrustedMaterial. A certificate must chain to one
	// root and be proven valid at signing time by a timestamp that root
	// trusts (its Rekor v1 log's integrated time or a TSA's signed
	// timestamp); a root that lists Rekor logs also requires the signature
	// to be logged there, and one that lists CT logs requires the
	// certificate's SCT.
	TrustedRoots []root.TrustedMaterial
	// PredicateType is the statement predicate type to accept; "" means
	// PredicateType (a cosign signature). Another type (an audit
	// attestation) is never accepted as a signature, nor the reverse.
	PredicateType string
	// Accept, if set, vets each verified identity; a bundle whose identity
	// it refuses fails with ErrIdentityRejected. Without it every verified
	// identity is returned for the trust policy to match.
	Accept func(Identity) bool
}

// Verify checks one Sigstore bundle against a manifest digest and returns
// who signed it. The bundle must be v0.3 with a DSSE envelope of an in-toto
// statement of the expected predicate type whose subject is the manifest
// digest, signed by a trusted key or a certificate from a trusted root.
// Every error wraps one of the package's sentinels.
func Verify(ctx context.Context, bundleJSON []byte, manifestDigest digest.Digest, opts VerifyOptions) (Identity, error) {
	v, err := newVerifier(manifestDigest, opts)
	if err != nil {
		return Identity{}, err
	}
	if err := ctx.Err(); err != nil {
		return Identity{}, err
	}
	return v.verify(bundleJSON)
}

// Verified is a bundle of a batch that verified.
type Verified struct {
	// Index is the bundle's position in the slice given to VerifyAll.
	Index int
	// Identity is who signed it.
	Identity Identity
}

// BatchResult is the outcome of VerifyAll: every bundle is in exactly one
// of the two lists.
type BatchResult struct {
	// Verified lists the bundles that verified, in input order.
	Verified []Verified
	// Failures lists the bundles that did not, in input order, with why.
	Failures []Failure
}

// Identities returns the distinct verified identities, in first-seen
// order.
func (r BatchResult) Identities() []Identity {
	out := make([]Identity, 0, len(r.Verified))
	for _, v := range r.Verified {
		if !slices.Contains(out, v.Identity) {
			out = append(out, v.Identity)
		}
	}
	return out
}

// VerifyAll checks every bundle attached to one manifest (as Verify does)
// and sorts them into verified identities and failures. A bundle that fails
// never contributes an identity. The error is for unusable options or a
// cancelled context, never for a bad bundle.
func VerifyAll(ctx context.Context, bundles [][]byte, manifestDigest digest.Digest, opts VerifyOptions) (BatchResult, error) {
	v, err := newVerifier(manifestDigest, opts)
	if err != nil {
		return BatchResult{}, err
	}
	var res BatchResult
	for i, b := range bundles {
		if err := ctx.Err(); err != nil {
			return BatchResult{}, err
		}
		id, err := v.verify(b)
		if err != nil {
			res.Failures = append(res.Failures, Failure{Index: i, Err: err})
			continue
		}
		res.Verified = append(res.Verified, Verified{Index: i, Identity: id})
	}
	return res, nil
}

// verifier holds what is prepared once for a batch: the expected digest,
// a sigstore-go verifier per trusted key variant and per trusted root.
type verifier struct {
	hexDigest     string
	rawDigest     []byte
	predicateType string
	keys          []trustedKey
	roots         []*verify.Verifier
	accept        func(Identity) bool
}

type trustedKey struct {
	fingerprint string
	hint        string
	// variants are verifiers for each way the key may have signed: one for
	// ECDSA; pure Ed25519 (skillpm, cosign without a log) then Ed25519ph
	// (cosign sign and attest-blob with Ed25519 keys).
	variants []*verify.Verifier
}

func newVerifier(manifestDigest digest.Digest, opts VerifyOptions) (*verifier, error) {
	hexDigest, err := sha256Hex(manifestDigest)
	if err != nil {
		return nil, err
	}
	raw, _ := hex.DecodeString(hexDigest) // sha256Hex validated it
	if len(opts.PublicKeys) == 0 && len(opts.TrustedRoots) == 0 {
		return nil, ErrNoTrust
	}
	v := &verifier{hexDigest: hexDigest, rawDigest: raw, predicateType: opts.PredicateType, accept: opts.Accept}
	if v.predicateType == "" {
		v.predicateType = PredicateType
	}
	for i, pub := range opts.PublicKeys {
		k, err := newTrustedKey(pub)
		if err != nil {
			return nil, fmt.Errorf("trusted public key %d: %w", i, err)
		}
		v.keys = append(v.keys, k)
	}
	for i, tm := range opts.TrustedRoots {
		if tm == nil {
			return nil, fmt.Errorf("trusted root %d is nil", i)
		}
		sev, err := verify.NewVerifier(tm, rootVerifierOptions(tm)...)
		if err != nil {
			return nil, fmt.Errorf("trusted root %d: %w", i, err)
		}
		v.roots = append(v.roots, sev)
	}
	return v, nil
}

// rootVerifierOptions derives what a certificate bundle must carry from
// what the root can check: a trusted time always, a log entry if the root
// has logs, an SCT if it has CT logs. The public-good root has all three,
// which is what `cosign verify` requires by default.
func rootVerifierOptions(tm root.TrustedMaterial) []verify.VerifierOption {
	opts := []verify.VerifierOption{verify.WithObserverTimestamps(1)}
	if len(tm.RekorLogs()) > 0 {
		opts = append(opts, verify.WithTransparencyLog(1))
	}
	if len(tm.CTLogs()) > 0 {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	return opts
}

func newTrustedKey(pub crypto.PublicKey) (trustedKey, error) {
	alg, err := algorithmOf(pub)
	if err != nil {
		return trustedKey{}, err
	}
	fp := Fingerprint(pub)
	rawFP, _ := hex.DecodeString(fp[len("sha256:"):])
	k := trustedKey{fingerprint: fp, hint: base64.StdEncoding.EncodeToString(rawFP)}
	var sigVerifiers []signature.Verifier
	switch alg {
	case ECDSAP256:
		sv, err := signature.LoadECDSAVerifier(pub.(*ecdsa.PublicKey), crypto.SHA256)
		if err != nil {
			return trustedKey{}, err
		}
		sigVerifiers = append(sigVerifiers, sv)
	case Ed25519:
		pure, err := signature.LoadED25519Verifier(pub.(ed25519.PublicKey))
		if err != nil {
			return trustedKey{}, err
		}
		ph, err := signature.LoadVerifierWithOpts(pub, options.WithED25519ph())
		if err != nil {
			return trustedKey{}, err
		}
		sigVerifiers = append(sigVerifiers, pure, ph)
	}
	for _, sv := range sigVerifiers {
		expiring := root.NewExpiringKey(sv, time.Time{}, time.Time{})
		tm := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
			return expiring, nil
		})
		sev, err := verify.NewVerifier(tm, verify.WithNoObserverTimestamps())
		if err != nil {
			return trustedKey{}, err
		}
		k.variants = append(k.variants, sev)
	}
	return k, nil
}

// verify checks one bundle. The statement is read before the signature is
// checked only to fail early with a precise reason; sigstore-go checks the
// signature over exactly those bytes and the subject digest again.
func (v *verifier) verify(data []byte) (Identity, error) {
	b, env, err := parseBundle(data)
	if err != nil {
		return Identity{}, err
	}
	if err := v.checkStatement(env.GetPayload()); err != nil {
		return Identity{}, err
	}
	vc, err := b.VerificationContent()
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %v", ErrMalformedBundle, err)
	}
	var id Identity
	switch {
	case vc.Certificate() != nil:
		id, err = v.verifyCertificate(b)
	case vc.PublicKey() != nil:
		id, err = v.verifyKey(b, vc.PublicKey().Hint())
	default:
		err = fmt.Errorf("%w: no certificate or public key", ErrMalformedBundle)
	}
	if err != nil {
		return Identity{}, err
	}
	if v.accept != nil && !v.accept(id) {
		return Identity{}, fmt.Errorf("%w: %s", ErrIdentityRejected, id)
	}
	return id, nil
}

func parseBundle(data []byte) (*bundle.Bundle, *protodsse.Envelope, error) {
	if len(data) > MaxBundleSize {
		return nil, nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrBundleTooLarge, len(data), MaxBundleSize)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, fmt.Errorf("%w: empty", ErrMalformedBundle)
	}
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(data, &pb); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrMalformedBundle, err)
	}
	b, err := bundle.NewBundle(&pb)
	if err != nil {
		if errors.Is(err, bundle.ErrUnsupportedMediaType) {
			return nil, nil, fmt.Errorf("%w: %v", ErrUnsupportedBundle, err)
		}
		return nil, nil, fmt.Errorf("%w: %v", ErrMalformedBundle, err)
	}
	if !b.MinVersion("v0.3") {
		return nil, nil, fmt.Errorf("%w: bundle media type %q, want %q", ErrUnsupportedBundle, pb.GetMediaType(), BundleMediaType)
	}
	env := pb.GetDsseEnvelope()
	if env == nil {
		return nil, nil, fmt.Errorf("%w: a message signature, not a DSSE envelope", ErrUnsupportedBundle)
	}
	if env.GetPayloadType() != InTotoPayloadType {
		return nil, nil, fmt.Errorf("%w: DSSE payload type %q, want %q", ErrUnsupportedBundle, env.GetPayloadType(), InTotoPayloadType)
	}
	if len(env.GetSignatures()) != 1 {
		return nil, nil, fmt.Errorf("%w: DSSE envelope with %d signatures, want 1", ErrMalformedBundle, len(env.GetSignatures()))
	}
	return b, env, nil
}

// checkStatement reads the subjects and predicate type of the statement.
func (v *verifier) checkStatement(payload []byte) error {
	var st struct {
		Type    string `json:"_type"`
		Subject []struct {
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
		PredicateType string `json:"predicateType"`
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&st); err != nil {
		return fmt.Errorf("%w: statement: %v", ErrMalformedBundle, err)
	}
	if st.Type != StatementType {
		return fmt.Errorf("%w: statement type %q, want %q", ErrUnsupportedBundle, st.Type, StatementType)
	}
	if st.PredicateType != v.predicateType {
		return fmt.Errorf("%w: %q, want %q", ErrPredicateType, st.PredicateType, v.predicateType)
	}
	for _, s := range st.Subject {
		if s.Digest["sha256"] == v.hexDigest {
			return nil
		}
	}
	var got []string
	for _, s := range st.Subject {
		if d, ok := s.Digest["sha256"]; ok {
			got = append(got, "sha256:"+d)
		}
	}
	return fmt.Errorf("%w: want sha256:%s, bundle signs %v", ErrDigestMismatch, v.hexDigest, got)
}

func (v *verifier) policy(extra verify.PolicyOption) verify.PolicyBuilder {
	return verify.NewPolicy(verify.WithArtifactDigest("sha256", v.rawDigest), extra)
}

func (v *verifier) verifyKey(b *bundle.Bundle, hint string) (Identity, error) {
	if len(v.keys) == 0 {
		return Identity{}, fmt.Errorf("%w: the bundle is signed with a key and no public keys are trusted", ErrUntrustedKey)
	}
	// The hint is unauthenticated: it only orders the attempts.
	order := make([]int, 0, len(v.keys))
	for i, k := range v.keys {
		if k.hint == hint {
			order = append(order, i)
		}
	}
	for i, k := range v.keys {
		if k.hint != hint {
			order = append(order, i)
		}
	}
	var errs []error
	for _, i := range order {
		k := v.keys[i]
		for _, sev := range k.variants {
			if _, err := sev.Verify(b, v.policy(verify.WithKey())); err == nil {
				return Identity{KeyFingerprint: k.fingerprint}, nil
			} else if len(errs) == 0 {
				errs = append(errs, err)
			}
		}
	}
	return Identity{}, fmt.Errorf("%w (%d keys tried): %v", ErrUntrustedKey, len(v.keys), errors.Join(errs...))
}

func (v *verifier) verifyCertificate(b *bundle.Bundle) (Identity, error) {
	if len(v.roots) == 0 {
		return Identity{}, fmt.Errorf("%w: the bundle is signed with a certificate and no trusted roots are configured", ErrUntrustedCertificate)
	}
	var errs []error
	for _, sev := range v.roots {
		res, err := sev.Verify(b, v.policy(verify.WithoutIdentitiesUnsafe()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if res.Signature == nil || res.Signature.Certificate == nil {
			errs = append(errs, errors.New("no certificate in the verification result"))
			continue
		}
		c := res.Signature.Certificate
		if c.SubjectAlternativeName == "" || c.Extensions.Issuer == "" {
			errs = append(errs, fmt.Errorf("certificate without a subject or OIDC issuer (subject %q, issuer %q)", c.SubjectAlternativeName, c.Extensions.Issuer))
			continue
		}
		return Identity{Subject: c.SubjectAlternativeName, Issuer: c.Extensions.Issuer}, nil
	}
	return Identity{}, fmt.Errorf("%w: %v", ErrUntrustedCertificate, errors.Join(errs...))
}
