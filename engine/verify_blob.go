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

// VerifyBlobResult is a file whose signature verified.
type VerifyBlobResult struct {
	// File is the file verified.
	File string
	// KeyFingerprint is "sha256:<hex>" of the key that verified it.
	KeyFingerprint string
}

// InputFileError is a key or signature file a request names that cannot
// be read or is not what it should be; Role says which ("key",
// "signature"), Parse that it was read but did not parse.
type InputFileError struct {
	// Role is "key" or "signature".
	Role string
	// Path is the file as the request named it.
	Path string
	// Parse is set when the file was read but is not a public key.
	Parse bool
	// Err is the failure.
	Err error
}

func (e *InputFileError) Error() string { return e.Role + " " + e.Path + ": " + e.Err.Error() }

// Unwrap returns the failure.
func (e *InputFileError) Unwrap() error { return e.Err }

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
			return nil, &InputFileError{Role: "key", Path: path, Err: err}
		}
		pub, err := sign.LoadPublicKey(data)
		if err != nil {
			return nil, &InputFileError{Role: "key", Path: path, Parse: true, Err: err}
		}
		pubs = append(pubs, pub)
	}
	sig, err := sign.ReadKeyFile(r.SignatureFile)
	if err != nil {
		return nil, &InputFileError{Role: "signature", Path: r.SignatureFile, Err: err}
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
	return &VerifyBlobResult{File: r.File, KeyFingerprint: fp}, nil
}
