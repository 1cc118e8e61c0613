package tiers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/sign"
)

// TestAdvisors: an advisor rule lets its identities advise on its
// scopes only; a malformed one is reported at its line.
func TestAdvisors(t *testing.T) {
	dir := t.TempDir()
	kp, err := sign.GenerateKey(sign.DefaultAlgorithm, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "market.pub"), kp.PublicPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	src := "version: 1\npolicies: []\nadvisors:\n  - name: market\n    scopes: [\"ghcr.io/acme/*\"]\n    identities:\n      - key: market.pub\n"
	p, err := Parse(context.Background(), filepath.Join(dir, "policy.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	id := sign.Identity{KeyFingerprint: sign.Fingerprint(kp.Key.Public())}
	if _, ok := p.Advisor(id, "ghcr.io/acme/web"); !ok {
		t.Error("the advisor may not advise on its scope")
	}
	if _, ok := p.Advisor(id, "ghcr.io/other/web"); ok {
		t.Error("the advisor may advise outside its scope")
	}
	if !p.NamesAdvisor(id) || p.NamesAdvisor(sign.Identity{KeyFingerprint: "sha256:" + strings.Repeat("0", 64)}) {
		t.Error("NamesAdvisor is wrong")
	}
	_, err = Parse(context.Background(), filepath.Join(dir, "policy.yaml"), []byte("version: 1\nadvisors:\n  - name: market\n    scope: [\"*\"]\n"))
	var pe *PolicyError
	if !errors.As(err, &pe) {
		t.Fatalf("malformed advisor: %v, want a *PolicyError", err)
	}
	var msgs []string
	for _, pr := range pe.Problems {
		msgs = append(msgs, fmt.Sprintf("%d: %s", pr.Line, pr.Message))
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{"3: advisor \"market\" has no scopes", "3: advisor \"market\" has no identities", "4: unknown key \"scope\" in an advisor"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems:\n%s\nwant %q", got, want)
		}
	}
}

// TestNamesSigner: a rule names its identities whatever its scope; an
// identity no rule names, or a nil policy, is named by none.
func TestNamesSigner(t *testing.T) {
	named := "sha256:" + strings.Repeat("1", 64)
	src := "version: 1\npolicies:\n  - name: a\n    scopes: ['ghcr.io/acme/*']\n    tier: community\n    identities: [{keyFingerprint: " + named + "}]\n"
	p, err := Parse(context.Background(), "policy.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !p.NamesSigner(sign.Identity{KeyFingerprint: named}) {
		t.Error("the rule's identity is not named")
	}
	if p.NamesSigner(sign.Identity{KeyFingerprint: "sha256:" + strings.Repeat("0", 64)}) || (*Policy)(nil).NamesSigner(sign.Identity{KeyFingerprint: named}) {
		t.Error("an identity no rule names is named")
	}
}
