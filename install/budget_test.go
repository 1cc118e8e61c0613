package install

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// TestInstallBudget: a manifest naming 300 skills that do not exist costs
// at most the budget's requests, and skills on more registries than the
// budget allows are refused before any of the extra registries is asked;
// both say what was asked.
func TestInstallBudget(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	proxies := make([]*registrytest.Proxy, 4)
	for i := range proxies {
		proxies[i] = registrytest.NewProxy(t, reg, nil)
	}
	ctx := context.Background()
	work := t.TempDir()
	c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(work, "cache"), EmbeddedDir: filepath.Join(work, "embedded")})
	if err != nil {
		t.Fatal(err)
	}
	src, err := c.Remote(reg.Host + "/budget")
	if err != nil {
		t.Fatal(err)
	}
	for i := range proxies {
		name := fmt.Sprintf("budget-%d", i)
		dir := filepath.Join(work, "src", name)
		if err := writeFiles(dir, map[string]string{"SKILL.md": "---\nname: " + name + "\ndescription: Skill " + name + " for tests. Use in tests.\nversion: 1.0.0\n---\n# " + name + "\n"}); err != nil {
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
	opts := Options{Auditor: newTestAuditor(), AllowExperimental: true, NoIndex: true}
	run := func(m *resolve.Manifest, b *registry.Budget) error {
		opts.Roots = []Root{{Host: HostAgents, Scope: ScopeUser, Dir: filepath.Join(t.TempDir(), "root")}}
		opts.Budget = b
		// A new process: nothing known in memory or on disk.
		c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(t.TempDir(), "cache"), EmbeddedDir: filepath.Join(work, "embedded")})
		if err != nil {
			t.Fatal(err)
		}
		g, err := catalog.New(c, resolve.Namespace{Default: proxies[0].Host + "/budget"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Install(ctx, c, g, m, nil, opts)
		return err
	}

	missing := &resolve.Manifest{File: "skills.yaml"}
	for i := range 300 {
		missing.Skills = append(missing.Skills, resolve.Requirement{Name: fmt.Sprintf("missing-%03d", i), Range: "^1"})
	}
	before := proxies[0].Count("", "")
	err = run(missing, &registry.Budget{MaxRequests: 40, MaxRegistries: 8})
	var be *registry.BudgetError
	if !errors.As(err, &be) || !errors.Is(err, registry.ErrHostile) || !strings.Contains(err.Error(), "bound of 40 registry requests") {
		t.Fatalf("300 missing skills under a bound of 40 requests: %v, want a *BudgetError", err)
	}
	if n := proxies[0].Count("", "") - before; n > 40 {
		t.Errorf("%d requests under a bound of 40", n)
	}

	spread := &resolve.Manifest{File: "skills.yaml"}
	for i, p := range proxies {
		spread.Skills = append(spread.Skills, resolve.Requirement{Name: fmt.Sprintf("%s/budget/budget-%d", p.Host, i), Range: "^1"})
	}
	if err := run(spread, &registry.Budget{MaxRegistries: 4}); err != nil {
		t.Fatalf("four registries under a bound of four: %v", err)
	}
	err = run(spread, &registry.Budget{MaxRegistries: 3})
	if !errors.As(err, &be) || be.Registry == "" || !strings.Contains(err.Error(), "more than the 3 allowed") {
		t.Fatalf("four registries under a bound of three: %v, want a *BudgetError naming the fourth", err)
	}
}
