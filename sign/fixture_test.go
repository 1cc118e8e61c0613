package sign

import (
	"context"
	"crypto"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/opencontainers/go-digest"
)

// The manifest cosign signed for testdata/cosign-sign (see its README).
const cosignFixtureDigest = digest.Digest("sha256:29de6d85ab65d87f8704adfb4e21e93bd4df8d90fdbee027134aae48e9abfe4a")

// cosignFixture returns the bundle `cosign sign` pushed and its key.
func cosignFixture(t testing.TB) ([]byte, crypto.PublicKey) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "cosign-sign", "bundle.sigstore.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := os.ReadFile(filepath.Join("testdata", "cosign-sign", "cosign.pub"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := LoadPublicKey(p)
	if err != nil {
		t.Fatal(err)
	}
	return b, pub
}

// skillpm verifies a signature made by `cosign sign --new-bundle-format`
// and signs the very statement cosign signed.
func TestVerifyCosignSignFixture(t *testing.T) {
	ctx := context.Background()
	b, pub := cosignFixture(t)
	opts := VerifyOptions{PublicKeys: []crypto.PublicKey{pub}, TrustedRoots: publicGoodRoots(t)}
	id, err := Verify(ctx, b, cosignFixtureDigest, opts)
	if err != nil {
		t.Fatal(err)
	}
	if id != (Identity{KeyFingerprint: Fingerprint(pub)}) {
		t.Errorf("identity %v", id)
	}
	if _, err := Verify(ctx, b, testDigest(1), opts); !errors.Is(err, ErrDigestMismatch) {
		t.Errorf("another digest: %v", err)
	}
	st, err := Statement(cosignFixtureDigest, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := payloadOf(t, b); string(got) != string(st) {
		t.Errorf("cosign signed\n%s\nskillpm signs\n%s", got, st)
	}
}
