//go:build unix

package asf

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestStateLockSymlinkRefused: a state.json.lock that is a symbolic link
// used to make init create a file at the link's target.
func TestStateLockSymlinkRefused(t *testing.T) {
	r, loc := testRunner(t)
	if err := os.MkdirAll(filepath.Dir(loc.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "planted")
	if err := os.Symlink(target, loc.Path+".lock"); err != nil {
		t.Fatal(err)
	}
	_, err := r.Init(context.Background(), loc, "fix", "t", InitOptions{})
	if !errors.Is(err, ErrSymlink) {
		t.Fatalf("init with a symlinked lock: %v, want ErrSymlink", err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("init created the link's target (%v)", err)
	}
}

// TestStepUnderSymlinkedDirRefused: a step file under a directory that is
// a symbolic link out of the skill used to be read from there.
func TestStepUnderSymlinkedDirRefused(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "001-step.md"), []byte("# secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "linky")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: linky\ndescription: Steps through a link. Use in tests.\nversion: 1.0.0\nexecution:\n  calls:\n    - step: steps/001-step.md\n---\n# linky\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "steps")); err != nil {
		t.Fatal(err)
	}
	r, _ := testRunner(t, root)
	_, err := r.Plan(context.Background(), "linky")
	if !errors.Is(err, ErrSymlink) {
		t.Fatalf("plan with a step under a symlinked directory: %v, want ErrSymlink", err)
	}
}
