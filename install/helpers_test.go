package install

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// testRegistry is an embedded registry in a temporary directory with
// helpers to publish generated skills.
type testRegistry struct {
	t      testing.TB
	client *registry.Client
	work   string
}

func newTestRegistry(t testing.TB) *testRegistry {
	t.Helper()
	dir := t.TempDir()
	c, err := registry.New(registry.Options{CacheDir: filepath.Join(dir, "cache"), EmbeddedDir: filepath.Join(dir, "registry")})
	if err != nil {
		t.Fatal(err)
	}
	return &testRegistry{t: t, client: c, work: filepath.Join(dir, "src")}
}

// publish writes and publishes an unsigned skill with the given files
// beside its SKILL.md and dependencies (name -> range).
func (r *testRegistry) publish(name, version string, deps map[string]string, extra map[string]string) {
	r.t.Helper()
	fm := fmt.Sprintf("---\nname: %s\ndescription: Skill %s for tests. Use in tests.\nversion: %s\n", name, name, version)
	if len(deps) > 0 {
		fm += "metadata:\n  gaia:\n    requirements:\n      skills:\n"
		for d, rng := range deps {
			fm += fmt.Sprintf("        %s: %q\n", d, rng)
		}
	}
	files := map[string]string{"SKILL.md": fm + "---\n# " + name + "\n"}
	for k, v := range extra {
		files[k] = v
	}
	dir := filepath.Join(r.work, name+"-"+version, name)
	if err := writeFiles(dir, files); err != nil {
		r.t.Fatal(err)
	}
	ctx := context.Background()
	a, err := registry.Build(ctx, dir, registry.BuildOptions{NoVCS: true})
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.client.Publish(ctx, r.client.Embedded(), a, registry.PublishOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

// install installs names (any version) into root, allowing experimental
// skills (the test registry signs nothing).
func (r *testRegistry) install(root string, names ...string) (*Result, error) {
	m := &resolve.Manifest{File: "test"}
	for _, n := range names {
		m.Skills = append(m.Skills, resolve.Requirement{Name: n, Range: resolve.AnyRange})
	}
	g, err := catalog.New(r.client, resolve.Namespace{})
	if err != nil {
		return nil, err
	}
	return Install(context.Background(), r.client, g, m, nil, Options{
		Auditor:           newTestAuditor(),
		Roots:             []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}},
		AllowExperimental: true,
	})
}
