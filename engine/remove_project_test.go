package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/resolve"
)

// TestRemoveProject: a skill not in the manifest is a
// resolve.NotInProjectError; a dry run removes and writes nothing; the
// removal takes the skill out of skills.yaml, skills.lock and the
// project's root.
func TestRemoveProject(t *testing.T) {
	opts, key, dir, _, done := exampleOptions()
	t.Cleanup(done)
	ctx := context.Background()
	manifest := notesProject(t, inProject(t, opts, ""), key, dir)
	proj := filepath.Dir(manifest)
	e := inProject(t, opts, manifest)
	if _, err := e.Install(ctx, engine.InstallRequest{}); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(proj, ".agents", "skills")
	if _, err := os.Stat(filepath.Join(root, "notes", "SKILL.md")); err != nil {
		t.Fatalf("the project install did not land in %s: %v", root, err)
	}

	_, err := e.Remove(ctx, engine.RemoveRequest{Names: []string{"nots"}})
	if nip, ok := errors.AsType[*resolve.NotInProjectError](err); !ok || nip.Name != "nots" || len(nip.Have) != 1 {
		t.Errorf("a name not in the manifest: %v, want NotInProjectError listing notes", err)
	}

	dry, err := e.Remove(ctx, engine.RemoveRequest{Names: []string{"notes"}, Options: install.RemoveOptions{DryRun: true}})
	if err != nil || len(dry.Roots) != 1 {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	if data, _ := os.ReadFile(manifest); !strings.Contains(string(data), "notes") {
		t.Errorf("a dry run rewrote the manifest:\n%s", data)
	}
	if lock, err := resolve.ReadLockfile(ctx, filepath.Join(proj, "skills.lock")); err != nil || lock.Get("notes") == nil {
		t.Errorf("a dry run rewrote the lock: %+v, %v", lock, err)
	}

	// NoSave leaves the project alone: it removes copies from the roots
	// that hold them (the host's, here none), as outside a project.
	if copies, err := e.Remove(ctx, engine.RemoveRequest{Names: []string{"notes"}, NoSave: true, Options: install.RemoveOptions{DryRun: true}}); copies.Manifest != nil || !errors.Is(err, install.ErrNotInstalled) {
		t.Errorf("Remove with NoSave in a project: %+v, %v, want the copies only", copies, err)
	}

	res, err := e.Remove(ctx, engine.RemoveRequest{Names: []string{"notes"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 1 || res.Removed[0] != "notes" || len(res.Roots) != 1 || res.Roots[0].Root.Dir != root || res.Roots[0].Removed[0] != "notes" {
		t.Errorf("Remove in a project = removed %v, roots %+v", res.Removed, res.Roots)
	}
	if _, err := os.Stat(filepath.Join(root, "notes")); !os.IsNotExist(err) {
		t.Errorf("notes is still in %s: %v", root, err)
	}
	m, err := resolve.ReadManifest(ctx, manifest)
	if err != nil || len(m.Skills) != 0 {
		t.Errorf("manifest after: %+v, %v; want no skills", m, err)
	}
	lock, err := resolve.ReadLockfile(ctx, filepath.Join(proj, "skills.lock"))
	if err != nil || len(lock.Skills) != 0 {
		t.Errorf("lock after: %+v, %v; want no skills", lock, err)
	}
}
