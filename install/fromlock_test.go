package install

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// lockFixture publishes lk-a 1.0.0 and 2.0.0 and lk-b 1.0.0 (needing
// lk-a ^1) behind a proxy, and installs lk-a ^1 and lk-b ^1 once.
type lockFixture struct {
	proxy *registrytest.Proxy
	work  string
	m     *resolve.Manifest
	lock  *resolve.Lockfile
	opts  Options
}

func newLockFixture(t *testing.T) *lockFixture {
	t.Helper()
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	f := &lockFixture{proxy: registrytest.NewProxy(t, reg, nil), work: t.TempDir()}
	ctx := context.Background()
	c, _ := f.client(t, "pub")
	src, err := c.Remote(reg.Host + "/lk")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct{ name, version, deps string }{{"lk-a", "1.0.0", ""}, {"lk-a", "2.0.0", ""}, {"lk-b", "1.0.0", "        lk-a: ^1\n"}} {
		fm := fmt.Sprintf("---\nname: %s\ndescription: Skill %s for tests. Use in tests.\nversion: %s\n", s.name, s.name, s.version)
		if s.deps != "" {
			fm += "metadata:\n  gaia:\n    requirements:\n      skills:\n" + s.deps
		}
		dir := filepath.Join(f.work, "src", s.version, s.name)
		if err := writeFiles(dir, map[string]string{"SKILL.md": fm + "---\n# " + s.name + "\n"}); err != nil {
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
	f.m = &resolve.Manifest{File: "skills.yaml", Skills: []resolve.Requirement{{Name: "lk-a", Range: "^1"}, {Name: "lk-b", Range: "^1"}}}
	f.opts = Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: filepath.Join(f.work, "root0")}}, AllowExperimental: true}
	c, g := f.client(t, "cache0")
	res, err := Install(ctx, c, g, f.m, nil, f.opts)
	if err != nil {
		t.Fatal(err)
	}
	f.lock = res.Lock
	return f
}

func (f *lockFixture) client(t *testing.T, cache string) (*registry.Client, *catalog.Registry) {
	t.Helper()
	c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(f.work, cache), EmbeddedDir: filepath.Join(f.work, "embedded")})
	if err != nil {
		t.Fatal(err)
	}
	g, err := catalog.New(c, resolve.Namespace{Default: f.proxy.Host + "/lk"})
	if err != nil {
		t.Fatal(err)
	}
	return c, g
}

// TestInstallFromLockReadsNoTags: installing a lock that satisfies the
// manifest, on a machine with an empty cache, with or without --frozen,
// resolves nothing: no tag list and no manifest by tag is read, only what
// the lock names by digest.
func TestInstallFromLockReadsNoTags(t *testing.T) {
	f := newLockFixture(t)
	for i, frozen := range []bool{false, true} {
		c, g := f.client(t, fmt.Sprintf("cache-%d", i+1))
		opts := f.opts
		opts.Frozen = frozen
		opts.Roots = []Root{{Host: HostAgents, Scope: ScopeUser, Dir: filepath.Join(f.work, fmt.Sprintf("root-%d", i+1))}}
		tags := f.proxy.Count(http.MethodGet, "/tags/")
		byTag := f.proxy.Count("", "/manifests/1.0.0") + f.proxy.Count("", "/manifests/2.0.0")
		res, err := Install(context.Background(), c, g, f.m, f.lock, opts)
		if err != nil {
			t.Fatalf("frozen=%v: %v", frozen, err)
		}
		if len(res.Roots[0].Installed) != 2 {
			t.Fatalf("frozen=%v: installed %v", frozen, res.Roots[0].Installed)
		}
		if n := f.proxy.Count(http.MethodGet, "/tags/") - tags; n != 0 {
			t.Errorf("frozen=%v: %d tag lists read; installing a lock resolves nothing", frozen, n)
		}
		if n := f.proxy.Count("", "/manifests/1.0.0") + f.proxy.Count("", "/manifests/2.0.0") - byTag; n != 0 {
			t.Errorf("frozen=%v: %d manifests read by tag", frozen, n)
		}
	}
}

// TestInstallFromLockChecksManifests: a lock whose entries fit together on
// paper (lk-b's dependency locked at the version the entry names) but not
// by what lk-b's manifest requires is refused with --frozen, naming the
// requirement; without it, re-resolving moves lk-a below the lock, which
// needs AllowDowngrade.
func TestInstallFromLockChecksManifests(t *testing.T) {
	f := newLockFixture(t)
	ctx := context.Background()
	// Lock lk-a at 2.0.0 (by its real digest) everywhere the lock says so.
	c, g := f.client(t, "cache-x")
	a2, err := g.Describe(ctx, f.proxy.Host+"/lk/lk-a", semver.MustParse("2.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	bad := *f.lock
	bad.Skills = nil
	for _, ls := range f.lock.Skills {
		switch ls.Name {
		case "lk-a":
			ls.Version, ls.Digest, ls.Tree, ls.Requested = "2.0.0", a2.Digest, a2.Tree, ">=1"
			// 1.0.0's layer is no longer this entry's (and is refused as such).
			ls.Layer, ls.Referrers = nil, nil
		case "lk-b":
			ls.Dependencies = map[string]string{"lk-a": "2.0.0"}
		}
		bad.Skills = append(bad.Skills, ls)
	}
	m := &resolve.Manifest{File: "skills.yaml", Skills: []resolve.Requirement{{Name: "lk-a", Range: ">=1"}, {Name: "lk-b", Range: "^1"}}}
	if err := bad.Satisfies(m, g.Namespace()); err != nil {
		t.Fatalf("the edited lock must satisfy the manifest on paper: %v", err)
	}
	opts := f.opts
	opts.Frozen = true
	opts.Roots = []Root{{Host: HostAgents, Scope: ScopeUser, Dir: filepath.Join(f.work, "root-x")}}
	_, err = Install(ctx, c, g, m, &bad, opts)
	var se *resolve.StaleError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "lk-b 1.0.0: needs lk-a ^1, the lock has 2.0.0") {
		t.Fatalf("frozen install of a lock its manifests contradict: %v", err)
	}
	// Without --frozen the solver re-resolves, which moves lk-a down from
	// the locked 2.0.0: refused unless AllowDowngrade (never silent).
	opts.Frozen = false
	if _, err := Install(ctx, c, g, m, &bad, opts); !errors.Is(err, ErrDowngrade) {
		t.Fatalf("re-resolving below the lock: %v, want ErrDowngrade", err)
	}
	opts.AllowDowngrade = true
	res, err := Install(ctx, c, g, m, &bad, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Lock.Get("lk-a"); a == nil || a.Version != "1.0.0" {
		t.Errorf("re-resolved lk-a: %+v", a)
	}
}
