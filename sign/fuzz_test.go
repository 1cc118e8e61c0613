package sign

import (
	"context"
	"crypto"
	"testing"
)

// FuzzVerifyBundle feeds arbitrary bytes to Verify as a bundle, trusting
// the cosign fixture's key and the public-good root. Verify must never
// panic, and nothing but the fixture's own key signature may verify.
func FuzzVerifyBundle(f *testing.F) {
	fixture, pub := cosignFixture(f)
	f.Add(fixture)
	opts := VerifyOptions{PublicKeys: []crypto.PublicKey{pub}, TrustedRoots: publicGoodRoots(f)}
	want := Identity{KeyFingerprint: Fingerprint(pub)}
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := Verify(context.Background(), data, cosignFixtureDigest, opts)
		if err != nil && id != (Identity{}) {
			t.Fatalf("failed bundle returned identity %v", id)
		}
		if err == nil && id != want {
			t.Fatalf("verified as %v, want %v", id, want)
		}
	})
}
