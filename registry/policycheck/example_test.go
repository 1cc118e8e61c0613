package policycheck_test

import (
	"context"
	"crypto"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/sign"
)

// Sign a published skill, attach the signature in cosign's layout, and
// verify it: what skillpm sign and skillpm verify do.
func ExampleVerifySkill() {
	ctx := context.Background()
	tmp, _ := os.MkdirTemp("", "skillpm-example-")
	defer os.RemoveAll(tmp)
	c, _ := registry.New(registry.Options{CacheDir: filepath.Join(tmp, "cache"), EmbeddedDir: filepath.Join(tmp, "registry")})
	a, err := registry.Build(ctx, "../../testdata/asf/fix", registry.BuildOptions{NoVCS: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.Publish(ctx, c.Embedded(), a, registry.PublishOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	repo, _ := c.Repository(c.Embedded(), "fix")

	kp, _ := sign.GenerateKey(sign.ECDSAP256, nil)
	sig, _ := sign.Sign(ctx, res.Descriptor, sign.SignOptions{Key: kp.Key})
	if _, err := repo.AttachSignature(ctx, res.Descriptor, sig.Bundle, registry.AttachOptions{}); err != nil {
		fmt.Println(err)
		return
	}

	// The trust material a policy names; here, just the key.
	trust, _ := policycheck.PolicyTrust(ctx, nil, policycheck.TrustOptions{Keys: []crypto.PublicKey{kp.Key.Public()}, NoPublicGood: true})
	m, _ := repo.Manifest(ctx, res.Descriptor)
	v, err := policycheck.VerifySkill(ctx, repo, m, policycheck.VerifyOptions{Trust: trust})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Repository, v.Verified(), "verified,", len(v.Failures()), "failed")
	fmt.Println(v.Signers[0] == sig.Identity, v.Decision.Effective)
	// Output:
	// embedded/fix 1 verified, 0 failed
	// true experimental
}
