package sign

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/boundedfile"
)

// A generated key survives its files: the cosign-format private key
// decrypts with its passphrase (and not with another), the public key file
// has the same fingerprint, and the loaded key signs what the loaded
// public key verifies. scrypt makes each case cost a quarter second (ten
// times that under -race), hence the parallel subtests.
func TestGenerateKeyLoadBack(t *testing.T) {
	tests := []struct {
		name       string
		alg        Algorithm
		want       Algorithm
		passphrase string
	}{
		{"default, no passphrase", "", ECDSAP256, ""},
		{"ecdsa with passphrase", ECDSAP256, ECDSAP256, "correct horse"},
		{"ed25519 no passphrase", Ed25519, Ed25519, ""},
		{"ed25519 with passphrase", Ed25519, Ed25519, "battery staple"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kp, err := GenerateKey(tt.alg, []byte(tt.passphrase))
			if err != nil {
				t.Fatal(err)
			}
			if kp.Key.Algorithm() != tt.want {
				t.Errorf("Algorithm() = %q, want %q", kp.Key.Algorithm(), tt.want)
			}
			// cosign's format, whatever the passphrase: cosign always encrypts.
			if !bytes.HasPrefix(kp.PrivatePEM, []byte("-----BEGIN "+PrivateKeyPEMType+"-----")) {
				t.Errorf("private key PEM starts %q", strings.SplitN(string(kp.PrivatePEM), "\n", 2)[0])
			}
			if !bytes.HasPrefix(kp.PublicPEM, []byte("-----BEGIN PUBLIC KEY-----")) {
				t.Errorf("public key PEM starts %q", strings.SplitN(string(kp.PublicPEM), "\n", 2)[0])
			}

			key, err := LoadPrivateKey(kp.PrivatePEM, []byte(tt.passphrase))
			if err != nil {
				t.Fatalf("LoadPrivateKey: %v", err)
			}
			if key.Fingerprint() != kp.Key.Fingerprint() || key.Algorithm() != tt.want {
				t.Errorf("loaded key %s %s, want %s %s", key.Algorithm(), key.Fingerprint(), tt.want, kp.Key.Fingerprint())
			}
			if tt.passphrase != "" {
				if _, err := LoadPrivateKey(kp.PrivatePEM, nil); !errors.Is(err, ErrDecryptKey) {
					t.Errorf("wrong passphrase: err = %v, want ErrDecryptKey", err)
				}
			}
			pub, err := LoadPublicKey(kp.PublicPEM)
			if err != nil {
				t.Fatalf("LoadPublicKey: %v", err)
			}
			if Fingerprint(pub) != kp.Key.Fingerprint() {
				t.Errorf("public key fingerprint %s, want %s", Fingerprint(pub), kp.Key.Fingerprint())
			}

			d := testDigest(1)
			id, err := Verify(context.Background(), signKey(t, key, d), d, VerifyOptions{PublicKeys: []crypto.PublicKey{pub}})
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if id != (Identity{KeyFingerprint: kp.Key.Fingerprint()}) {
				t.Errorf("identity %v", id)
			}
		})
	}
}

func TestFingerprintIsSHA256OfPKIX(t *testing.T) {
	kp := newKey(t, ECDSAP256)
	der, err := x509.MarshalPKIXPublicKey(kp.Key.Public())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	want := "sha256:" + hex.EncodeToString(sum[:])
	if got := kp.Key.Fingerprint(); got != want {
		t.Errorf("Fingerprint = %s, want %s", got, want)
	}
	if got := Fingerprint(kp.Key.Public()); got != want {
		t.Errorf("Fingerprint(pub) = %s, want %s", got, want)
	}
	if got := Fingerprint(struct{}{}); got != "" {
		t.Errorf("Fingerprint(non-key) = %q, want empty", got)
	}
}

