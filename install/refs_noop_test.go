package install

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// TestInstallRefsNoopAsksNothing: installing an exact version that every
// root already holds, as asked for, answers from the receipts: no
// request, even to a registry that fails every one. A range or a version
// not installed goes to the registry.
func TestInstallRefsNoopAsksNothing(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	dead := false
	proxy := registrytest.NewProxy(t, reg, func(*http.Request, int) registrytest.Fault {
		if dead {
			return registrytest.Status500
		}
		return registrytest.Pass
	})
	ctx := context.Background()
	work := t.TempDir()
	newClient := func() *registry.Client {
		c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(work, "cache"), EmbeddedDir: filepath.Join(work, "embedded"),
			Retry: registry.RetryPolicy{MaxRetries: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := newClient()
	src, err := c.Remote(proxy.Host + "/noop")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct{ name, deps string }{{"noop-a", ""}, {"noop-b", "        noop-a: ^1\n"}} {
		fm := "---\nname: " + s.name + "\ndescription: Skill " + s.name + " for tests. Use in tests.\nversion: 1.0.0\n"
		if s.deps != "" {
			fm += "metadata:\n  gaia:\n    requirements:\n      skills:\n" + s.deps
		}
		dir := filepath.Join(work, "src", s.name)
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
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: filepath.Join(work, "root")}}, AllowExperimental: true}
	install := func(refs ...string) (*Result, error) {
		c := newClient()
		g, err := catalog.New(c, resolve.Namespace{Default: proxy.Host + "/noop"})
		if err != nil {
			t.Fatal(err)
		}
		return InstallRefs(ctx, c, g, "the command line", refs, opts)
	}
	if _, err := install("noop-a@1.0.0", "noop-b@1.0.0"); err != nil {
		t.Fatal(err)
	}
	dead = true
	before := proxy.Count("", "")
	res, err := install("noop-b@1.0.0")
	if err != nil {
		t.Fatalf("a no-op install: %v", err)
	}
	if n := proxy.Count("", "") - before; n != 0 {
		t.Errorf("a no-op install made %d requests", n)
	}
	if got := res.Roots[0].Unchanged; !slices.Equal(got, []string{"noop-a", "noop-b"}) || len(res.Roots[0].Installed) != 0 {
		t.Errorf("unchanged %v, installed %v", got, res.Roots[0].Installed)
	}
	// Each of these needs the registry, which now fails every request.
	for _, refs := range [][]string{{"noop-b@^1"}, {"noop-b@1.0.1"}} {
		before := proxy.Count("", "")
		if _, err := install(refs...); err == nil {
			t.Errorf("install %v answered without the registry", refs)
		}
		if proxy.Count("", "") == before {
			t.Errorf("install %v asked the registry nothing", refs)
		}
	}
}
