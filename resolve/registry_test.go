package resolve_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	regcatalog "github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// pub is one skill version to publish: requires are declared ranges,
// calls are ASF skill calls (undeclared ones become "*" dependencies).
type pub struct {
	name, version string
	requires      map[string]string
	calls         []string
}

// writeSkill writes p as a skill directory under parent.
func writeSkill(t testing.TB, parent string, p pub) string {
	t.Helper()
	dir := filepath.Join(parent, p.name+"-"+p.version, p.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: Test skill %s. Use when testing resolution.\nversion: %s\n", p.name, p.name, p.version)
	if len(p.requires) > 0 {
		b.WriteString("metadata:\n  gaia:\n    requirements:\n      skills:\n")
		names := make([]string, 0, len(p.requires))
		for n := range p.requires {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "        %s: %q\n", n, p.requires[n])
		}
	}
	if len(p.calls) > 0 {
		b.WriteString("execution:\n  calls:\n")
		for _, c := range p.calls {
			fmt.Fprintf(&b, "    - skill: %s\n", c)
		}
	}
	fmt.Fprintf(&b, "---\n# %s\n\nVersion %s.\n", p.name, p.version)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// publishAll builds and publishes each skill to src with the registry
// package's API, returning the manifest digest and tree hash of each
// "name@version".
func publishAll(t testing.TB, c *registry.Client, src registry.Source, pubs []pub) map[string]resolve.Artifact {
	t.Helper()
	ctx := context.Background()
	work := t.TempDir()
	out := map[string]resolve.Artifact{}
	for _, p := range pubs {
		a, err := registry.Build(ctx, writeSkill(t, work, p), registry.BuildOptions{NoVCS: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Publish(ctx, src, a, registry.PublishOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out[p.name+"@"+p.version] = resolve.Artifact{Digest: res.Descriptor.Digest.String(), Tree: a.Pack.TreeHash}
	}
	return out
}

func newClient(t testing.TB) *registry.Client {
	t.Helper()
	c, err := registry.New(registry.Options{
		PlainHTTP:   true,
		CacheDir:    filepath.Join(t.TempDir(), "cache"),
		EmbeddedDir: filepath.Join(t.TempDir(), "registry"),
		Credentials: credentials.NewMemoryStore(),
		Retry:       registry.RetryPolicy{MaxRetries: 2, MinWait: 5 * time.Millisecond, MaxWait: 20 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLockRealRegistry publishes a graph with several versions to a real
// distribution registry, in two namespaces, and locks it with ^ ranges:
// the versions, digests and trees are the published ones, a bare
// dependency stays in its dependent's namespace even when another holds
// the same name, the lock round-trips byte for byte, and locking again
// from the Client's cache makes no request at all.
func TestLockRealRegistry(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	proxy := registrytest.NewProxy(t, reg, func(*http.Request, int) registrytest.Fault { return registrytest.Pass })
	ctx := context.Background()
	skills, tools := proxy.Host+"/skills", proxy.Host+"/tools"

	pubc := newClient(t)
	src := func(spec string) registry.Source {
		s, err := pubc.Remote(spec)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	arts := publishAll(t, pubc, src(skills), []pub{
		{name: "code", version: "1.0.0"}, {name: "code", version: "1.2.0"}, {name: "code", version: "1.3.0"}, {name: "code", version: "2.0.0"},
		{name: "diagnosis", version: "1.0.0"}, {name: "diagnosis", version: "1.1.0"}, {name: "diagnosis", version: "2.0.0"},
		{name: "notes", version: "0.9.0"}, {name: "notes", version: "1.0.0"}, {name: "notes", version: "1.1.0-rc.1"},
		{name: "fix", version: "1.0.0", requires: map[string]string{"diagnosis": "^1", "code": "^1"}},
		{name: "fix", version: "1.1.0", requires: map[string]string{"diagnosis": "^1", "code": "^1.2", tools + "/lint": "^1"},
			calls: []string{"diagnosis", "notes"}},
		{name: "fix", version: "2.0.0", requires: map[string]string{"code": "^2"}},
		{name: "format", version: "3.0.0"}, // a decoy: lint's "format" is tools/format
	})
	for k, v := range publishAll(t, pubc, src(tools), []pub{
		{name: "lint", version: "1.0.0"},
		{name: "lint", version: "1.4.0", requires: map[string]string{"format": "^1"}},
		{name: "format", version: "1.0.0"}, {name: "format", version: "1.1.0"},
	}) {
		arts["tools/"+k] = v
	}

	m, err := resolve.ParseManifest("skills.yaml", []byte("registry: "+skills+"\nskills:\n  fix: ^1\n"))
	if err != nil {
		t.Fatal(err)
	}
	ns, err := m.Namespace("")
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t)
	g, err := regcatalog.New(c, ns)
	if err != nil {
		t.Fatal(err)
	}
	published := proxy.Count("", "")
	l, err := resolve.Lock(ctx, g, m, nil, resolve.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := proxy.Count("", "") - published; n == 0 {
		t.Fatal("the first lock made no request: the proxy is not in the way")
	} else {
		t.Logf("first lock: %d requests (tag lists and manifests only)", n)
	}
	for _, line := range proxy.Log()[published:] {
		if strings.Contains(line, "/blobs/") {
			t.Errorf("resolution fetched a blob: %s", line)
		}
	}
	type row struct{ name, version, source, art string }
	want := []row{
		{"code", "1.3.0", skills + "/code", "code@1.3.0"},
		{"diagnosis", "1.1.0", skills + "/diagnosis", "diagnosis@1.1.0"},
		{"fix", "1.1.0", skills + "/fix", "fix@1.1.0"},
		{"format", "1.1.0", tools + "/format", "tools/format@1.1.0"},
		{"lint", "1.4.0", tools + "/lint", "tools/lint@1.4.0"},
		{"notes", "1.0.0", skills + "/notes", "notes@1.0.0"}, // an implicit "*" (ASF call): newest release
	}
	if len(l.Skills) != len(want) {
		t.Fatalf("locked %d skills, want %d: %+v", len(l.Skills), len(want), l.Skills)
	}
	for i, w := range want {
		e := l.Skills[i]
		a := arts[w.art]
		if e.Name != w.name || e.Version != w.version || e.Source != w.source || e.Digest != a.Digest || e.Tree != a.Tree {
			t.Errorf("entry %d = %+v\nwant %s %s from %s, %s tree %s", i, e, w.name, w.version, w.source, a.Digest, a.Tree)
		}
	}
	fix := l.Get("fix")
	if wantDeps := map[string]string{"code": "1.3.0", "diagnosis": "1.1.0", "lint": "1.4.0", "notes": "1.0.0"}; !reflect.DeepEqual(fix.Dependencies, wantDeps) || fix.Requested != "^1" {
		t.Errorf("fix: deps %v requested %q", fix.Dependencies, fix.Requested)
	}

	// Write, read back, write again: the same bytes.
	path := filepath.Join(t.TempDir(), resolve.LockFile)
	if err := resolve.WriteLockfile(ctx, path, l); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	back, err := resolve.ReadLockfile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Satisfies(m, ns); err != nil {
		t.Error(err)
	}
	if err := resolve.WriteLockfile(ctx, path, back); err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(path); !bytes.Equal(first, second) {
		t.Errorf("the lock changed on a round trip:\n%s\n---\n%s", first, second)
	}

	// Again, from what the Client has seen: not one request.
	before := proxy.Count("", "")
	again, err := resolve.Lock(ctx, g, m, back, resolve.LockOptions{Frozen: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := proxy.Count("", "") - before; n != 0 {
		t.Errorf("a repeated lock made %d requests, want 0:\n%s", n, strings.Join(proxy.Log()[before:], "\n"))
	}
	if out, _ := again.Marshal(); !bytes.Equal(out, first) {
		t.Errorf("the repeated lock differs")
	}

	// A skill in tools that needs a bare name only the default namespace
	// has finds nothing: no fall-through to another namespace.
	publishAll(t, pubc, src(tools), []pub{{name: "audit", version: "1.0.0", requires: map[string]string{"diagnosis": "^1"}}})
	m2, _ := resolve.ParseManifest("skills.yaml", []byte("registry: "+skills+"\nskills:\n  "+tools+"/audit: ^1\n"))
	_, err = resolve.Lock(ctx, g, m2, nil, resolve.LockOptions{})
	var nse *resolve.NoSolutionError
	if !errors.As(err, &nse) || !strings.Contains(nse.Explanation, tools+"/diagnosis") {
		t.Errorf("audit needing tools/diagnosis: %v, want no solution naming %s/diagnosis", err, tools)
	}
}

// BenchmarkLock50Cached locks a 50-skill graph (each skill needing the
// next two with ^ ranges, three versions each) from an OCI layout source
// whose metadata the Client has already seen: the solve, the lock entries
// and the YAML, with no I/O. Target: under 10 ms.
func BenchmarkLock50Cached(b *testing.B) {
	const n = 50
	ctx := context.Background()
	c := newClient(b)
	dir := b.TempDir()
	src, err := c.Layout(dir)
	if err != nil {
		b.Fatal(err)
	}
	var pubs []pub
	for i := range n {
		for _, v := range []string{"1.0.0", "1.1.0", "1.2.0"} {
			req := map[string]string{}
			for j := i + 1; j < n && j <= i+2; j++ {
				req[fmt.Sprintf("skill-%02d", j)] = "^1"
			}
			pubs = append(pubs, pub{name: fmt.Sprintf("skill-%02d", i), version: v, requires: req})
		}
	}
	publishAll(b, c, src, pubs)
	var y strings.Builder
	y.WriteString("registry: oci-layout:" + dir + "\nskills:\n")
	for i := 0; i < n; i += 5 {
		fmt.Fprintf(&y, "  skill-%02d: ^1\n", i)
	}
	m, err := resolve.ParseManifest("skills.yaml", []byte(y.String()))
	if err != nil {
		b.Fatal(err)
	}
	ns, _ := m.Namespace("")
	g, err := regcatalog.New(c, ns)
	if err != nil {
		b.Fatal(err)
	}
	l, err := resolve.Lock(ctx, g, m, nil, resolve.LockOptions{}) // warm the cache
	if err != nil {
		b.Fatal(err)
	}
	if len(l.Skills) != n {
		b.Fatalf("locked %d skills, want %d", len(l.Skills), n)
	}
	b.ResetTimer()
	for b.Loop() {
		l, err := resolve.Lock(ctx, g, m, nil, resolve.LockOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}
