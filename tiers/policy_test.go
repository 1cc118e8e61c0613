package tiers

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	goldenfile "github.com/skillpm/skillpm/internal/golden"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixtures is the shared policy fixture directory.
var fixtures = filepath.Join("..", "testdata", "policy")

// keyID returns the identity of a test key under testdata/policy/keys.
func keyID(t testing.TB, name string) sign.Identity {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, "keys", name+".pub"))
	if err != nil {
		t.Fatal(err)
	}
	fp, err := FingerprintPEM(data)
	if err != nil {
		t.Fatal(err)
	}
	return sign.Identity{KeyFingerprint: fp}
}

// newKeyPEM makes a fresh public key in PEM, for tests only.
func newKeyPEM(t testing.TB, ed bool) (pub any, pemData []byte) {
	t.Helper()
	if ed {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return pub, encodePub(t, pub)
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &k.PublicKey, encodePub(t, &k.PublicKey)
}

func encodePub(t testing.TB, pub any) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func loadDemo(t testing.TB) *Policy {
	t.Helper()
	p, err := Load(context.Background(), filepath.Join(fixtures, "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDemo(t *testing.T) {
	p := loadDemo(t)
	var names []string
	for _, r := range p.Rules {
		names = append(names, r.Name+"="+string(r.Tier))
	}
	want := []string{"acme-release=verified", "acme-legacy=experimental", "publishers=community", "marketplace-audit=verified", "any-publisher=community"}
	if !slices.Equal(names, want) {
		t.Errorf("rules = %v, want %v", names, want)
	}
	if got := p.Rules[0].Identities[1].KeyFingerprint; got != keyID(t, "acme-release").KeyFingerprint {
		t.Errorf("key fingerprint = %s", got)
	}
	if p.Ceilings.Experimental.String() != "filesystem:read, network:read, env:read, database:read" || !p.Ceilings.Community.All {
		t.Errorf("ceilings = %+v", p.Ceilings)
	}
	if p.IsDefault() || p.Source == "" {
		t.Errorf("Source = %q", p.Source)
	}
}

func TestLoadRoots(t *testing.T) {
	p, err := Load(context.Background(), filepath.Join(fixtures, "roots.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.TrustedRoots) != 1 || !strings.HasSuffix(p.TrustedRoots[0], filepath.Join("roots", "private-sigstore.json")) {
		t.Errorf("TrustedRoots = %v", p.TrustedRoots)
	}
	if p.Ceilings.Community.All || !p.Ceilings.Verified.All || p.Dangerous.String() != "shell:execute, filesystem:write" {
		t.Errorf("ceilings %+v dangerous %v", p.Ceilings, p.Dangerous)
	}
}

// TestFingerprint: the fingerprint of a key file is sign's definition, for
// both key types skillpm keygen makes.
func TestFingerprint(t *testing.T) {
	for _, ed := range []bool{false, true} {
		pub, data := newKeyPEM(t, ed)
		want, err := Fingerprint(pub)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FingerprintPEM(data)
		if err != nil || got != want || !validFingerprint(got) {
			t.Errorf("FingerprintPEM = %q, %v; want %q", got, err, want)
		}
	}
	priv := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: []byte{1}})
	if _, err := FingerprintPEM(priv); err == nil || !strings.Contains(err.Error(), "private key") {
		t.Errorf("private key: err = %v", err)
	}
}

// TestKeyRelativeToPolicy: key paths are resolved against the policy
// file's directory, wherever the process runs.
func TestKeyRelativeToPolicy(t *testing.T) {
	dir := t.TempDir()
	pub, data := newKeyPEM(t, false)
	if err := os.MkdirAll(filepath.Join(dir, "keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keys", "k.pub"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	src := "version: 1\npolicies:\n  - name: k\n    scopes: [\"*\"]\n    tier: verified\n    identities:\n      - key: keys/k.pub\n"
	p, err := Parse(context.Background(), filepath.Join(dir, "policy.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Fingerprint(pub)
	if p.Rules[0].Identities[0].KeyFingerprint != want {
		t.Errorf("fingerprint %s, want %s", p.Rules[0].Identities[0].KeyFingerprint, want)
	}
}

// TestInvalidPolicies: every invalid fixture fails with positioned problems
// that say how to fix them; the full output is golden.
func TestInvalidPolicies(t *testing.T) {
	dir := filepath.Join(fixtures, "invalid")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		_, err := Load(context.Background(), path)
		var pe *PolicyError
		if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidPolicy) {
			t.Errorf("%s: err = %v, want a *PolicyError", e.Name(), err)
			continue
		}
		out.WriteString("== " + e.Name() + "\n")
		for _, p := range pe.Problems {
			if p.File != path || p.Line == 0 || p.Hint == "" {
				t.Errorf("%s: problem without position or hint: %+v", e.Name(), p)
			}
			out.WriteString(filepath.ToSlash(p.String()) + "\n")
		}
	}
	golden(t, filepath.Join("testdata", "invalid.golden"), out.String())
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Check(t, path, []byte(got), *update)
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "policy.yaml:1:1: policy file is empty"},
		{"comment only", "# nothing\n", "policy.yaml:1:1: policy file is empty"},
		{"two documents", "version: 1\n---\nversion: 1\n", "more than one YAML document"},
		{"version string", "version: \"1\"\n", `policy.yaml:1:10: version must be the number 1, not the string "1"`},
		{"duplicate key", "version: 1\nversion: 1\n", "policy.yaml:2:1: key version appears twice"},
		{"suggestion", "version: 1\npolicy: []\n", "did you mean policies?"},
		{"tier suggestion", "version: 1\npolicies:\n  - name: a\n    scopes: ['*']\n    tier: Verified\n    identities: [{keyFingerprint: sha256:" + strings.Repeat("0", 64) + "}]\n", "did you mean verified?"},
		{"both issuer forms", "version: 1\npolicies:\n  - name: a\n    scopes: ['*']\n    tier: community\n    identities: [{issuer: x, issuerRegExp: y, subject: z}]\n", "identity has both issuer and issuerRegExp"},
		{"key and fingerprint", "version: 1\npolicies:\n  - name: a\n    scopes: ['*']\n    tier: community\n    identities: [{key: k.pub, keyFingerprint: sha256:" + strings.Repeat("0", 64) + "}]\n", "identity has both key and keyFingerprint"},
		{"ceiling scalar", "version: 1\nceilings:\n  community: 3\n", "ceiling for community must be all or a list"},
		{"policies mapping", "version: 1\npolicies: {a: b}\n", "policies must be a list, not a mapping"},
		{"non-string key", "version: 1\n? [a]\n: b\n", "has a key that is not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(context.Background(), "policy.yaml", []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseMinimal(t *testing.T) {
	p, err := Parse(context.Background(), "p.yaml", []byte("version: 1\npolicies:\nceilings:\n  experimental: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) != 0 || p.Ceilings.Experimental.All || len(p.Ceilings.Experimental.Permissions) != 0 || !p.Ceilings.Verified.All {
		t.Errorf("policy = %+v", p)
	}
	if p.Dangerous.String() != DefaultDangerous().String() {
		t.Errorf("dangerous = %v", p.Dangerous)
	}
}

func TestSearchPathAndFind(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	abs := func(p ...string) string { return filepath.Join(append([]string{string(filepath.Separator)}, p...)...) }
	etc := abs("etc", "skillpm", "policy.yaml")
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"xdg", map[string]string{"XDG_CONFIG_HOME": abs("cfg"), "HOME": abs("home")}, []string{abs("cfg", "skillpm", "policy.yaml"), etc}},
		{"home", map[string]string{"HOME": abs("home")}, []string{abs("home", ".config", "skillpm", "policy.yaml"), etc}},
		{"relative xdg ignored", map[string]string{"XDG_CONFIG_HOME": "cfg", "HOME": abs("home")}, []string{abs("home", ".config", "skillpm", "policy.yaml"), etc}},
		{"nothing", nil, []string{etc}},
	}
	for _, tt := range tests {
		if got := SearchPath(env(tt.env)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: SearchPath = %v, want %v", tt.name, got, tt.want)
		}
	}

	getenv := env(map[string]string{"XDG_CONFIG_HOME": abs("cfg")})
	statOnly := func(exist ...string) func(string) (fs.FileInfo, error) {
		return func(p string) (fs.FileInfo, error) {
			if slices.Contains(exist, p) {
				return nil, nil
			}
			return nil, fs.ErrNotExist
		}
	}
	user := abs("cfg", "skillpm", "policy.yaml")
	if got := Find("x.yaml", getenv, statOnly()); got != "x.yaml" {
		t.Errorf("override: %q", got)
	}
	if got := Find("", getenv, statOnly(user, etc)); got != user {
		t.Errorf("user first: %q", got)
	}
	if got := Find("", getenv, statOnly(etc)); got != etc {
		t.Errorf("then /etc: %q", got)
	}
	if got := Find("", getenv, statOnly()); got != "" {
		t.Errorf("none: %q", got)
	}
	denied := func(string) (fs.FileInfo, error) { return nil, fs.ErrPermission }
	if got := Find("", getenv, denied); got != user {
		t.Errorf("unreadable file is still found so loading says why: %q", got)
	}
}

func TestLoadEffective(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}
	// No file in the user's config: the built-in default (unless /etc has
	// one on this machine).
	if _, err := os.Stat(filepath.Join("/etc", "skillpm", "policy.yaml")); errors.Is(err, fs.ErrNotExist) {
		p, err := LoadEffective(ctx, "", getenv)
		if err != nil || !p.IsDefault() || len(p.Rules) != 0 {
			t.Errorf("default: %+v, %v", p, err)
		}
	}
	// An explicit --policy that does not exist is an error, not the default.
	_, err := LoadEffective(ctx, filepath.Join(dir, "nope.yaml"), getenv)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing override: %v", err)
	}
	// The user's file is used.
	if err := os.MkdirAll(filepath.Join(dir, "skillpm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "skillpm", "policy.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadEffective(ctx, "", getenv)
	if err != nil || p.Source != filepath.Join(dir, "skillpm", "policy.yaml") {
		t.Errorf("user file: %+v, %v", p, err)
	}
}

func TestDefault(t *testing.T) {
	p := Default()
	if !p.IsDefault() || len(p.Rules) != 0 || p.Version != 1 {
		t.Errorf("Default() = %+v", p)
	}
	// Defaults are fresh values: changing one does not change the next.
	p.Dangerous[0] = skill.Permission{Domain: "env", Level: "read"}
	if DefaultDangerous()[0].Key() != "shell:execute" {
		t.Error("DefaultDangerous shares its slice")
	}
	var nilPolicy *Policy
	if !nilPolicy.IsDefault() {
		t.Error("nil policy is not the default")
	}
}

// TestIdentityKeyPath: a relative key is beside the policy file, an
// absolute one is itself.
func TestIdentityKeyPath(t *testing.T) {
	dir := filepath.Join(string(filepath.Separator), "etc", "skillpm")
	abs := filepath.Join(string(filepath.Separator), "keys", "a.pub")
	for _, tt := range []struct{ key, want string }{
		{"keys/a.pub", filepath.Join(dir, "keys", "a.pub")},
		{"a.pub", filepath.Join(dir, "a.pub")},
		{abs, abs},
	} {
		if got := (IdentityRule{Key: tt.key}).KeyPath(dir); got != tt.want {
			t.Errorf("KeyPath(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}
