package install

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// TestUpdateCheckReadsNoLayer: checking a root for updates, in a new
// process with the content cache the install filled, reads each skill's
// tag list and its installed version's tag (a moved tag is refused as
// republished, see TestRepublishedVersionRefused), and no blob.
func TestUpdateCheckReadsNoLayer(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	proxy := registrytest.NewProxy(t, reg, nil)
	ctx := context.Background()
	work := t.TempDir()
	newClient := func() *registry.Client {
		c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(work, "cache"), EmbeddedDir: filepath.Join(work, "embedded")})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := newClient()
	src, err := c.Remote(proxy.Host + "/pin")
	if err != nil {
		t.Fatal(err)
	}
	for i, deps := range []string{"", "        pin-a: ^1\n"} {
		name := fmt.Sprintf("pin-%c", 'a'+i)
		fm := fmt.Sprintf("---\nname: %s\ndescription: Skill %s for tests. Use in tests.\nversion: 1.0.0\n", name, name)
		if deps != "" {
			fm += "metadata:\n  gaia:\n    requirements:\n      skills:\n" + deps
		}
		dir := filepath.Join(work, "src", name)
		if err := writeFiles(dir, map[string]string{"SKILL.md": fm + "---\n# " + name + "\n"}); err != nil {
			t.Fatal(err)
		}
		a, err := registry.Build(ctx, dir, registry.BuildOptions{NoVCS: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Publish(ctx, src, a, registry.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ns := resolve.Namespace{Default: proxy.Host + "/pin"}
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: filepath.Join(work, "root")}}, AllowExperimental: true}
	c = newClient()
	g, err := catalog.New(c, ns)
	if err != nil {
		t.Fatal(err)
	}
	m := &resolve.Manifest{File: "skills.yaml", Skills: []resolve.Requirement{{Name: "pin-a", Range: "^1"}, {Name: "pin-b", Range: "^1"}}}
	if _, err := Install(ctx, c, g, m, nil, opts); err != nil {
		t.Fatal(err)
	}

	// The namespace's sparse index is looked for (there is none): not a
	// skill's manifest.
	manifests := func() int {
		return proxy.Count(http.MethodGet, "/manifests/") + proxy.Count(http.MethodHead, "/manifests/") - proxy.Count(http.MethodGet, "/skillpm-index/manifests/")
	}
	before := manifests()
	tags := proxy.Count(http.MethodGet, "/tags/")
	blobs := proxy.Count(http.MethodGet, "/blobs/")
	c = newClient()
	if g, err = catalog.New(c, ns); err != nil {
		t.Fatal(err)
	}
	opts.DryRun = true
	res, err := Update(ctx, c, g, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 0 {
		t.Errorf("changes: %+v", res.Changes)
	}
	// Each installed version's tag is read once, to see it was not moved
	// to other content (a republish is refused, not taken); no layer.
	if n := manifests() - before; n != 2 {
		t.Errorf("the update check read %d manifests; want one per skill: %v", n, proxy.Log())
	}
	if n := proxy.Count(http.MethodGet, "/blobs/") - blobs; n != 0 {
		t.Errorf("the update check read %d blobs; want none: %v", n, proxy.Log())
	}
	if n := proxy.Count(http.MethodGet, "/tags/") - tags; n != 2 {
		t.Errorf("the update check listed tags %d times, want 2", n)
	}
}

// TestPrefetchFollowsLock: installing with a lock that keeps an older
// version downloads that version's layer while the solver runs, never the
// newest one's, which the solver will not choose.
func TestPrefetchFollowsLock(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	proxy := registrytest.NewProxy(t, reg, nil)
	ctx := context.Background()
	work := t.TempDir()
	newClient := func(cache string) (*registry.Client, *catalog.Registry) {
		c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(work, cache), EmbeddedDir: filepath.Join(work, "embedded")})
		if err != nil {
			t.Fatal(err)
		}
		g, err := catalog.New(c, resolve.Namespace{Default: proxy.Host + "/pf"})
		if err != nil {
			t.Fatal(err)
		}
		return c, g
	}
	publish := func(version string) digest.Digest {
		c, _ := newClient("pub")
		src, err := c.Remote(reg.Host + "/pf")
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(work, "src", version, "pf")
		if err := writeFiles(dir, map[string]string{"SKILL.md": "---\nname: pf\ndescription: Prefetch test skill. Use in tests.\nversion: " + version + "\n---\n# pf " + version + "\n"}); err != nil {
			t.Fatal(err)
		}
		a, err := registry.Build(ctx, dir, registry.BuildOptions{NoVCS: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Publish(ctx, src, a, registry.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
		return digest.FromBytes(a.Layer)
	}
	publish("1.0.0")
	m := &resolve.Manifest{File: "skills.yaml", Skills: []resolve.Requirement{{Name: "pf", Range: "^1"}}}
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: filepath.Join(work, "root1")}}, AllowExperimental: true}
	c, g := newClient("cache1")
	res, err := Install(ctx, c, g, m, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	newer := publish("1.1.0")

	c, g = newClient("cache2")
	opts.Roots[0].Dir = filepath.Join(work, "root2")
	res, err = Install(ctx, c, g, m, res.Lock, opts)
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Lock.Skills[0].Version; v != "1.0.0" {
		t.Fatalf("installed %s; the lock keeps 1.0.0", v)
	}
	if n := proxy.Count(http.MethodGet, newer.String()); n != 0 {
		t.Errorf("the 1.1.0 layer was downloaded %d times; the lock keeps 1.0.0", n)
	}
}
