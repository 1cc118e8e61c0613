package sign

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// Key errors.
var (
	// ErrUnsupportedAlgorithm is returned for a key algorithm skillpm does
	// not generate or sign with.
	ErrUnsupportedAlgorithm = errdef.New(errdef.Usage, "unsupported key algorithm")
	// ErrUnsupportedKey is returned for a key of a type skillpm cannot use
	// (RSA, an unusual curve, a certificate where a key was expected).
	ErrUnsupportedKey = errdef.New(errdef.Usage, "unsupported key type")
	// ErrInvalidKey is returned when key material cannot be decoded: not
	// PEM, an unknown PEM block type, or a malformed DER body.
	ErrInvalidKey = errdef.New(errdef.Usage, "invalid key")
	// ErrDecryptKey is returned when an encrypted private key cannot be
	// decrypted: the passphrase is wrong or the file was altered.
	ErrDecryptKey = errdef.New(errdef.Usage, "cannot decrypt private key (wrong passphrase or corrupted key)")
	// ErrKeyExists is returned by WriteKeyPair when a key file already
	// exists and overwriting was not requested.
	ErrKeyExists = errdef.New(errdef.Conflict, "key file already exists")
	// ErrKeyPrefix is returned by WriteKeyPair for a prefix that names a
	// folder ("/", "keys/", ".."), which would write hidden ".key" and
	// ".pub" files into it.
	ErrKeyPrefix = errdef.New(errdef.Usage, "key file prefix names a folder")
)

// Option errors.
var (
	// ErrNoSigner is returned when SignOptions name neither a key nor an
	// identity token.
	ErrNoSigner = errdef.New(errdef.Usage, "no signer: give a private key or an OIDC identity token")
	// ErrConflictingSigners is returned when SignOptions name both a key
	// and an identity token.
	ErrConflictingSigners = errdef.New(errdef.Usage, "give a private key or an OIDC identity token, not both")
	// ErrNoSigningConfig is returned when keyless signing, or a key
	// signature logged in Rekor, has no Sigstore signing config to find its
	// services in.
	ErrNoSigningConfig = errdef.New(errdef.Usage, "no Sigstore signing config")
	// ErrNoService is returned when the signing config lists no usable
	// service of a kind the signature needs (Fulcio, Rekor, a timestamp
	// authority).
	ErrNoService = errdef.New(errdef.Validation, "signing config has no usable service")
	// ErrInvalidDigest is returned for a manifest digest that is not a
	// valid sha256 digest.
	ErrInvalidDigest = errdef.New(errdef.Usage, "invalid manifest digest (want sha256:<64 hex>)")
	// ErrNoTrust is returned by the verify functions when the options hold
	// neither a public key nor a trusted root.
	ErrNoTrust = errdef.New(errdef.Usage, "no trusted public keys or trusted roots to verify with")
)

// Bundle and verification errors. Every error a bundle fails with wraps
// one of these, so callers can tell "not ours / broken" from "forged".
var (
	// ErrMalformedBundle is returned for bytes that are not a Sigstore
	// bundle: bad JSON, a missing or unknown media type, missing parts.
	ErrMalformedBundle = errdef.New(errdef.Trust, "malformed Sigstore bundle")
	// ErrBundleTooLarge is returned for a bundle over MaxBundleSize.
	ErrBundleTooLarge = errdef.New(errdef.Trust, "bundle too large")
	// ErrUnsupportedBundle is returned for a well-formed bundle of a shape
	// skillpm does not accept: an older bundle version, a message signature
	// instead of a DSSE envelope, a payload type other than in-toto.
	ErrUnsupportedBundle = errdef.New(errdef.Trust, "unsupported Sigstore bundle")
	// ErrPredicateType is returned when the signed statement's predicate
	// type is not the one expected.
	ErrPredicateType = errdef.New(errdef.Trust, "unexpected in-toto predicate type")
	// ErrDigestMismatch is returned when the signed statement is about a
	// different manifest than the one being verified.
	ErrDigestMismatch = errdef.New(errdef.Trust, "bundle does not sign this manifest digest")
	// ErrUntrustedKey is returned when a key-signed bundle verifies against
	// none of the trusted public keys (or none are configured).
	ErrUntrustedKey = errdef.New(errdef.Trust, "signature does not verify with any trusted public key")
	// ErrUntrustedCertificate is returned when a certificate-signed bundle
	// verifies against none of the trusted roots (or none are configured):
	// a bad chain, an expired certificate without a trusted timestamp, a
	// missing transparency log entry, a bad signature.
	ErrUntrustedCertificate = errdef.New(errdef.Trust, "certificate signature does not verify with any trusted root")
	// ErrMalformedBlobSignature is returned by VerifyBlob for a signature
	// file that is empty or too large to be a signature.
	ErrMalformedBlobSignature = errdef.New(errdef.Trust, "malformed blob signature")
	// ErrIdentityRejected is returned when a bundle verified but
	// VerifyOptions.AcceptIdentity refused the identity that signed it.
	ErrIdentityRejected = errdef.New(errdef.Trust, "signer identity not accepted")
)

// Failure is one bundle of a batch that did not verify. A failed bundle
// never contributes an identity.
type Failure struct {
	// Index is the bundle's position in the slice given to VerifyAll.
	Index int
	// Err says why; it wraps one of the package's sentinel errors.
	Err error
}

// Error renders the failure with its index.
func (f Failure) Error() string { return fmt.Sprintf("bundle %d: %v", f.Index, f.Err) }

// Unwrap returns the reason, so errors.Is works on a Failure.
func (f Failure) Unwrap() error { return f.Err }

// ErrInvalidPredicate is returned by AttestationStatement and
// SignStatement for an empty predicate type or a predicate that is not a
// JSON object.
var ErrInvalidPredicate = errdef.New(errdef.Validation, "invalid in-toto predicate")
