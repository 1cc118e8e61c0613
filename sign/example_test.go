package sign_test

import (
	"context"
	"crypto"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/sign"
)

// Generate a key in memory, sign a skill manifest's digest and verify the
// bundle back into the signer's identity.
func Example() {
	ctx := context.Background()
	kp, err := sign.GenerateKey(sign.ECDSAP256, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	manifest := ocispec.Descriptor{
		MediaType: ocispec.MediaTypeImageManifest,
		Digest:    digest.FromString(`{"schemaVersion":2}`),
		Size:      19,
	}
	sig, err := sign.Sign(ctx, manifest, sign.SignOptions{Key: kp.Key})
	if err != nil {
		fmt.Println(err)
		return
	}
	pub, err := sign.LoadPublicKey(kp.PublicPEM)
	if err != nil {
		fmt.Println(err)
		return
	}
	id, err := sign.Verify(ctx, sig.Bundle, manifest.Digest, sign.VerifyOptions{PublicKeys: []crypto.PublicKey{pub}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("key signature:", id.IsKey())
	fmt.Println("signed by the key:", id.KeyFingerprint == kp.Key.Fingerprint())
	// Output:
	// key signature: true
	// signed by the key: true
}
