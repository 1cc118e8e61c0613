// Package sign signs skill manifest digests with Sigstore (a key or a
// keyless identity) and verifies Sigstore bundles back into the identities
// that signed them. It is pure crypto over digests and bundles: it never
// talks to a registry.
package sign

import "fmt"

// Identity is who produced a verified signature. Exactly one of the two
// forms is set: a public key (KeyFingerprint) or a certificate identity
// (Subject and Issuer, from a Fulcio-style certificate).
type Identity struct {
	// KeyFingerprint is "sha256:<hex>" of the signer's public key in DER
	// (PKIX) form, for key signatures.
	KeyFingerprint string `json:"keyFingerprint,omitempty" yaml:"keyFingerprint,omitempty"`
	// Subject is the certificate's subject alternative name: an email
	// address or a URI (e.g. a CI workflow reference).
	Subject string `json:"subject,omitempty" yaml:"subject,omitempty"`
	// Issuer is the OIDC issuer recorded in the certificate.
	Issuer string `json:"issuer,omitempty" yaml:"issuer,omitempty"`
}

// IsKey reports whether the identity is a public key.
func (id Identity) IsKey() bool { return id.KeyFingerprint != "" }

// String renders the identity for people and lockfiles:
// "key sha256:…" or "subject (issuer)".
func (id Identity) String() string {
	if id.IsKey() {
		return "key " + id.KeyFingerprint
	}
	return fmt.Sprintf("%s (%s)", id.Subject, id.Issuer)
}
