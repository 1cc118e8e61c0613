package catalog_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// TestQualifyRequires: a bare dependency lives in the namespace of the
// skill that needs it, two ranges for one skill are joined, and two
// alternatives ("||") cannot be.
func TestQualifyRequires(t *testing.T) {
	ns := resolve.Namespace{Default: "ghcr.io/acme/skills"}
	v := semver.MustParse("1.0.0")
	got, err := catalog.QualifyRequires(ns, "reg.example/other/app", v, map[string]string{"code": "^1", "reg.example/other/code": ">=1.2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || (got["reg.example/other/code"] != "^1, >=1.2" && got["reg.example/other/code"] != ">=1.2, ^1") {
		t.Errorf("qualified %v, want reg.example/other/code with both ranges", got)
	}
	_, err = catalog.QualifyRequires(ns, "app", v, map[string]string{"code": "^1 || ^2", "ghcr.io/acme/skills/code": "^1"})
	if !errors.Is(err, registry.ErrInvalidArtifact) {
		t.Errorf("two ranges, one with ||: %v, want ErrInvalidArtifact", err)
	}
}

// TestGraphMissing: a skill no source holds is the solver's "not found"
// as well as the registry's.
func TestGraphMissing(t *testing.T) {
	c, err := registry.New(registry.Options{CacheDir: filepath.Join(t.TempDir(), "cache"), EmbeddedDir: filepath.Join(t.TempDir(), "registry")})
	if err != nil {
		t.Fatal(err)
	}
	g, err := catalog.New(c, resolve.Namespace{})
	if err != nil {
		t.Fatal(err)
	}
	if g.DefaultSource() != nil {
		t.Errorf("default source %v, want nil (the embedded registry)", g.DefaultSource())
	}
	_, err = g.Versions(context.Background(), "nothing-here")
	if !errors.Is(err, resolve.ErrNotFound) || !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("missing skill: %v, want resolve.ErrNotFound and registry.ErrNotFound", err)
	}
}

// TestCopyLockRefusesTwoOfOneName: a bundle is one namespace, so a lock
// with one name twice is refused before anything is copied.
func TestCopyLockRefusesTwoOfOneName(t *testing.T) {
	c, err := registry.New(registry.Options{CacheDir: filepath.Join(t.TempDir(), "cache"), EmbeddedDir: filepath.Join(t.TempDir(), "registry")})
	if err != nil {
		t.Fatal(err)
	}
	dst, err := c.Layout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lock := &resolve.Lockfile{Skills: []resolve.LockedSkill{
		{Name: "fix", Version: "1.0.0", Source: "embedded/fix"},
		{Name: "fix", Version: "1.0.0", Source: "ghcr.io/acme/skills/fix"},
	}}
	if _, err := catalog.CopyLock(context.Background(), c, lock, dst, registry.CopyLockOptions{}); !errors.Is(err, registry.ErrInvalidOptions) {
		t.Errorf("two of one name: %v, want ErrInvalidOptions", err)
	}
}
