package sign

import (
	"bytes"
	"context"
	"crypto"
	"errors"
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
