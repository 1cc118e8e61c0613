package engine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/sign"
)

// TestVerifyBlob: a signature verifies with its key and names it, is
// refused (class trust) with another key, and a key file that is missing
// or not a key is an InputFileError saying which.
func TestVerifyBlob(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key, err := sign.GenerateKey("", nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := sign.GenerateKey("", nil)
	if err != nil {
		t.Fatal(err)
	}
	file := write("SHA256SUMS", []byte("abc  skillpm\n"))
	sig, err := sign.SignBlob(ctx, bytes.NewReader([]byte("abc  skillpm\n")), key.Key)
	if err != nil {
		t.Fatal(err)
	}
	sigFile := write("SHA256SUMS.sig", sig)
	pub, otherPub := write("k.pub", key.PublicPEM), write("o.pub", other.PublicPEM)

	res, err := engine.VerifyBlob(ctx, engine.VerifyBlobRequest{File: file, SignatureFile: sigFile, KeyFiles: []string{otherPub, pub}})
	if err != nil || res.KeyFingerprint != sign.Fingerprint(key.Key.Public()) {
		t.Fatalf("VerifyBlob = %+v, %v; want the key's fingerprint", res, err)
	}
	_, err = engine.VerifyBlob(ctx, engine.VerifyBlobRequest{File: file, SignatureFile: sigFile, KeyFiles: []string{otherPub}})
	if !errors.Is(err, sign.ErrUntrustedKey) {
		t.Errorf("another key: %v, want ErrUntrustedKey", err)
	}
	for _, c := range []struct {
		keys  []string
		sig   string
		role  string
		parse bool
	}{
		{[]string{filepath.Join(dir, "missing.pub")}, sigFile, "key", false},
		{[]string{file}, sigFile, "key", true},
		{[]string{pub}, filepath.Join(dir, "missing.sig"), "signature", false},
	} {
		_, err := engine.VerifyBlob(ctx, engine.VerifyBlobRequest{File: file, SignatureFile: c.sig, KeyFiles: c.keys})
		fe, ok := errors.AsType[*engine.InputFileError](err)
		if !ok || fe.Role != c.role || fe.Parse != c.parse {
			t.Errorf("keys %v, signature %s: %v, want an InputFileError for the %s (parse %v)", c.keys, c.sig, err, c.role, c.parse)
		}
	}
}
