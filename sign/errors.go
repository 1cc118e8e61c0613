package sign

import (
	"errors"
	"fmt"
)

// Key errors.
var (
	// ErrUnsupportedAlgorithm is returned for a key algorithm skillpm does
	// not generate or sign with.
	ErrUnsupportedAlgorithm = errors.New("unsupported key algorithm")
	// ErrUnsupportedKey is returned for a key of a type skillpm cannot use
	// (RSA, an unusual curve, a certificate where a key was expected).
	ErrUnsupportedKey = errors.New("unsupported key type")
	// ErrInvalidKey is returned when key material cannot be decoded: not
	// PEM, an unknown PEM block type, or a malformed DER body.
	ErrInvalidKey = errors.New("invalid key")
	// ErrDecryptKey is returned when an encrypted private key cannot be
	// decrypted: the passphrase is wrong or the file was altered.
	ErrDecryptKey = errors.New("cannot decrypt private key (wrong passphrase or corrupted key)")
	// ErrKeyExists is returned by WriteKeyPair when a key file already
	// exists and overwriting was not requested.
	ErrKeyExists = errors.New("key file already exists")
)

// Option errors.
var (
	// ErrNoSigner is returned when SignOptions name neither a key nor an
	// identity token.
	ErrNoSigner = errors.New("no signer: give a private key or an OIDC identity token")
	// ErrConflictingSigners is returned when SignOptions name both a key
	// and an identity token.
	ErrConflictingSigners = errors.New("give a private key or an OIDC identity token, not both")
	// ErrNoSigningConfig is returned when keyless signing, or a key
	// signature logged in Rekor, has no Sigstore signing config to find its
	// services in.
	ErrNoSigningConfig = errors.New("no Sigstore signing config")
	// ErrNoService is returned when the signing config lists no usable
	// service of a kind the signature needs (Fulcio, Rekor, a timestamp
	// authority).
	ErrNoService = errors.New("signing config has no usable service")
	// ErrInvalidDigest is returned for a manifest digest that is not a
	// valid sha256 digest.
	ErrInvalidDigest = errors.New("invalid manifest digest (want sha256:<64 hex>)")
	// ErrNoTrust is returned by the verify functions when the options hold
	// neither a public key nor a trusted root.
	ErrNoTrust = errors.New("no trusted public keys or trusted roots to verify with")
)

// Bundle and verification errors. Every error a bundle fails with wraps
// one of these, so callers can tell "not ours / broken" from "forged".
var (
	// ErrMalformedBundle is returned for bytes that are not a Sigstore
	// bundle: bad JSON, a missing or unknown media type, missing parts.
	ErrMalformedBundle = errors.New("malformed Sigstore bundle")
	// ErrBundleTooLarge is returned for a bundle over MaxBundleSize.
	ErrBundleTooLarge = errors.New("bundle too large")
	// ErrUnsupportedBundle is returned for a well-formed bundle of a shape
	// skillpm does not accept: an older bundle version, a message signature
	// instead of a DSSE envelope, a payload type other than in-toto.
	ErrUnsupportedBundle = errors.New("unsupported Sigstore bundle")
	// ErrPredicateType is returned when the signed statement's predicate
	// type is not the one expected.
	ErrPredicateType = errors.New("unexpected in-toto predicate type")
	// ErrDigestMismatch is returned when the signed statement is about a
	// different manifest than the one being verified.
	ErrDigestMismatch = errors.New("bundle does not sign this manifest digest")
	// ErrUntrustedKey is returned when a key-signed bundle verifies against
	// none of the trusted public keys (or none are configured).
	ErrUntrustedKey = errors.New("signature does not verify with any trusted public key")
	// ErrUntrustedCertificate is returned when a certificate-signed bundle
	// verifies against none of the trusted roots (or none are configured):
	// a bad chain, an expired certificate without a trusted timestamp, a
	// missing transparency log entry, a bad signature.
	ErrUntrustedCertificate = errors.New("certificate signature does not verify with any trusted root")
	// ErrMalformedBlobSignature is returned by VerifyBlob for a signature
	// file that is empty or too large to be a signature.
	ErrMalformedBlobSignature = errors.New("malformed blob signature")
	// ErrIdentityRejected is returned when a bundle verified but
	// VerifyOptions.AcceptIdentity refused the identity that signed it.
	ErrIdentityRejected = errors.New("signer identity not accepted")
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
