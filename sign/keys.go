package sign

import (
	"github.com/skillpm/skillpm/internal/atomicfile"
	"github.com/skillpm/skillpm/internal/boundedfile"

	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/secure-systems-lab/go-securesystemslib/encrypted"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore/pkg/signature"
)

// maxKeyFileBytes bounds the key, signature and token files ReadKeyFile
// reads: anything larger is not a key.
const maxKeyFileBytes = 64 << 10

// ReadKeyFile reads a key, a detached signature or an identity token from
// path, refusing a file too large to be one (a *boundedfile.TooLargeError
// wrapped with "not a key") before it is read whole.
func ReadKeyFile(path string) ([]byte, error) {
	data, err := boundedfile.Read(path, maxKeyFileBytes)
	if _, ok := errors.AsType[*boundedfile.TooLargeError](err); ok {
		return nil, fmt.Errorf("%w: not a key", err)
	}
	return data, err
}

// Algorithm names a signing key algorithm.
type Algorithm string

// The key algorithms skillpm generates, loads and verifies. Both are what
// cosign calls them in its key files, so cosign and skillpm can share keys.
const (
	// ECDSAP256 is ECDSA on NIST P-256 with SHA-256: cosign's default.
	ECDSAP256 Algorithm = "ecdsa-p256"
	// Ed25519 is pure Ed25519. Sigstore only supports it inside DSSE
	// envelopes, which is what skillpm signs.
	Ed25519 Algorithm = "ed25519"
)

// DefaultAlgorithm is the algorithm GenerateKey uses for "".
const DefaultAlgorithm = ECDSAP256

// PEM block types of key files.
const (
	// PrivateKeyPEMType is cosign's encrypted private key block (scrypt +
	// NaCl secretbox over PKCS#8), the format GenerateKey writes.
	PrivateKeyPEMType = "ENCRYPTED SIGSTORE PRIVATE KEY"
	// legacyCosignPEMType is what cosign wrote before "SIGSTORE"; same body.
	legacyCosignPEMType = "ENCRYPTED COSIGN PRIVATE KEY"
	// pkcs8PEMType is an unencrypted PKCS#8 private key.
	pkcs8PEMType = "PRIVATE KEY"
	// sec1PEMType is an unencrypted SEC 1 EC private key (openssl ecparam).
	sec1PEMType = "EC PRIVATE KEY"
	// PublicKeyPEMType is a PKIX public key block, the format of PREFIX.pub.
	PublicKeyPEMType = "PUBLIC KEY"
)

// PrivateKey is a loaded signing key. It is safe for concurrent use.
type PrivateKey struct {
	signer      crypto.Signer
	alg         Algorithm
	details     signature.AlgorithmDetails
	pubDER      []byte
	fingerprint string
}

func newPrivateKey(s crypto.Signer) (*PrivateKey, error) {
	alg, err := algorithmOf(s.Public())
	if err != nil {
		return nil, err
	}
	details, err := algorithmDetails(alg)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(s.Public())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	return &PrivateKey{signer: s, alg: alg, details: details, pubDER: der, fingerprint: fingerprintDER(der)}, nil
}

// Public returns the public half of the key.
func (k *PrivateKey) Public() crypto.PublicKey { return k.signer.Public() }

// Algorithm returns the key's algorithm.
func (k *PrivateKey) Algorithm() Algorithm { return k.alg }

// Fingerprint returns "sha256:<hex>" of the public key's PKIX DER: the
// identity a signature made with this key verifies as.
func (k *PrivateKey) Fingerprint() string { return k.fingerprint }

// PublicKeyPEM returns the public key as a PKIX "PUBLIC KEY" PEM block,
// the content of PREFIX.pub.
func (k *PrivateKey) PublicKeyPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: PublicKeyPEMType, Bytes: k.pubDER})
}

// EncryptedPEM returns the private key in cosign's key file format,
// encrypted with passphrase. An empty passphrase is allowed, as in cosign
// (COSIGN_PASSWORD=""): the file is then encrypted with the empty string.
func (k *PrivateKey) EncryptedPEM(passphrase []byte) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k.signer)
	if err != nil {
		return nil, fmt.Errorf("encoding private key: %w", err)
	}
	box, err := encrypted.Encrypt(der, passphrase)
	if err != nil {
		return nil, fmt.Errorf("encrypting private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: PrivateKeyPEMType, Bytes: box}), nil
}

// hint is the public-key hint sigstore-go and cosign put in key bundles:
// base64 of the SHA-256 of the PKIX DER (the fingerprint, differently
// encoded).
func (k *PrivateKey) hint() []byte {
	sum := sha256.Sum256(k.pubDER)
	return []byte(base64.StdEncoding.EncodeToString(sum[:]))
}

// KeyPair is a freshly generated key with its two files' contents.
type KeyPair struct {
	// Key is the usable private key.
	Key *PrivateKey
	// PrivatePEM is the PREFIX.key content (cosign's encrypted format).
	PrivatePEM []byte
	// PublicPEM is the PREFIX.pub content (PKIX PEM).
	PublicPEM []byte
}

// GenerateKey makes a new key pair of the given algorithm ("" means
// DefaultAlgorithm) and encodes the private half with passphrase in
// cosign's format, so `cosign sign --key` can use it. Keep the passphrase
// empty for "no passphrase", as cosign does.
func GenerateKey(alg Algorithm, passphrase []byte) (*KeyPair, error) {
	if alg == "" {
		alg = DefaultAlgorithm
	}
	var s crypto.Signer
	switch alg {
	case ECDSAP256:
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating ECDSA key: %w", err)
		}
		s = k
	case Ed25519:
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating Ed25519 key: %w", err)
		}
		s = k
	default:
		return nil, fmt.Errorf("%w: %q (want %q or %q)", ErrUnsupportedAlgorithm, alg, ECDSAP256, Ed25519)
	}
	key, err := newPrivateKey(s)
	if err != nil {
		return nil, err
	}
	priv, err := key.EncryptedPEM(passphrase)
	if err != nil {
		return nil, err
	}
	return &KeyPair{Key: key, PrivatePEM: priv, PublicPEM: key.PublicKeyPEM()}, nil
}

