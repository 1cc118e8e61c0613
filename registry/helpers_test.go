package registry

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"oras.land/oras-go/v2/registry/remote/credentials"
)

// skillSpec is a generated test skill.
type skillSpec struct {
	name, version string
	requires      map[string]string
	permissions   []string
	tier          string
	body          string
	files         map[string]string
}

// writeSkill writes s under parent/<unique>/<name> (the directory must be
// named after the skill) and returns the skill directory.
func writeSkill(t testing.TB, parent string, s skillSpec) string {
	t.Helper()
	base, err := os.MkdirTemp(parent, "src-")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, s.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: Test skill %s for registry tests. Use when testing.\nversion: %q\nlicense: MIT\n", s.name, s.name, s.version)
	b.WriteString("metadata:\n  gaia:\n")
	tier := s.tier
	if tier == "" {
		tier = "community"
	}
	fmt.Fprintf(&b, "    security_tier: %s\n", tier)
	if len(s.permissions) > 0 {
		b.WriteString("    permissions:\n")
		for _, p := range s.permissions {
			fmt.Fprintf(&b, "      - %s\n", p)
		}
	}
	if len(s.requires) > 0 {
		b.WriteString("    requirements:\n      skills:\n")
		names := make([]string, 0, len(s.requires))
		for n := range s.requires {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "        %s: %q\n", n, s.requires[n])
		}
	}
	body := s.body
	if body == "" {
		body = "Do the thing for version " + s.version + "."
	}
	fmt.Fprintf(&b, "---\n# %s\n\n%s\n", s.name, body)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, content := range s.files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testClient returns a Client with its own cache and embedded registry and
// fast retries, so failure tests do not wait seconds.
func testClient(t testing.TB, mod func(*Options)) *Client {
	t.Helper()
	opts := Options{
		CacheDir:    filepath.Join(t.TempDir(), "cache"),
		EmbeddedDir: filepath.Join(t.TempDir(), "registry"),
		Retry:       RetryPolicy{MaxRetries: 3, MinWait: 5 * time.Millisecond, MaxWait: 20 * time.Millisecond},
		Credentials: credentials.NewMemoryStore(),
	}
	if mod != nil {
		mod(&opts)
	}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// build builds an artifact without git metadata, so digests are stable.
func build(t testing.TB, dir string) *Artifact {
	t.Helper()
	a, err := Build(context.Background(), dir, BuildOptions{NoVCS: true})
	if err != nil {
		t.Fatalf("Build(%s): %v", dir, err)
	}
	return a
}

// publish builds and publishes dir to src.
func publish(t testing.TB, c *Client, src Source, dir string, opts PublishOptions) *PublishResult {
	t.Helper()
	res, err := c.Publish(context.Background(), src, build(t, dir), opts)
	if err != nil {
		t.Fatalf("Publish(%s): %v", dir, err)
	}
	return res
}

func versionStrings[T fmt.Stringer](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}
