package sign

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"net/http"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
)

// DefaultServiceTimeout bounds each request to Fulcio, Rekor or a
// timestamp authority when SignOptions.Timeout is zero.
const DefaultServiceTimeout = 30 * time.Second

// SignOptions says how to sign. Exactly one of Key and IdentityToken is set.
type SignOptions struct {
	// Key signs with a long-lived key; the signature's identity is the
	// key's fingerprint.
	Key *PrivateKey
	// IdentityToken signs keyless: the OIDC token is exchanged with Fulcio
	// (from SigningConfig) for a short-lived certificate of a fresh
	// ECDSA P-256 key; the signature is logged in SigningConfig's Rekor and
	// timestamped by its timestamp authorities, whichever it lists (at
	// least one of the two is needed to prove the certificate was valid).
	IdentityToken string
	// SigningConfig lists the Sigstore services (PublicGoodSigningConfig
	// for the public instances). Required for keyless signing and for
	// TransparencyLog.
	SigningConfig *root.SigningConfig
	// TransparencyLog also logs a key signature in SigningConfig's Rekor.
	// Off by default: key signatures need no log to verify (`cosign verify
	// --key … --insecure-ignore-tlog=true`), and logging publishes the
	// signed digest to a public log. Ed25519 keys need a Rekor v1 log
	// (Rekor v2 takes only prehashed signatures). Keyless signatures are
	// always logged when the signing config lists a Rekor.
	TransparencyLog bool
	// Annotations are added to the statement's subject, as cosign's
	// `sign -a key=value` does (cosign checks them with `verify -a`).
	Annotations map[string]string
	// Transport carries the requests to Fulcio and timestamp authorities
	// (nil: http.DefaultTransport). Rekor uses its own client.
	Transport http.RoundTripper
	// Timeout bounds each service request; zero means
	// DefaultServiceTimeout.
	Timeout time.Duration
}

// Validate rejects options that cannot sign: no signer, both signers,
// keyless or a logged key signature without a signing config.
func (o SignOptions) Validate() error {
	switch {
	case o.Key == nil && o.IdentityToken == "":
		return ErrNoSigner
	case o.Key != nil && o.IdentityToken != "":
		return ErrConflictingSigners
	case o.IdentityToken != "" && o.SigningConfig == nil:
		return fmt.Errorf("%w: keyless signing needs one (PublicGoodSigningConfig for the public instances)", ErrNoSigningConfig)
	case o.Key != nil && o.TransparencyLog && o.SigningConfig == nil:
		return fmt.Errorf("%w: logging a key signature needs one to find Rekor", ErrNoSigningConfig)
	case o.Timeout < 0:
		return fmt.Errorf("negative service timeout %v", o.Timeout)
	}
	return nil
}

// Signature is a signed manifest: the bundle to attach as a referrer of
// Manifest, and who signed it.
type Signature struct {
	// Bundle is the Sigstore bundle v0.3 JSON (BundleMediaType).
	Bundle []byte
	// Manifest is the descriptor of the signed manifest, the referrer's
	// subject.
	Manifest ocispec.Descriptor
	// Identity is the signer: the key fingerprint, or the certificate's
	// subject and issuer for a keyless signature.
	Identity Identity
}

// Sign signs a skill's manifest: it makes the in-toto statement cosign
// makes for the manifest digest (Statement), wraps it in a DSSE envelope
// signed with the key or a Fulcio certificate, and returns the Sigstore
// bundle. Keyless signing and a logged key signature talk to the services
// of opts.SigningConfig; a plain key signature is offline.
func Sign(ctx context.Context, manifest ocispec.Descriptor, opts SignOptions) (*Signature, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	payload, err := Statement(manifest.Digest, opts.Annotations)
	if err != nil {
		return nil, err
	}
	return signPayload(ctx, manifest, payload, opts)
}

// signerIdentity is who a freshly made bundle claims to be signed by.
func signerIdentity(key *PrivateKey, pb *protobundle.Bundle) (Identity, error) {
	if key != nil {
		return Identity{KeyFingerprint: key.Fingerprint()}, nil
	}
	raw := pb.GetVerificationMaterial().GetCertificate().GetRawBytes()
	cert, err := x509.ParseCertificate(raw)
	if err != nil {
		return Identity{}, fmt.Errorf("parsing the Fulcio certificate: %w", err)
	}
	return certIdentity(cert)
}

