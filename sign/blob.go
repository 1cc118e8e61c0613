package sign

import (
	"bytes"
	"context"
	"crypto"
	"encoding/base64"
	"fmt"
	"io"

	"github.com/sigstore/sigstore/pkg/signature"
)

// MaxBlobSignatureSize bounds a blob signature file: a base64 ECDSA P-256
// or Ed25519 signature is under 100 bytes; 4 KiB leaves room for a
// trailing newline and nothing else.
const MaxBlobSignatureSize = 4 << 10

// SignBlob signs the bytes read from r with key and returns the signature
// base64-encoded, the content `cosign sign-blob --key K --output-signature
// FILE` writes and `cosign verify-blob --key K.pub --signature FILE`
// checks: ECDSA P-256 over the SHA-256 of the blob (ASN.1 DER), or pure
// Ed25519 over the blob itself. The signature is not logged anywhere: a
// key is trusted on its own, as cosign's --tlog-upload=false.
//
// Ed25519 signs the whole message, so r is read into memory; release
// checksum files, the intended input, are small.
func SignBlob(ctx context.Context, r io.Reader, key *PrivateKey) ([]byte, error) {
	if key == nil {
		return nil, ErrNoSigner
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// sigstore's signers are the ones cosign signs blobs with, so the two
	// produce signatures of the same shape.
	s, err := signature.LoadSigner(key.signer, crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupportedKey, err)
	}
	sig, err := s.SignMessage(r)
	if err != nil {
		return nil, fmt.Errorf("signing blob: %w", err)
	}
	out := make([]byte, base64.StdEncoding.EncodedLen(len(sig)))
	base64.StdEncoding.Encode(out, sig)
	return out, nil
}

// VerifyBlob checks a SignBlob (or `cosign sign-blob`) signature of the
// bytes read from r against any of the trusted public keys and returns
// the fingerprint of the one that verified. sig is the base64 text of a
// signature file (surrounding white space is ignored) or the raw
// signature bytes. Every failure to verify wraps ErrUntrustedKey; a
// signature that is not a signature at all wraps ErrMalformedBlobSignature.
func VerifyBlob(ctx context.Context, r io.Reader, sig []byte, keys []crypto.PublicKey) (string, error) {
	if len(keys) == 0 {
		return "", ErrNoTrust
	}
	if len(sig) > MaxBlobSignatureSize {
		return "", fmt.Errorf("%w: %d bytes, over %d", ErrMalformedBlobSignature, len(sig), MaxBlobSignatureSize)
	}
	raw := decodeBlobSignature(sig)
	if len(raw) == 0 {
		return "", fmt.Errorf("%w: empty", ErrMalformedBlobSignature)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	// The blob is read once and checked against each key.
	blob, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("reading blob: %w", err)
	}
	for _, pub := range keys {
		if _, err := algorithmOf(pub); err != nil {
			return "", err
		}
		v, err := signature.LoadVerifier(pub, crypto.SHA256)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrUnsupportedKey, err)
		}
		if v.VerifySignature(bytes.NewReader(raw), bytes.NewReader(blob)) == nil {
			return Fingerprint(pub), nil
		}
	}
	return "", ErrUntrustedKey
}

// decodeBlobSignature accepts cosign's base64 signature file and, failing
// that, raw signature bytes.
func decodeBlobSignature(sig []byte) []byte {
	trimmed := bytes.TrimSpace(sig)
	if dec, err := base64.StdEncoding.DecodeString(string(trimmed)); err == nil {
		return dec
	}
	return sig
}