func TestWriteKeyPair(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	prefix := filepath.Join(dir, "skillpm")
	kp := newKey(t, ECDSAP256)

	keyPath, pubPath, err := WriteKeyPair(ctx, prefix, kp, false)
	if err != nil {
		t.Fatal(err)
	}
	if keyPath != prefix+".key" || pubPath != prefix+".pub" {
		t.Errorf("paths %s %s", keyPath, pubPath)
	}
	for path, mode := range map[string]os.FileMode{keyPath: 0o600, pubPath: 0o644} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s mode %v, want %v", path, fi.Mode().Perm(), mode)
		}
	}
	got, err := os.ReadFile(keyPath)
	if err != nil || !bytes.Equal(got, kp.PrivatePEM) {
		t.Errorf("key file content differs (err %v)", err)
	}

	other := newKey(t, Ed25519)
	if _, _, err := WriteKeyPair(ctx, prefix, other, false); !errors.Is(err, ErrKeyExists) {
		t.Errorf("second write: err = %v, want ErrKeyExists", err)
	}
	if got, _ := os.ReadFile(keyPath); !bytes.Equal(got, kp.PrivatePEM) {
		t.Error("a refused write changed the key file")
	}
	if _, _, err := WriteKeyPair(ctx, prefix, other, true); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if got, _ := os.ReadFile(pubPath); !bytes.Equal(got, other.PublicPEM) {
		t.Error("overwrite did not replace the public key")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries, want the 2 key files (no temporaries)", len(entries))
	}
}

func TestLoadPlainPrivateKeys(t *testing.T) {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	sec1, err := x509.MarshalECPrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		pem  []byte
		want Algorithm
	}{
		{"pkcs8 ecdsa", pkcs8(ec), ECDSAP256},
		{"pkcs8 ed25519", pkcs8(ed), Ed25519},
		{"sec1 ecdsa", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}), ECDSAP256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := LoadPrivateKey(tt.pem, []byte("ignored"))
			if err != nil {
				t.Fatal(err)
			}
			if k.Algorithm() != tt.want {
				t.Errorf("Algorithm = %s, want %s", k.Algorithm(), tt.want)
			}
			// A plain key signs like any other.
			b := signKey(t, k, testDigest(1))
			if _, err := Verify(context.Background(), b, testDigest(1), VerifyOptions{PublicKeys: []crypto.PublicKey{k.Public()}}); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}

func TestLoadKeyErrors(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der := func(k any) []byte {
		d, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	pubDER := func(k any) []byte {
		d, err := x509.MarshalPKIXPublicKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	block := func(typ string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}) }
	kp := newKey(t, ECDSAP256)

	privTests := []struct {
		name string
		pem  []byte
		want error
	}{
		{"not PEM", []byte("hello"), ErrInvalidKey},
		{"public key as private", kp.PublicPEM, ErrInvalidKey},
		{"RSA", block("PRIVATE KEY", der(rsaKey)), ErrUnsupportedKey},
		{"P-384", block("PRIVATE KEY", der(p384)), ErrUnsupportedKey},
		{"garbage PKCS#8", block("PRIVATE KEY", []byte("garbage")), ErrInvalidKey},
		{"garbage encrypted body", block(PrivateKeyPEMType, []byte("{}")), ErrDecryptKey},
	}
	for _, tt := range privTests {
		t.Run("private/"+tt.name, func(t *testing.T) {
			if _, err := LoadPrivateKey(tt.pem, nil); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	pubTests := []struct {
		name string
		pem  []byte
		want error
	}{
		{"not PEM", []byte("hello"), ErrInvalidKey},
		{"private key as public", kp.PrivatePEM, ErrInvalidKey},
		{"RSA", block("PUBLIC KEY", pubDER(&rsaKey.PublicKey)), ErrUnsupportedKey},
		{"P-384", block("PUBLIC KEY", pubDER(&p384.PublicKey)), ErrUnsupportedKey},
		{"garbage", block("PUBLIC KEY", []byte("garbage")), ErrInvalidKey},
	}
	for _, tt := range pubTests {
		t.Run("public/"+tt.name, func(t *testing.T) {
			if _, err := LoadPublicKey(tt.pem); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := GenerateKey("rsa-4096", nil); !errors.Is(err, ErrUnsupportedAlgorithm) {
		t.Errorf("GenerateKey(rsa): err = %v, want ErrUnsupportedAlgorithm", err)
	}
}

// TestReadKeyFile: a small file reads whole; one larger than any key is
// refused as not a key, with the bound it broke.
func TestReadKeyFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "cosign.pub")
	if err := os.WriteFile(small, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadKeyFile(small); err != nil || string(data) != "key" {
		t.Errorf("ReadKeyFile(small) = %q, %v", data, err)
	}
	big := filepath.Join(dir, "big.pub")
	if err := os.WriteFile(big, make([]byte, maxKeyFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadKeyFile(big)
	if _, ok := errors.AsType[*boundedfile.TooLargeError](err); !ok || !strings.Contains(err.Error(), "not a key") {
		t.Errorf("ReadKeyFile(big) = %v, want a TooLargeError, not a key", err)
	}
}
