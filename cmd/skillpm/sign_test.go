//go:build integration && cosign

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/registrytest"
)

const cosignInstall = "go install github.com/sigstore/cosign/v3/cmd/cosign@v3.1.3"

// cosign runs the real cosign CLI in its own HOME (no TUF cache, no
// ~/.sigstore) with COSIGN_PASSWORD set.
type cosign struct {
	t    *testing.T
	bin  string
	home string
}

func newCosign(t *testing.T) *cosign {
	c := &cosign{t: t, bin: registrytest.Binary(t, "cosign", cosignInstall), home: t.TempDir()}
	if out, err := c.run("", "version"); err != nil || !strings.Contains(out, "v3.") {
		t.Fatalf("need cosign v3 (%s): %v\n%s", cosignInstall, err, out)
	}
	return c
}

func (c *cosign) run(password string, args ...string) (string, error) {
	c.t.Helper()
	// A bound that catches a hung cosign, not a slow machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Dir = c.home
	cmd.Env = append(os.Environ(), "HOME="+c.home, "COSIGN_PASSWORD="+password, "COSIGN_YES=true", "TUF_ROOT="+filepath.Join(c.home, "tuf"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (c *cosign) verify(pub, ref string) (string, error) {
	return c.run("", "verify", "--key", pub, "--insecure-ignore-tlog=true", "--allow-http-registry", ref)
}

func jsonField(t *testing.T, doc, field string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	return m[field]
}

// TestSignCosignInterop checks both ways against the real cosign v3 CLI
// on a real distribution registry (referrers tag schema): cosign verify
// accepts what skillpm publish --sign attached (ECDSA and Ed25519 keys),
// and skillpm verify accepts what cosign sign attached, under a policy
// trusting cosign's key.
func TestSignCosignInterop(t *testing.T) {
	cs := newCosign(t)
	reg := registrytest.Start(t, registrytest.Options{})
	work := t.TempDir()
	cliEnv(t, work)
	repo := reg.Host + "/skills"

	t.Run("cosign-verifies-skillpm", func(t *testing.T) {
		for _, tc := range []struct{ alg, skill string }{{"ecdsa-p256", "web-research"}, {"ed25519", "web-search"}} {
			prefix := filepath.Join(work, "skillpm-"+tc.alg)
			t.Setenv(envPassword, "skillpm pass")
			skillpm(t, 0, "keygen", "--alg", tc.alg, "--output-prefix", prefix)
			out := skillpm(t, 0, "publish", filepath.Join("..", "..", "testdata", "skills", tc.skill), "--no-vcs",
				"--registry", repo, "--plain-http", "--sign", "--key", prefix+".key", "--output", "json")
			d, _ := jsonField(t, out, "digest").(string)
			ref := repo + "/" + tc.skill + "@" + d
			if out, err := cs.verify(prefix+".pub", ref); err != nil || !strings.Contains(out, "The signatures were verified against the specified public key") {
				t.Fatalf("cosign verify rejected skillpm's %s signature: %v\n%s", tc.alg, err, out)
			}
			// The check is real: another key is refused.
			other := filepath.Join(work, "other-"+tc.alg)
			skillpm(t, 0, "keygen", "--alg", tc.alg, "--output-prefix", other)
			if out, err := cs.verify(other+".pub", ref); err == nil {
				t.Errorf("cosign verify accepted skillpm's signature with another key:\n%s", out)
			}
		}
	})

	t.Run("skillpm-verifies-cosign", func(t *testing.T) {
		if out, err := cs.run("cosign pass", "generate-key-pair"); err != nil {
			t.Fatalf("cosign generate-key-pair: %v\n%s", err, out)
		}
		cosignPub := filepath.Join(cs.home, "cosign.pub")
		out := skillpm(t, 0, "publish", filepath.Join("..", "..", "testdata", "skills", "rag-search"), "--no-vcs", "--registry", repo, "--plain-http", "--output", "json")
		d, _ := jsonField(t, out, "digest").(string)
		ref := repo + "/rag-search@" + d
		if out, err := cs.run("cosign pass", "sign", "--key", "cosign.key", "--tlog-upload=false", "--use-signing-config=false",
			"--allow-http-registry", "--yes", ref); err != nil {
			t.Fatalf("cosign sign: %v\n%s", err, out)
		}
		policy := filepath.Join(work, "policy.yaml")
		if err := os.WriteFile(policy, []byte(`version: 1
policies:
  - name: cosign-signed
    scopes: ["`+repo+`/*"]
    tier: verified
    identities:
      - key: `+cosignPub+`
`), 0o644); err != nil {
			t.Fatal(err)
		}
		out = skillpm(t, 0, "verify", repo+"/rag-search@1.0.0", "--plain-http", "--policy", policy, "--min-tier", "verified", "--output", "json")
		if v := jsonField(t, out, "verified"); v != 1.0 {
			t.Errorf("verified %v, want 1:\n%s", v, out)
		}
		if tier := jsonField(t, out, "tier"); tier != "verified" {
			t.Errorf("tier %v, want verified:\n%s", tier, out)
		}
		// Without a policy (the built-in default) the cosign signature is
		// reported, and skillpm verify refuses (exit 5).
		out = skillpm(t, exitTrust, "verify", repo+"/rag-search@1.0.0", "--plain-http", "--output", "json")
		if f := jsonField(t, out, "failed"); f != 1.0 {
			t.Errorf("failed %v, want 1:\n%s", f, out)
		}

		// skillpm signs with cosign's key file (COSIGN_PASSWORD), and
		// cosign verifies that too.
		t.Setenv(envCosignPassword, "cosign pass")
		skillpm(t, 0, "sign", repo+"/web-research@1.0.0", "--plain-http", "--key", filepath.Join(cs.home, "cosign.key"))
		out = skillpm(t, 0, "info", repo+"/web-research@1.0.0", "--plain-http", "--output", "json")
		d, _ = jsonField(t, out, "digest").(string)
		if out, err := cs.verify(cosignPub, repo+"/web-research@"+d); err != nil {
			t.Errorf("cosign verify rejected skillpm's signature made with a cosign key: %v\n%s", err, out)
		}
	})
}
