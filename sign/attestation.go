package sign

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
)

// Attestations are in-toto statements about a manifest digest that carry a
// predicate other than cosign's empty signature predicate (an audit
// verdict, say). They are signed and bundled exactly as signatures are, so
// the same trust material verifies them; VerifyOptions.PredicateType keeps
// the two kinds apart in both directions.

// AttestationStatement returns the in-toto Statement v1 that SignStatement
// signs: the subject of Statement (the manifest digest, annotations always
// present) with predicateType and predicate, compacted. predicate must be
// a JSON object.
func AttestationStatement(manifest digest.Digest, predicateType string, predicate json.RawMessage, annotations map[string]string) ([]byte, error) {
	if predicateType == "" {
		return nil, fmt.Errorf("%w: no predicate type", ErrInvalidPredicate)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(predicate, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("%w: %s: the predicate must be a JSON object", ErrInvalidPredicate, predicateType)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, predicate); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPredicate, err)
	}
	hexDigest, err := sha256Hex(manifest)
	if err != nil {
		return nil, err
	}
	ann := maps.Clone(annotations)
	if ann == nil {
		ann = map[string]string{}
	}
	st := statement{
		Type:          StatementType,
		Subject:       []subject{{Digest: map[string]string{"sha256": hexDigest}, Annotations: ann}},
		PredicateType: predicateType,
		Predicate:     json.RawMessage(compact.Bytes()),
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(st); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// SignStatement signs an attestation about a manifest: the statement of
// AttestationStatement (predicateType, predicate, opts.Annotations) in a
// DSSE envelope, bundled exactly as Sign bundles a signature, with the
// same signers and services. Attach it with the registry's AttachBundle
// and the same predicate type; verify it with VerifyAttestations.
func SignStatement(ctx context.Context, manifest ocispec.Descriptor, predicateType string, predicate json.RawMessage, opts SignOptions) (*Signature, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	payload, err := AttestationStatement(manifest.Digest, predicateType, predicate, opts.Annotations)
	if err != nil {
		return nil, err
	}
	return signPayload(ctx, manifest, payload, opts)
}

// signPayload bundles a DSSE envelope of an in-toto payload. It is Sign's
// body for any statement (Sign keeps its own copy of it).
func signPayload(ctx context.Context, manifest ocispec.Descriptor, payload []byte, opts SignOptions) (*Signature, error) {
	content := &sgsign.DSSEData{Data: payload, PayloadType: InTotoPayloadType}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultServiceTimeout
	}
	now := time.Now()
	bo := sgsign.BundleOptions{Context: ctx}
	var kp sgsign.Keypair
	var err error
	if opts.Key != nil {
		kp = fileKeypair{opts.Key}
		if opts.TransparencyLog {
			if bo.TransparencyLogs, err = rekors(opts.SigningConfig, now, timeout); err != nil {
				return nil, err
			}
			if len(bo.TransparencyLogs) == 0 {
				return nil, fmt.Errorf("%w: no Rekor log to record the key signature in", ErrNoService)
			}
		}
	} else {
		ephemeral, err := sgsign.NewEphemeralKeypair(nil)
		if err != nil {
			return nil, fmt.Errorf("generating ephemeral key: %w", err)
		}
		kp = ephemeral
		fulcio, err := root.SelectService(opts.SigningConfig.FulcioCertificateAuthorityURLs(), sgsign.FulcioAPIVersions, now)
		if err != nil {
			return nil, fmt.Errorf("%w: Fulcio: %v", ErrNoService, err)
		}
		bo.CertificateProvider = sgsign.NewFulcio(&sgsign.FulcioOptions{
			BaseURL: fulcio.URL, Timeout: timeout, Retries: 1, Transport: opts.Transport,
		})
		bo.CertificateProviderOptions = &sgsign.CertificateProviderOptions{IDToken: opts.IdentityToken}
		if bo.TimestampAuthorities, err = timestampAuthorities(opts.SigningConfig, now, timeout, opts.Transport); err != nil {
			return nil, err
		}
		var v2Only bool
		if bo.TransparencyLogs, v2Only, err = rekorsWithVersion(opts.SigningConfig, now, timeout); err != nil {
			return nil, err
		}
		if len(bo.TimestampAuthorities) == 0 && (len(bo.TransparencyLogs) == 0 || v2Only) {
			return nil, fmt.Errorf("%w: keyless signing needs a timestamp authority or a Rekor v1 log", ErrNoService)
		}
	}
	pb, err := sgsign.Bundle(content, kp, bo)
	if err != nil {
		return nil, fmt.Errorf("signing %s: %w", manifest.Digest, err)
	}
	raw, err := protojson.Marshal(pb)
	if err != nil {
		return nil, fmt.Errorf("encoding bundle: %w", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("encoding bundle: %w", err)
	}
	id, err := signerIdentity(opts.Key, pb)
	if err != nil {
		return nil, err
	}
	return &Signature{Bundle: compact.Bytes(), Manifest: manifest, Identity: id}, nil
}

// VerifiedAttestation is an attestation of a batch that verified: who
// signed it and the predicate it signed.
type VerifiedAttestation struct {
	// Index is the bundle's position in the slice given to
	// VerifyAttestations.
	Index int
	// Identity is who signed it.
	Identity Identity
	// Predicate is the statement's predicate, exactly as signed.
	Predicate json.RawMessage
}

// AttestationResult is the outcome of VerifyAttestations: every bundle is
// in exactly one of the two lists.
type AttestationResult struct {
	// Verified lists the attestations that verified, in input order.
	Verified []VerifiedAttestation
	// Failures lists the bundles that did not, in input order, with why.
	Failures []Failure
}

// VerifyAttestations checks every bundle as VerifyAll does (for
// opts.PredicateType, which must be set: an attestation is never a
// signature) and also returns each verified statement's predicate. The
// predicate is read from the very payload whose signature verified.
func VerifyAttestations(ctx context.Context, bundles [][]byte, manifestDigest digest.Digest, opts VerifyOptions) (AttestationResult, error) {
	if opts.PredicateType == "" {
		return AttestationResult{}, fmt.Errorf("%w: VerifyAttestations needs VerifyOptions.PredicateType", ErrInvalidPredicate)
	}
	v, err := newVerifier(manifestDigest, opts)
	if err != nil {
		return AttestationResult{}, err
	}
	var res AttestationResult
	for i, b := range bundles {
		if err := ctx.Err(); err != nil {
			return AttestationResult{}, err
		}
		id, err := v.verify(b)
		var pred json.RawMessage
		if err == nil {
			pred, err = statementPredicate(b)
		}
		if err != nil {
			res.Failures = append(res.Failures, Failure{Index: i, Err: err})
			continue
		}
		res.Verified = append(res.Verified, VerifiedAttestation{Index: i, Identity: id, Predicate: pred})
	}
	return res, nil
}

// statementPredicate returns the predicate of a bundle's statement.
func statementPredicate(bundleJSON []byte) (json.RawMessage, error) {
	_, env, err := parseBundle(bundleJSON)
	if err != nil {
		return nil, err
	}
	var st struct {
		Predicate json.RawMessage `json:"predicate"`
	}
	if err := json.Unmarshal(env.GetPayload(), &st); err != nil {
		return nil, fmt.Errorf("%w: statement: %v", ErrMalformedBundle, err)
	}
	return st.Predicate, nil
}
