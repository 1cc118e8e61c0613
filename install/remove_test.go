package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/skillpm/skillpm/pkg/archive"
)

// installed builds a root with fix -> diagnosis, code; code -> lint; all
// through a transaction so receipts are real.
func installed(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	tx, err := beginTxn(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"fix", "diagnosis", "code", "lint", "solo"} {
		writeTree(t, tx.StageDir(n), map[string]string{"SKILL.md": "---\nname: " + n + "\ndescription: x\n---\n"})
	}
	r := &Receipts{Skills: []Record{
		{Name: "fix", Version: "1.0.0", Requested: "^1", Dependencies: map[string]string{"diagnosis": "1.0.0", "code": "1.2.0"}},
		{Name: "diagnosis", Version: "1.0.0"},
		{Name: "code", Version: "1.2.0", Dependencies: map[string]string{"lint": "0.1.0"}},
		{Name: "lint", Version: "0.1.0"},
		{Name: "solo", Version: "2.0.0", Requested: "*"},
	}}
	if err := tx.Commit(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	for i := range r.Skills {
		sum, err := archive.TreeHashInstalled(context.Background(), filepath.Join(root, r.Skills[i].Name))
		if err != nil {
			t.Fatal(err)
		}
		r.Skills[i].Tree = sum.TreeHash
	}
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(filepath.Join(root, stateDir, receiptsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestRemoveRefusedWhileDependedUpon(t *testing.T) {
	ctx := context.Background()
	root := installed(t)
	before := snapshot(t, root)
	_, err := Remove(ctx, root, []string{"code"}, RemoveOptions{})
	var de *DependedUponError
	if !errors.As(err, &de) || !reflect.DeepEqual(de.Dependents, []string{"fix"}) {
		t.Fatalf("want refusal naming fix, got %v", err)
	}
	if snapshot(t, root) != before {
		t.Fatal("a refused remove changed the root")
	}
	// Removing the dependent in the same call is fine.
	res, err := Remove(ctx, root, []string{"code", "fix"}, RemoveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Removed, []string{"code", "fix"}) {
		t.Errorf("removed %v", res.Removed)
	}
	if _, err := os.Stat(filepath.Join(root, "code")); !os.IsNotExist(err) {
		t.Error("code still on disk")
	}
}

func TestRemovePrune(t *testing.T) {
	ctx := context.Background()
	root := installed(t)
	res, err := Remove(ctx, root, []string{"fix"}, RemoveOptions{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"code", "diagnosis", "fix", "lint"}; !reflect.DeepEqual(res.Removed, want) {
		t.Errorf("pruned %v, want %v", res.Removed, want)
	}
	rec, err := ReadReceipts(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Skills) != 1 || rec.Skills[0].Name != "solo" {
		t.Errorf("receipts left: %+v", rec.Skills)
	}
}

func TestRemoveForceAndDryRun(t *testing.T) {
	ctx := context.Background()
	root := installed(t)
	before := snapshot(t, root)
	res, err := Remove(ctx, root, []string{"lint"}, RemoveOptions{Force: true, DryRun: true})
	if err != nil || !reflect.DeepEqual(res.Broken, []string{"code"}) {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	if snapshot(t, root) != before {
		t.Fatal("dry run changed the root")
	}
	if _, err := Remove(ctx, root, []string{"nope"}, RemoveOptions{}); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("unknown skill: %v", err)
	}
}

func TestList(t *testing.T) {
	ctx := context.Background()
	user := installed(t)
	project := t.TempDir()
	writeTree(t, filepath.Join(project, "code"), map[string]string{"SKILL.md": "---\nname: code\ndescription: x\nversion: 9.0.0\n---\n"})
	writeTree(t, filepath.Join(project, "notes"), map[string]string{"README.md": "not a skill"})
	// Edit an installed skill by hand.
	if err := os.WriteFile(filepath.Join(user, "lint", "SKILL.md"), []byte("---\nname: lint\ndescription: edited\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := List(ctx, []Root{{Host: HostClaude, Scope: ScopeProject, Dir: project}, {Host: HostClaude, Scope: ScopeUser, Dir: user}})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Listed{}
	for _, l := range got {
		by[string(l.Root.Scope)+"/"+l.Name] = l
	}
	if l := by["project/code"]; l.Managed || l.Version != "9.0.0" || l.ShadowedBy != "" {
		t.Errorf("project code: %+v", l)
	}
	if l := by["user/code"]; !l.Managed || l.ShadowedBy != filepath.Join(project, "code") {
		t.Errorf("user code should be shadowed: %+v", l)
	}
	if _, ok := by["project/notes"]; ok {
		t.Error("a folder without SKILL.md was listed")
	}
	if by["user/lint"].Edited != true || by["user/fix"].Edited {
		t.Errorf("edited flags: lint %v fix %v", by["user/lint"].Edited, by["user/fix"].Edited)
	}
}
