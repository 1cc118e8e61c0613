package resolve

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// TestLockHide: a hidden (yanked) version is never chosen by a new
// resolution, also as a dependency; a lock that pins it keeps it, frozen
// or not; asking for exactly it fails, saying it is yanked.
func TestLockHide(t *testing.T) {
	cat := newMemCatalog("")
	cat.add("embedded/fix", "1.0.0", map[string]string{"code": "^1"})
	cat.add("embedded/code", "1.0.0", nil)
	cat.add("embedded/code", "1.1.0", nil)
	m := &Manifest{File: "skills.yaml", Skills: []Requirement{{Name: "fix", Range: "^1", Line: 2}}}
	first := lockOrFatal(t, cat, m, nil, LockOptions{})
	if got := versions(first); got != "code 1.1.0, fix 1.0.0" {
		t.Fatalf("before the yank: %s", got)
	}
	asked := 0
	hide := func(_ context.Context, key string, vs []*semver.Version) ([]Hidden, error) {
		asked++
		if key == "code" {
			return []Hidden{{Version: semver.MustParse("1.1.0"), Why: "yanked by its publisher"}}, nil
		}
		return nil, nil
	}
	if got := versions(lockOrFatal(t, cat, m, nil, LockOptions{Hide: hide})); got != "code 1.0.0, fix 1.0.0" {
		t.Errorf("new resolution: %s, want the yanked code 1.1.0 left out", got)
	}
	if asked == 0 {
		t.Error("Hide was never asked")
	}
	for _, frozen := range []bool{false, true} {
		if got := versions(lockOrFatal(t, cat, m, first, LockOptions{Hide: hide, Frozen: frozen})); got != "code 1.1.0, fix 1.0.0" {
			t.Errorf("frozen=%v with the lock pinning it: %s, want the lock kept", frozen, got)
		}
	}
	exact := &Manifest{File: "skills.yaml", Skills: []Requirement{{Name: "code", Range: "1.1.0", Line: 2}}}
	_, err := Lock(context.Background(), cat, exact, nil, LockOptions{Hide: hide})
	if !errors.Is(err, ErrNoSolution) || !strings.Contains(err.Error(), "code 1.1.0: yanked by its publisher, so no new resolution chooses it") {
		t.Errorf("exactly the yanked version: %v, want ErrNoSolution saying it is yanked", err)
	}
	failing := func(context.Context, string, []*semver.Version) ([]Hidden, error) {
		return nil, errors.New("registry down")
	}
	if _, err := Lock(context.Background(), cat, m, nil, LockOptions{Hide: failing}); err == nil || !strings.Contains(err.Error(), "registry down") {
		t.Errorf("a failed lookup: %v, want the resolution to fail with it", err)
	}
}
