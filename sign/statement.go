package sign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/opencontainers/go-digest"
)

// What a skillpm signature is, in cosign's words. The registry package
// needs these to attach a bundle as an OCI referrer exactly as `cosign sign`
// (v3, new bundle format) does.
const (
	// BundleMediaType is the Sigstore bundle v0.3 media type: the referrer
	// manifest's artifactType and its one layer's media type.
	BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// PredicateType is the in-toto predicate type of a cosign image
	// signature (`cosign sign` with the new bundle format).
	PredicateType = "https://sigstore.dev/cosign/sign/v1"
	// InTotoPayloadType is the DSSE payload type of an in-toto statement.
	InTotoPayloadType = "application/vnd.in-toto+json"
	// StatementType is the in-toto Statement v1 type.
	StatementType = "https://in-toto.io/Statement/v1"
	// AnnotationBundleContent is the referrer manifest annotation saying
	// what the bundle holds; its value is BundleContentDSSE.
	AnnotationBundleContent = "dev.sigstore.bundle.content"
	// BundleContentDSSE is the AnnotationBundleContent value for a bundle
	// holding a DSSE envelope.
	BundleContentDSSE = "dsse-envelope"
	// AnnotationBundlePredicateType is the referrer manifest annotation
	// carrying the statement's predicate type.
	AnnotationBundlePredicateType = "dev.sigstore.bundle.predicateType"
)

// MaxBundleSize bounds the bundles Verify reads. Real bundles are a few
// kilobytes; the bound keeps a hostile registry from feeding a huge one.
const MaxBundleSize = 1 << 20

// ReferrerAnnotations returns the annotations cosign puts on the referrer
// manifest of a signature bundle (cosign adds a creation time too, which is
// the registry package's to set).
func ReferrerAnnotations() map[string]string {
	return map[string]string{
		AnnotationBundleContent:       BundleContentDSSE,
		AnnotationBundlePredicateType: PredicateType,
	}
}

// statement is an in-toto Statement v1 in the exact shape cosign v3 signs
// for an image: one subject with only a digest and annotations (always
// present, "{}" when empty; no name) and an empty predicate.
type statement struct {
	Type          string          `json:"_type"`
	Subject       []subject       `json:"subject"`
	PredicateType string          `json:"predicateType"`
	Predicate     json.RawMessage `json:"predicate"`
}

type subject struct {
	Name        string            `json:"name,omitempty"`
	Digest      map[string]string `json:"digest"`
	Annotations map[string]string `json:"annotations"`
}

// Statement returns the in-toto statement skillpm signs for a manifest
// digest: the same bytes `cosign sign --new-bundle-format` signs for that
// digest (cosign's `-a key=value` annotations go in annotations).
func Statement(manifest digest.Digest, annotations map[string]string) ([]byte, error) {
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
		PredicateType: PredicateType,
		Predicate:     json.RawMessage("{}"),
	}
	// protojson (what cosign uses) does not escape <, > and &; match it.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(st); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// sha256Hex checks that d is a well-formed sha256 digest and returns its
// hex part.
func sha256Hex(d digest.Digest) (string, error) {
	if err := d.Validate(); err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrInvalidDigest, string(d), err)
	}
	if d.Algorithm() != digest.SHA256 {
		return "", fmt.Errorf("%w: %q uses %s", ErrInvalidDigest, string(d), d.Algorithm())
	}
	return d.Encoded(), nil
}
