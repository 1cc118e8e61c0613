package install

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
)

// TestDryRunJudgesTheLayerWritesNoRoot checks that a dry run decides
// from the layer it would install (permissions are read from the SKILL.md
// inside it, not from the manifest), so it downloads the layer into the
// cache, yet writes nothing into the root, not even skillpm's state.
func TestDryRunJudgesTheLayerWritesNoRoot(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("lint", "1.0.0", nil, map[string]string{"assets/big.txt": "payload\n"})
	ctx := context.Background()
	repo, err := reg.client.Repository(reg.client.Embedded(), "lint")
	if err != nil {
		t.Fatal(err)
	}
	sel, err := source.ParseSelector("1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	m, err := repo.Get(ctx, sel, false)
	if err != nil {
		t.Fatal(err)
	}
	layer := m.Layer().Digest
	cached := func() bool {
		var found bool
		filepath.WalkDir(filepath.Dir(reg.work), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Base(p) == layer.Encoded() && filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(p)))) == "cache" {
				found = true
			}
			return nil
		})
		return found
	}
	if cached() {
		t.Fatal("the layer is cached before any install")
	}
	root := filepath.Join(t.TempDir(), "root")
	g, err := catalog.New(reg.client, resolve.Namespace{})
	if err != nil {
		t.Fatal(err)
	}
	man := &resolve.Manifest{File: "test", Skills: []resolve.Requirement{{Name: "lint", Range: resolve.AnyRange}}}
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}}, AllowExperimental: true, DryRun: true}
	if _, err := Install(ctx, reg.client, g, man, nil, opts); err != nil {
		t.Fatal(err)
	}
	if !cached() {
		t.Error("a dry run judged a layer it did not download")
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("a dry run wrote the root: %v", err)
	}
	if _, err := reg.install(root, "lint"); err != nil {
		t.Fatal(err)
	}
	if !cached() {
		t.Error("an install did not cache the layer")
	}
}
