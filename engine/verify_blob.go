package engine

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"os"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/sign"
)

// VerifyBlobRequest is one check of a file's detached signature, as
// cosign verify-blob --key does.
type VerifyBlobRequest struct {
	// File is the signed file.
	File string
	// SignatureFile holds the base64 signature (sign-blob's output).
	SignatureFile string
	// KeyFiles are the trusted public keys (PEM); one verifying is enough.
	KeyFiles []string
}

// VerifyBlobResult is what verified the request's file.
type VerifyBlobResult struct {
	// KeyFingerprint is "sha256:<hex>" of the key that verified it.
	KeyFingerprint string
}

// InputFileError is a key or signature file a request names that cannot
// be read or is not what it should be; Role says which ("key",
// "signature"), Parse that it was read but did not parse. Its message
// names the role and the file; Unwrap gives the failure.
type InputFileError struct {
	// Role is "key" or "signature".
	Role string
	// Parse is set when the file was read but is not a public key.
	Parse bool
	// path is the file as the request named it; err the failure.
	path string
	err  error
}

func (e *InputFileError) Error() string { return e.Role + " " + e.path + ": " + e.err.Error() }

// Unwrap returns the failure.
func (e *InputFileError) Unwrap() error { return e.err }

// Class is errdef.Usage: the request names a file to fix.
func (e *InputFileError) Class() errdef.Class { return errdef.Usage }

// VerifyBlob checks r.File's signature in r.SignatureFile against the
// public keys in r.KeyFiles. Files that do not read or keys that do not
// parse are *InputFileError; a signature no key verifies wraps
// sign.ErrUntrustedKey or sign.ErrMalformedBlobSignature (class trust).
func VerifyBlob(ctx context.Context, r VerifyBlobRequest) (*VerifyBlobResult, error) {
	pubs := make([]crypto.PublicKey, 0, len(r.KeyFiles))
	for _, path := range r.KeyFiles {
		data, err := sign.ReadKeyFile(path)
		if err != nil {
			return nil, &InputFileError{Role: "key", path: path, err: err}
		}
		pub, err := sign.LoadPublicKey(data)
		if err != nil {
			return nil, &InputFileError{Role: "key", Parse: true, path: path, err: err}
		}
		pubs = append(pubs, pub)
	}
	sig, err := sign.ReadKeyFile(r.SignatureFile)
	if err != nil {
		return nil, &InputFileError{Role: "signature", path: r.SignatureFile, err: err}
	}
	f, err := os.Open(r.File)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fp, err := sign.VerifyBlob(ctx, f, sig, pubs)
	if errors.Is(err, sign.ErrUntrustedKey) || errors.Is(err, sign.ErrMalformedBlobSignature) {
		keys := "1 key"
		if len(pubs) != 1 {
			keys = fmt.Sprintf("%d keys", len(pubs))
		}
		return nil, fmt.Errorf("%s: signature %s does not verify with %s: %w", r.File, r.SignatureFile, keys, err)
	}
	if err != nil {
		return nil, err
	}
	return &VerifyBlobResult{KeyFingerprint: fp}, nil
}