// WriteKeyPair writes PREFIX.key (mode 0600) and PREFIX.pub (mode 0644)
// and returns their paths, making PREFIX's folder (mode 0700: it holds a
// private key) when it is missing. Before writing anything it refuses a
// prefix that names a folder (ErrKeyPrefix) and, without overwrite, a
// pair of which either file exists. Each file is written to a temporary
// name and renamed, so a crash never leaves half a key.
func WriteKeyPair(ctx context.Context, prefix string, kp *KeyPair, overwrite bool) (keyPath, pubPath string, err error) {
	if kp == nil || len(kp.PrivatePEM) == 0 || len(kp.PublicPEM) == 0 {
		return "", "", fmt.Errorf("%w: empty key pair", ErrInvalidKey)
	}
	if base := filepath.Base(prefix); prefix == "" || base == "." || base == ".." || base == string(filepath.Separator) ||
		strings.HasSuffix(prefix, "/") || strings.HasSuffix(prefix, string(filepath.Separator)) {
		return "", "", fmt.Errorf("%w: %q would write %s and %s; end the prefix with a file name (keys/release writes keys/release.key and keys/release.pub)", ErrKeyPrefix, prefix, prefix+".key", prefix+".pub")
	}
	keyPath, pubPath = prefix+".key", prefix+".pub"
	if !overwrite {
		for _, p := range []string{keyPath, pubPath} {
			if _, err := os.Lstat(p); err == nil {
				return "", "", fmt.Errorf("%w: %s", ErrKeyExists, p)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return "", "", err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(filepath.Dir(prefix), 0o700); err != nil {
		return "", "", err
	}
	if err := writeFileAtomic(keyPath, kp.PrivatePEM, 0o600); err != nil {
		return "", "", err
	}
	if err := writeFileAtomic(pubPath, kp.PublicPEM, 0o644); err != nil {
		return "", "", err
	}
	return keyPath, pubPath, nil
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	return atomicfile.Write(path, data, mode)
}

// LoadPrivateKey decodes a private key file: cosign's encrypted format
// ("ENCRYPTED SIGSTORE PRIVATE KEY", or the older "ENCRYPTED COSIGN
// PRIVATE KEY"), decrypted with passphrase (possibly empty), or an
// unencrypted PKCS#8 "PRIVATE KEY" / SEC 1 "EC PRIVATE KEY" block, for
// which passphrase is ignored. The key must be ECDSA P-256 or Ed25519.
func LoadPrivateKey(pemBytes, passphrase []byte) (*PrivateKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, fmt.Errorf("%w: no PEM block found", ErrInvalidKey)
	}
	var (
		parsed any
		err    error
	)
	switch block.Type {
	case PrivateKeyPEMType, legacyCosignPEMType:
		der, derr := encrypted.Decrypt(block.Bytes, passphrase)
		if derr != nil {
			return nil, fmt.Errorf("%w: %v", ErrDecryptKey, derr)
		}
		parsed, err = x509.ParsePKCS8PrivateKey(der)
	case pkcs8PEMType:
		parsed, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case sec1PEMType:
		parsed, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("%w: unsupported PEM block %q", ErrInvalidKey, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	s, ok := parsed.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%w: %T", ErrUnsupportedKey, parsed)
	}
	return newPrivateKey(s)
}

// LoadPublicKey decodes a PKIX "PUBLIC KEY" PEM block (a PREFIX.pub or
// cosign.pub file). The key must be ECDSA P-256 or Ed25519.
func LoadPublicKey(pemBytes []byte) (crypto.PublicKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, fmt.Errorf("%w: no PEM block found", ErrInvalidKey)
	}
	if block.Type != PublicKeyPEMType {
		return nil, fmt.Errorf("%w: want a %q PEM block, got %q", ErrInvalidKey, PublicKeyPEMType, block.Type)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	if _, err := algorithmOf(pub); err != nil {
		return nil, err
	}
	return pub, nil
}

// Fingerprint returns "sha256:<hex>" of the public key's PKIX DER, the
// KeyFingerprint of the identities its signatures verify as. It returns ""
// for a key that has no PKIX encoding.
func Fingerprint(pub crypto.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return ""
	}
	return fingerprintDER(der)
}

func fingerprintDER(der []byte) string {
	sum := sha256.Sum256(der)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// algorithmOf says which supported algorithm a public key is for.
func algorithmOf(pub crypto.PublicKey) (Algorithm, error) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", fmt.Errorf("%w: ECDSA on %s (want P-256)", ErrUnsupportedKey, k.Curve.Params().Name)
		}
		return ECDSAP256, nil
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return "", fmt.Errorf("%w: Ed25519 key of %d bytes", ErrInvalidKey, len(k))
		}
		return Ed25519, nil
	default:
		return "", fmt.Errorf("%w: %T (want ECDSA P-256 or Ed25519)", ErrUnsupportedKey, pub)
	}
}

func algorithmDetails(alg Algorithm) (signature.AlgorithmDetails, error) {
	switch alg {
	case ECDSAP256:
		return signature.GetAlgorithmDetails(protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256)
	case Ed25519:
		return signature.GetAlgorithmDetails(protocommon.PublicKeyDetails_PKIX_ED25519)
	default:
		return signature.AlgorithmDetails{}, fmt.Errorf("%w: %q", ErrUnsupportedAlgorithm, alg)
	}
}
