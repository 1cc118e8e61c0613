package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/sign"
)

// TestVerifyBlobFile: a signature verifies with its key and names it, is
// refused (class trust) with another key, and a key or signature file
// that is missing or not a key is a usage error naming its flag.
func TestVerifyBlobFile(t *testing.T) {
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

	fp, err := verifyBlobFile(ctx, file, sigFile, []string{otherPub, pub})
	if err != nil || fp != sign.Fingerprint(key.Key.Public()) {
		t.Fatalf("verifyBlobFile = %q, %v; want the key's fingerprint", fp, err)
	}
	_, err = verifyBlobFile(ctx, file, sigFile, []string{otherPub})
	if !errors.Is(err, sign.ErrUntrustedKey) {
		t.Errorf("another key: %v, want ErrUntrustedKey", err)
	}
	for _, c := range []struct {
		keys   []string
		sig    string
		prefix string
	}{
		{[]string{filepath.Join(dir, "missing.pub")}, sigFile, "--key: "},
		{[]string{file}, sigFile, "--key " + file + ": "},
		{[]string{pub}, filepath.Join(dir, "missing.sig"), "--signature: "},
	} {
		_, err := verifyBlobFile(ctx, file, c.sig, c.keys)
		if err == nil || errdef.ClassOf(err) != errdef.Usage || !strings.HasPrefix(err.Error(), c.prefix) {
			t.Errorf("keys %v, signature %s: %v, want a usage error starting %q", c.keys, c.sig, err, c.prefix)
		}
	}
}