func certIdentity(cert *x509.Certificate) (Identity, error) {
	sum, err := certificate.SummarizeCertificate(cert)
	if err != nil {
		return Identity{}, fmt.Errorf("reading certificate identity: %w", err)
	}
	return Identity{Subject: sum.SubjectAlternativeName, Issuer: sum.Extensions.Issuer}, nil
}

func rekors(sc *root.SigningConfig, now time.Time, timeout time.Duration) ([]sgsign.Transparency, error) {
	logs, _, err := rekorsWithVersion(sc, now, timeout)
	return logs, err
}

// rekorsWithVersion picks the signing config's Rekor logs and reports
// whether all of them are v2 (which give no integrated time).
func rekorsWithVersion(sc *root.SigningConfig, now time.Time, timeout time.Duration) ([]sgsign.Transparency, bool, error) {
	if len(sc.RekorLogURLs()) == 0 {
		return nil, false, nil
	}
	svcs, err := root.SelectServices(sc.RekorLogURLs(), sc.RekorLogURLsConfig(), sgsign.RekorAPIVersions, now)
	if err != nil {
		return nil, false, fmt.Errorf("%w: Rekor: %v", ErrNoService, err)
	}
	v2Only := len(svcs) > 0
	logs := make([]sgsign.Transparency, 0, len(svcs))
	for _, s := range svcs {
		if s.MajorAPIVersion != 2 {
			v2Only = false
		}
		logs = append(logs, sgsign.NewRekor(&sgsign.RekorOptions{
			BaseURL: s.URL, Timeout: timeout, Retries: 1, Version: s.MajorAPIVersion,
		}))
	}
	return logs, v2Only, nil
}

func timestampAuthorities(sc *root.SigningConfig, now time.Time, timeout time.Duration, rt http.RoundTripper) ([]*sgsign.TimestampAuthority, error) {
	if len(sc.TimestampAuthorityURLs()) == 0 {
		return nil, nil
	}
	svcs, err := root.SelectServices(sc.TimestampAuthorityURLs(), sc.TimestampAuthorityURLsConfig(), sgsign.TimestampAuthorityAPIVersions, now)
	if err != nil {
		return nil, fmt.Errorf("%w: timestamp authority: %v", ErrNoService, err)
	}
	tsas := make([]*sgsign.TimestampAuthority, 0, len(svcs))
	for _, s := range svcs {
		tsas = append(tsas, sgsign.NewTimestampAuthority(&sgsign.TimestampAuthorityOptions{
			URL: s.URL, Timeout: timeout, Retries: 1, Transport: rt,
		}))
	}
	return tsas, nil
}

// fileKeypair adapts a PrivateKey to sigstore-go's signing interface.
// ECDSA signs the SHA-256 of the DSSE pre-authentication encoding; Ed25519
// signs it whole (pure Ed25519, what `cosign verify --key` checks).
type fileKeypair struct{ k *PrivateKey }

var _ sgsign.Keypair = fileKeypair{}

// GetHashAlgorithm returns the digest algorithm of the signature.
func (f fileKeypair) GetHashAlgorithm() protocommon.HashAlgorithm {
	return f.k.details.GetProtoHashType()
}

// GetSigningAlgorithm returns the signature algorithm.
func (f fileKeypair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return f.k.details.GetSignatureAlgorithm()
}

// GetHint returns the public key hint put in the bundle, as cosign does.
func (f fileKeypair) GetHint() []byte { return f.k.hint() }

// GetKeyAlgorithm returns the key family, as Fulcio names it.
func (f fileKeypair) GetKeyAlgorithm() string {
	if f.k.alg == Ed25519 {
		return "ED25519"
	}
	return "ECDSA"
}

// GetPublicKey returns the public key.
func (f fileKeypair) GetPublicKey() crypto.PublicKey { return f.k.Public() }

// GetPublicKeyPem returns the public key as PKIX PEM.
func (f fileKeypair) GetPublicKeyPem() (string, error) { return string(f.k.PublicKeyPEM()), nil }

// SignData signs data and returns the signature and what was signed (the
// digest for ECDSA, the data for Ed25519).
func (f fileKeypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	switch k := f.k.signer.(type) {
	case *ecdsa.PrivateKey:
		sum := sha256.Sum256(data)
		sig, err := ecdsa.SignASN1(rand.Reader, k, sum[:])
		return sig, sum[:], err
	case ed25519.PrivateKey:
		return ed25519.Sign(k, data), data, nil
	default:
		// Unreachable: newPrivateKey admits only the two types above.
		return nil, nil, fmt.Errorf("%w: %T", ErrUnsupportedKey, k)
	}
}
