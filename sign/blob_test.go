package sign

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSignBlobVerifyBlob(t *testing.T) {
	ctx := context.Background()
	blob := []byte("3f1c…  skillpm-linux-amd64\n")
	for _, alg := range []Algorithm{ECDSAP256, Ed25519} {
		t.Run(string(alg), func(t *testing.T) {
			kp, err := GenerateKey(alg, nil)
			if err != nil {
				t.Fatal(err)
			}
			other, err := GenerateKey(alg, nil)
			if err != nil {
				t.Fatal(err)
			}
			sig, err := SignBlob(ctx, bytes.NewReader(blob), kp.Key)
			if err != nil {
				t.Fatal(err)
			}
			fp, err := VerifyBlob(ctx, bytes.NewReader(blob), sig, []crypto.PublicKey{other.Key.Public(), kp.Key.Public()})
			if err != nil || fp != kp.Key.Fingerprint() {
				t.Fatalf("VerifyBlob = %q, %v; want %s", fp, err, kp.Key.Fingerprint())
			}
			// A signature file ends in a newline; that is not part of it.
			if _, err := VerifyBlob(ctx, bytes.NewReader(blob), append(sig, '\n'), []crypto.PublicKey{kp.Key.Public()}); err != nil {
				t.Errorf("with a trailing newline: %v", err)
			}
			tampered := append(bytes.Clone(blob), 'x')
			if _, err := VerifyBlob(ctx, bytes.NewReader(tampered), sig, []crypto.PublicKey{kp.Key.Public()}); !errors.Is(err, ErrUntrustedKey) {
				t.Errorf("tampered blob: %v, want ErrUntrustedKey", err)
			}
			if _, err := VerifyBlob(ctx, bytes.NewReader(blob), sig, []crypto.PublicKey{other.Key.Public()}); !errors.Is(err, ErrUntrustedKey) {
				t.Errorf("other key: %v, want ErrUntrustedKey", err)
			}
		})
	}
	kp, err := GenerateKey(ECDSAP256, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyBlob(ctx, bytes.NewReader(blob), []byte(" \n"), []crypto.PublicKey{kp.Key.Public()}); !errors.Is(err, ErrMalformedBlobSignature) {
		t.Errorf("empty signature: %v", err)
	}
	if _, err := VerifyBlob(ctx, bytes.NewReader(blob), make([]byte, MaxBlobSignatureSize+1), []crypto.PublicKey{kp.Key.Public()}); !errors.Is(err, ErrMalformedBlobSignature) {
		t.Errorf("huge signature: %v", err)
	}
	if _, err := VerifyBlob(ctx, bytes.NewReader(blob), []byte("c2ln"), nil); !errors.Is(err, ErrNoTrust) {
		t.Errorf("no keys: %v", err)
	}
}

// cosign verify-blob accepts skillpm's blob signatures, and skillpm
// cosign's, for both key algorithms.
func TestCosignBlobInterop(t *testing.T) {
	cosign := newCosign(t)
	ctx := context.Background()
	dir := t.TempDir()
	blobPath := writeFile(t, filepath.Join(dir, "SHA256SUMS"), []byte("0123abcd  skillpm-linux-amd64\n"))
	for _, alg := range []Algorithm{ECDSAP256, Ed25519} {
		t.Run(string(alg), func(t *testing.T) {
			kp, err := GenerateKey(alg, nil)
			if err != nil {
				t.Fatal(err)
			}
			prefix := filepath.Join(dir, string(alg))
			keyPath, pubPath, err := WriteKeyPair(ctx, prefix, kp, false)
			if err != nil {
				t.Fatal(err)
			}
			sig, err := SignBlob(ctx, bytes.NewReader([]byte("0123abcd  skillpm-linux-amd64\n")), kp.Key)
			if err != nil {
				t.Fatal(err)
			}
			sigPath := writeFile(t, prefix+".sig", sig)
			if out, err := cosign.run("", "verify-blob", "--key", pubPath, "--signature", sigPath, "--insecure-ignore-tlog=true", blobPath); err != nil {
				t.Errorf("cosign verify-blob: %v\n%s", err, out)
			}
			// The reverse: cosign signs, skillpm verifies.
			cosignSig := prefix + ".cosign.sig"
			if out, err := cosign.run("", "sign-blob", "--key", keyPath, "--tlog-upload=false", "--use-signing-config=false", "--new-bundle-format=false", "--output-signature", cosignSig, blobPath); err != nil {
				t.Fatalf("cosign sign-blob: %v\n%s", err, out)
			}
			cs, err := os.ReadFile(cosignSig)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(blobPath)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := VerifyBlob(ctx, f, cs, []crypto.PublicKey{kp.Key.Public()}); err != nil {
				t.Errorf("VerifyBlob(cosign's signature): %v", err)
			}
		})
	}
}
