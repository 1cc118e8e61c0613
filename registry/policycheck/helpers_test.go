package policycheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// testClient returns a Client with its own cache and embedded registry,
// plain HTTP to loopback registries and fast retries.
func testClient(t testing.TB) *registry.Client {
	t.Helper()
	c, err := registry.New(registry.Options{
		CacheDir:    filepath.Join(t.TempDir(), "cache"),
		EmbeddedDir: filepath.Join(t.TempDir(), "registry"),
		Retry:       registry.RetryPolicy{MaxRetries: 3, MinWait: 5 * time.Millisecond, MaxWait: 20 * time.Millisecond},
		Credentials: credentials.NewMemoryStore(),
		PlainHTTP:   true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// build builds the skill name@version (at tier, with permissions) without
// git metadata, so digests are stable.
func build(t testing.TB, name, version, tier string, permissions ...string) *registry.Artifact {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: Test skill %s for verification tests. Use when testing.\nversion: %q\nlicense: MIT\n", name, name, version)
	fmt.Fprintf(&b, "metadata:\n  gaia:\n    security_tier: %s\n", tier)
	if len(permissions) > 0 {
		b.WriteString("    permissions:\n")
		for _, p := range permissions {
			fmt.Fprintf(&b, "      - %s\n", p)
		}
	}
	fmt.Fprintf(&b, "---\n# %s\n\nDo the thing for version %s.\n", name, version)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := registry.Build(context.Background(), dir, registry.BuildOptions{NoVCS: true})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// publish publishes a to src and returns its manifest there, signed by
// each of signers.
func publish(t testing.TB, c *registry.Client, src registry.Source, a *registry.Artifact, signers ...*sign.PrivateKey) (*registry.Repository, *registry.SkillVersion) {
	t.Helper()
	ctx := context.Background()
	res, err := c.Publish(ctx, src, a, registry.PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := c.Repository(src, a.Skill.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range signers {
		if _, err := repo.AttachSignature(ctx, res.Descriptor, signWith(t, k, res.Descriptor), registry.AttachOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	m, err := repo.Manifest(ctx, res.Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	return repo, m
}

// testKeys makes two signing keys of different kinds.
func testKeys(t testing.TB) (publisher, auditor *sign.PrivateKey) {
	t.Helper()
	a, err := sign.GenerateKey(sign.ECDSAP256, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sign.GenerateKey(sign.Ed25519, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a.Key, b.Key
}

func signWith(t testing.TB, key *sign.PrivateKey, m ocispec.Descriptor) []byte {
	t.Helper()
	sig, err := sign.Sign(context.Background(), m, sign.SignOptions{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return sig.Bundle
}

func trustKeys(keys ...*sign.PrivateKey) sign.VerifyOptions {
	var vo sign.VerifyOptions
	for _, k := range keys {
		vo.PublicKeys = append(vo.PublicKeys, k.Public())
	}
	return vo
}

// marketplacePolicy trusts the publisher for community and the auditor
// for verified, everywhere.
func marketplacePolicy(t *testing.T, publisher, auditor *sign.PrivateKey) *tiers.Policy {
	t.Helper()
	dir := t.TempDir()
	for name, k := range map[string]*sign.PrivateKey{"publisher.pub": publisher, "auditor.pub": auditor} {
		if err := os.WriteFile(filepath.Join(dir, name), k.PublicKeyPEM(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	yaml := `version: 1
policies:
  - name: publishers
    scopes: ["*"]
    tier: community
    identities:
      - key: publisher.pub
  - name: auditors
    scopes: ["*"]
    tier: verified
    identities:
      - key: auditor.pub
`
	path := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := tiers.Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
