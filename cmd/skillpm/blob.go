package main

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"os"

	"github.com/skillpm/skillpm/internal/atomicfile"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/sign"
	"github.com/spf13/cobra"
)

// blobSigned is the JSON document sign-blob and verify-blob print.
type blobSigned struct {
	File      string `json:"file"`
	Signature string `json:"signature,omitempty"`
	// KeyFingerprint is "sha256:<hex>" of the signing (or verifying) key.
	KeyFingerprint string `json:"keyFingerprint"`
}

func newSignBlobCmd(g *globals) *cobra.Command {
	var key, output string
	c := &cobra.Command{
		Use:   "sign-blob FILE",
		Short: "Sign a file with a key, as cosign sign-blob does",
		Long: `Sign a file (a release's SHA256SUMS, say) with a private key and write the
base64 signature: ECDSA P-256 over the SHA-256 of the file, or Ed25519 over
the file. The signature is what 'cosign sign-blob --key --tlog-upload=false'
makes; 'cosign verify-blob --key KEY.pub --signature SIG
--insecure-ignore-tlog FILE' and 'skillpm verify-blob' check it. Nothing is
logged in a transparency log: whoever holds the public key trusts it.

The key file is cosign's or skillpm keygen's; its passphrase comes from
$SKILLPM_PASSWORD, else $COSIGN_PASSWORD, else a prompt.`,
		Example: `  skillpm sign-blob --key release.key --output-signature SHA256SUMS.sig SHA256SUMS`,
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if key == "" {
				return usageErrorf(c, errors.New("--key is required (skillpm keygen makes one)"))
			}
			ctx := c.Context()
			k, err := loadSigningKey(ctx, g, key)
			if err != nil {
				return err
			}
			sig, err := signBlobFile(ctx, args[0], k)
			if err != nil {
				return err
			}
			if output != "" {
				if err := atomicfile.Write(output, sig, 0o644); err != nil {
					return fmt.Errorf("--output-signature: %w", err)
				}
			}
			doc := blobSigned{File: args[0], Signature: string(sig), KeyFingerprint: k.Fingerprint()}
			switch {
			case g.json():
				return g.writeJSON(doc)
			case output == "":
				// The signature is the output, as with cosign.
				_, err := fmt.Fprintf(g.stdout, "%s\n", sig)
				return err
			case !g.quiet:
				fmt.Fprintf(g.stdout, "signed %s with %s: %s\n", args[0], k.Fingerprint(), output)
			}
			return nil
		},
	}
	c.Flags().StringVar(&key, "key", "", "sign with the private key in `FILE` (skillpm keygen or cosign generate-key-pair)")
	c.Flags().StringVar(&output, "output-signature", "", "write the base64 signature to `FILE` (default: print it)")
	return c
}

func signBlobFile(ctx context.Context, path string, k *sign.PrivateKey) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return sign.SignBlob(ctx, f, k)
}

func newVerifyBlobCmd(g *globals) *cobra.Command {
	var keys []string
	var sigPath string
	c := &cobra.Command{
		Use:   "verify-blob FILE",
		Short: "Verify a file's signature with a public key, as cosign verify-blob does",
		Long: `Verify a signature made by 'skillpm sign-blob' or 'cosign sign-blob --key' of
a file, against one or more trusted public keys. It exits 0 when one key
verifies it, and 5 (refused by trust) when none does.`,
		Example: `  skillpm verify-blob --key release.pub --signature SHA256SUMS.sig SHA256SUMS`,
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(keys) == 0 || sigPath == "" {
				return usageErrorf(c, errors.New("--key and --signature are required"))
			}
			fp, err := verifyBlobFile(c.Context(), args[0], sigPath, keys)
			if err != nil {
				return err
			}
			doc := blobSigned{File: args[0], KeyFingerprint: fp}
			if g.json() {
				return g.writeJSON(doc)
			}
			if !g.quiet {
				fmt.Fprintf(g.stdout, "Verified OK: %s signed by %s\n", args[0], fp)
			}
			return nil
		},
	}
	c.Flags().StringArrayVar(&keys, "key", nil, "trust the public key in `FILE` (repeatable)")
	c.Flags().StringVar(&sigPath, "signature", "", "the base64 signature `FILE` (sign-blob --output-signature)")
	return c
}

// verifyBlobFile checks the signature in sigPath of the file at path
// against the public keys in keyFiles (one verifying is enough), as
// signBlobFile's counterpart, and returns the fingerprint of the key that
// verified it. A key or signature file that cannot be used is a usage
// error naming its flag; a signature no key verifies wraps
// sign.ErrUntrustedKey or sign.ErrMalformedBlobSignature (class trust).
func verifyBlobFile(ctx context.Context, path, sigPath string, keyFiles []string) (string, error) {
	pubs := make([]crypto.PublicKey, 0, len(keyFiles))
	for _, kf := range keyFiles {
		data, err := sign.ReadKeyFile(kf)
		if err != nil {
			return "", classed(errdef.Usage, fmt.Errorf("--key: %w", err))
		}
		pub, err := sign.LoadPublicKey(data)
		if err != nil {
			return "", classed(errdef.Usage, fmt.Errorf("--key %s: %w (give the .pub file)", kf, err))
		}
		pubs = append(pubs, pub)
	}
	sig, err := sign.ReadKeyFile(sigPath)
	if err != nil {
		return "", classed(errdef.Usage, fmt.Errorf("--signature: %w", err))
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fp, err := sign.VerifyBlob(ctx, f, sig, pubs)
	if errors.Is(err, sign.ErrUntrustedKey) || errors.Is(err, sign.ErrMalformedBlobSignature) {
		keys := "1 key"
		if len(pubs) != 1 {
			keys = fmt.Sprintf("%d keys", len(pubs))
		}
		return "", fmt.Errorf("%s: signature %s does not verify with %s: %w", path, sigPath, keys, err)
	}
	return fp, err
}
