package install

import (
	"errors"
	"sync"
	"testing"

	"github.com/skillpm/skillpm/tiers"
)

// TestConcurrentInstalls: two installs into one root at the same time are
// serialised by the root lock; both succeed and the receipts hold both.
func TestConcurrentInstalls(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("alpha", "1.0.0", nil, map[string]string{"notes.md": "alpha notes"})
	reg.publish("beta", "1.0.0", nil, nil)
	root := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i, name := range []string{"alpha", "beta", "alpha", "beta"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = reg.install(root, name)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("install %d: %v", i, err)
		}
	}
	rec, err := ReadReceipts(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Skills) != 2 || rec.Skills[0].Name != "alpha" || rec.Skills[1].Name != "beta" {
		t.Fatalf("receipts: %+v", rec.Skills)
	}
	items, err := List(t.Context(), []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range items {
		if !l.Managed || l.Edited || l.Invalid {
			t.Errorf("%s: managed=%v edited=%v invalid=%v", l.Name, l.Managed, l.Edited, l.Invalid)
		}
	}
}

// TestInstallDependenciesAndNoop: a skill with a dependency chain installs
// as one set; installing again changes nothing.
func TestInstallDependenciesAndNoop(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("leaf", "1.0.0", nil, nil)
	reg.publish("leaf", "1.1.0", nil, nil)
	reg.publish("mid", "2.0.0", map[string]string{"leaf": "~1.0"}, nil)
	reg.publish("top", "1.0.0", map[string]string{"mid": "^2"}, nil)
	root := t.TempDir()
	// leaf is experimental (unsigned) and only a dependency: refused.
	var dep *tiers.ExperimentalDependencyError
	if _, err := reg.install(root, "top"); !errors.As(err, &dep) || !errors.Is(err, tiers.ErrRefused) {
		t.Fatalf("an experimental dependency was not refused as one: %v", err)
	}
	if _, err := ReadReceipts(root); err != nil {
		t.Fatal(err)
	}
	res, err := reg.install(root, "top", "mid", "leaf")
	if err != nil {
		t.Fatal(err)
	}
	// leaf "*" alone would pick 1.1.0, but mid needs ~1.0.
	rec, err := ReadReceipts(root)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := rec.Get("leaf"); r.Version != "1.0.0" {
		t.Fatalf("leaf %s installed, want 1.0.0", r.Version)
	}
	if got := res.Roots[0].Installed; len(got) != 3 {
		t.Fatalf("installed %v", got)
	}
	again, err := reg.install(root, "top", "mid", "leaf")
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Roots[0].Installed) != 0 || len(again.Roots[0].Unchanged) != 3 {
		t.Fatalf("second install was not a no-op: %+v", again.Roots[0])
	}
}
