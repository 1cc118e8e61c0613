package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/api"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// testSkill is one skill to publish: permissions and skill dependencies
// go into metadata.gaia; signed skills are signed by the publisher key.
type testSkill struct {
	name, version string
	permissions   []string
	requires      map[string]string
	unsigned      bool
	// files are written beside SKILL.md (path -> content).
	files map[string]string
}

// testPolicy makes the publisher's signatures community in the embedded
// registry and narrows the community ceiling, so desktop:control is above
// it and shell:execute (dangerous) needs a grant.
const testPolicy = `version: 1
policies:
  - name: publishers
    scopes: ["*"]
    tier: community
    identities:
      - key: publisher.pub
ceilings:
  community: [filesystem:read, network:read, shell:execute]
advisors:
  - name: publishers
    scopes: ["*"]
    identities:
      - key: publisher.pub
`

// fixtureSkills are published to the embedded registry of every fixture.
var fixtureSkills = []testSkill{
	{name: "notes", version: "1.0.0"},
	{name: "code", version: "1.2.0", permissions: []string{"shell:execute:git"}},
	{name: "fix", version: "1.0.0", requires: map[string]string{"notes": "^1"}},
	{name: "wild", version: "0.1.0", unsigned: true},
	{name: "desk", version: "1.0.0", permissions: []string{"desktop:control"}},
}

func writeTestSkill(t testing.TB, parent string, s testSkill) string {
	t.Helper()
	dir := filepath.Join(parent, s.name+"-"+s.version, s.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("---\nname: " + s.name + "\ndescription: Test skill " + s.name + ". Use in API tests.\nversion: " + s.version + "\n")
	b.WriteString("metadata:\n  gaia:\n")
	if !s.unsigned {
		b.WriteString("    security_tier: community\n")
	}
	{
		if len(s.permissions) > 0 {
			b.WriteString("    permissions:\n")
			for _, p := range s.permissions {
				b.WriteString("      - " + p + "\n")
			}
		}
		if len(s.requires) > 0 {
			b.WriteString("    requirements:\n      skills:\n")
			for n, r := range s.requires {
				b.WriteString("        " + n + ": \"" + r + "\"\n")
			}
		}
	}
	b.WriteString("---\n# " + s.name + "\n\nBody.\n")
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for rel, content := range s.files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Publish builds, publishes and (unless unsigned) signs each skill in src.
func Publish(t testing.TB, c *registry.Client, src registry.Source, key *sign.PrivateKey, skills []testSkill) {
	t.Helper()
	ctx := context.Background()
	work := t.TempDir()
	for _, s := range skills {
		a, err := registry.Build(ctx, writeTestSkill(t, work, s), registry.BuildOptions{NoVCS: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Publish(ctx, src, a, registry.PublishOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.unsigned {
			continue
		}
		sig, err := sign.Sign(ctx, res.Descriptor, sign.SignOptions{Key: key})
		if err != nil {
			t.Fatal(err)
		}
		repo, err := c.Repository(src, s.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := repo.AttachSignature(ctx, res.Descriptor, sig.Bundle, registry.AttachOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// NewClient returns a registry client with its own embedded registry,
// cache and credentials.
func NewClient(t testing.TB, embedded string) *registry.Client {
	t.Helper()
	c, err := registry.New(registry.Options{
		PlainHTTP:   true,
		CacheDir:    filepath.Join(t.TempDir(), "cache"),
		EmbeddedDir: embedded,
		Credentials: credentials.NewMemoryStore(),
		Retry:       registry.RetryPolicy{MaxRetries: 1, MinWait: 5 * time.Millisecond, MaxWait: 20 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Trust writes the publisher key and the test policy in a directory and
// returns the loaded policy and its trust material.
func Trust(t testing.TB, key *sign.KeyPair) (*tiers.Policy, sign.VerifyOptions) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "publisher.pub"), key.PublicPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(path, []byte(testPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := tiers.Load(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	vo, err := policycheck.PolicyTrust(ctx, p, policycheck.TrustOptions{NoPublicGood: true})
	if err != nil {
		t.Fatal(err)
	}
	return p, vo
}

// fixture is a running API server over an embedded registry holding
// fixtureSkills, with its own HOME.
type fixture struct {
	t     *testing.T
	url   string
	host  string
	token string
	home  string
	srv   *api.Server
	// key signed the fixture's skills; client holds its registry.
	key    *sign.KeyPair
	client *registry.Client
	cfg    api.Config
	// spec checks every /api/ response the fixture gets.
	spec *specChecker
}

func newFixture(t *testing.T, mod func(*api.Config)) *fixture {
	t.Helper()
	return newFixtureWith(t, fixtureSkills, mod)
}

// newFixtureWith is newFixture publishing skills instead of fixtureSkills.
func newFixtureWith(t *testing.T, skills []testSkill, mod func(*api.Config)) *fixture {
	t.Helper()
	kp, err := sign.GenerateKey("", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(t, filepath.Join(t.TempDir(), "registry"))
	Publish(t, c, c.Embedded(), kp.Key, skills)
	policy, trust := Trust(t, kp)
	token, err := api.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ts := httptest.NewUnstartedServer(nil)
	cfg := api.Config{Client: c, Policy: policy, Trust: trust, Token: token, Addr: ts.Listener.Addr().String(),
		Env: install.Env{Home: home, Cwd: t.TempDir()}, LockWait: 10 * time.Minute}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := api.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv
	ts.Start()
	t.Cleanup(ts.Close)
	return &fixture{t: t, url: ts.URL, host: ts.Listener.Addr().String(), token: token, home: home, srv: srv, key: kp, client: c, cfg: cfg, spec: newSpecChecker(t)}
}

// do sends a request (with the token unless hdr overrides it) and
// decodes the JSON answer into out when out is not nil.
func (f *fixture) do(method, path string, body any, hdr map[string]string, out any) int {
	f.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			f.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, f.url+path, rd)
	if err != nil {
		f.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet {
		req.Header.Set(api.TokenHeader, f.token)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	f.spec.check(req, res, data)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			f.t.Fatalf("%s %s: %d: not JSON: %v\n%s", method, path, res.StatusCode, err, data)
		}
	}
	return res.StatusCode
}

// errBody is the shape of every error answer.
type errBody struct {
	Error api.Error `json:"error"`
}

type listBody struct {
	Skills []api.Skill `json:"skills"`
}

func (f *fixture) installed(host string) map[string]api.Skill {
	f.t.Helper()
	var l listBody
	if st := f.do("GET", "/api/skills?host="+host, nil, nil, &l); st != http.StatusOK {
		f.t.Fatalf("list: %d", st)
	}
	out := map[string]api.Skill{}
	for _, s := range l.Skills {
		out[s.Name] = s
	}
	return out
}
