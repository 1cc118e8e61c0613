package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// exampleSetup makes what the examples need in a temporary directory: a
// skill to publish, a signing key, a trust policy that gives the key's
// signatures the community tier, and an engine over an embedded registry
// with a home of its own. done removes it all.
func exampleSetup() (e *engine.Engine, key *sign.KeyPair, skillDir, home string, done func()) {
	opts, key, skillDir, home, done := exampleOptions()
	e, err := engine.Open(context.Background(), opts)
	if err != nil {
		log.Fatal(err)
	}
	return e, key, skillDir, home, done
}

// exampleOptions is exampleSetup's Options, before an engine is opened.
func exampleOptions() (opts engine.Options, key *sign.KeyPair, skillDir, home string, done func()) {
	dir, err := os.MkdirTemp("", "skillpm-example-")
	if err != nil {
		log.Fatal(err)
	}
	done = func() { os.RemoveAll(dir) }
	skillDir = filepath.Join(dir, "src", "notes")
	must(os.MkdirAll(skillDir, 0o755))
	must(os.WriteFile(filepath.Join(skillDir, "SKILL.md"), []byte(`---
name: notes
description: Keeps notes of a session. Use when the user asks to remember something.
version: 1.0.0
metadata:
  gaia:
    security_tier: community
---
# Notes

Write what the user asks to remember in NOTES.md.
`), 0o644))
	if key, err = sign.GenerateKey("", nil); err != nil {
		log.Fatal(err)
	}
	must(os.WriteFile(filepath.Join(dir, "publisher.pub"), key.PublicPEM, 0o644))
	policy := filepath.Join(dir, "policy.yaml")
	must(os.WriteFile(policy, []byte(`version: 1
policies:
  - name: publishers
    scopes: ["*"]
    tier: community
    identities:
      - key: publisher.pub
`), 0o644))
	client, err := registry.New(registry.Options{
		EmbeddedDir: filepath.Join(dir, "registry"), CacheDir: filepath.Join(dir, "cache"),
		Credentials: credentials.NewMemoryStore(),
	})
	if err != nil {
		log.Fatal(err)
	}
	home = filepath.Join(dir, "home")
	opts = engine.Options{Client: client, PolicyFile: policy, Env: hosts.Env{Home: home, Cwd: dir}}
	return opts, key, skillDir, home, done
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// Publish validates, packs, audits, pushes and signs a skill.
func ExampleEngine_Publish() {
	e, key, dir, _, done := exampleSetup()
	defer done()
	ctx := context.Background()

	res, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("published", res.Artifact.Skill.Name, res.Tag, "audit:", res.Audit.Verdict.Decision)
	fmt.Println("signed:", res.Signed.Signer.KeyFingerprint == sign.Fingerprint(key.Key.Public()))

	// Publishing the same content again changes nothing, and the key
	// that signed it does not sign again.
	again, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("again: unchanged", again.Unchanged, "signature unchanged", again.Signed.Unchanged)
	// Output:
	// published notes 1.0.0 audit: pass
	// signed: true
	// again: unchanged true signature unchanged true
}

// Install resolves, verifies and installs a signed skill into the
// default host's user root, as `skillpm install notes@^1` does.
func ExampleEngine_Install() {
	e, key, dir, home, done := exampleSetup()
	defer done()
	ctx := context.Background()
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		log.Fatal(err)
	}

	res, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes@^1"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Roots {
		rel, _ := filepath.Rel(home, r.Root.Dir)
		fmt.Println(r.Root.Host, rel, r.Installed)
	}
	for _, p := range res.Plan {
		fmt.Println(p.Lock.Name, p.Lock.Version, p.Lock.Tier)
	}
	// Output:
	// agents .agents/skills [notes]
	// notes 1.0.0 community
}

// Verify checks a published version's signatures against the trust
// policy and reports its tier.
func ExampleEngine_Verify() {
	e, key, dir, _, done := exampleSetup()
	defer done()
	ctx := context.Background()
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir}); err != nil {
		log.Fatal(err)
	}

	// Not signed yet: refused, with what was found.
	_, err := e.Verify(ctx, engine.VerifyRequest{Ref: "notes@1.0.0"})
	fmt.Println("unsigned refused:", err != nil)

	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		log.Fatal(err)
	}
	v, err := e.Verify(ctx, engine.VerifyRequest{Ref: "notes@1.0.0", MinTier: "community"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.Manifest.Metadata.Name, v.Manifest.Metadata.Version, "verified signatures:", v.Verified(), "tier:", v.Decision.Effective)

	_, err = e.Verify(ctx, engine.VerifyRequest{Ref: "notes@1.0.0", MinTier: "verified"})
	fmt.Println("below verified:", err != nil)
	// Output:
	// unsigned refused: true
	// notes 1.0.0 verified signatures: 1 tier: community
	// below verified: true
}
