package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
)

// hostileRoot is installed(t) in proj/.claude/skills, with a sentinel
// folder proj/.ssh beside it holding a key: the folder a traversal name
// in a committed receipt would reach.
func hostileRoot(t *testing.T) (root, ssh string) {
	t.Helper()
	proj := t.TempDir()
	root = filepath.Join(proj, ".claude", "skills")
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(installed(t), root); err != nil {
		t.Fatal(err)
	}
	ssh = filepath.Join(proj, ".ssh")
	writeTree(t, ssh, map[string]string{"id_ed25519": "key"})
	return root, ssh
}

// editReceipts rewrites root's receipts file through edit, as a commit
// to the repository would.
func editReceipts(t *testing.T, root string, edit func(r map[string]any)) {
	t.Helper()
	f := filepath.Join(root, stateDir, receiptsFile)
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveRefusesTraversalRecords: a receipt record named
// "../../.ssh" (from the root: the project's .ssh) makes every command on
// the root fail naming the file and the record, whether the record is
// asked for, pruned as an unneeded dependency, or only present; nothing
// is removed.
func TestRemoveRefusesTraversalRecords(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		record map[string]any
		opts   RemoveOptions
		args   []string
		want   string
	}{
		{"asked for", map[string]any{"name": "../../.ssh", "tree": ""}, RemoveOptions{}, []string{"../../.ssh"}, `("../../.ssh"): the name is not a skill name`},
		{"pruned", map[string]any{"name": "../../.ssh", "tree": ""}, RemoveOptions{Prune: true}, []string{"solo"}, `("../../.ssh"): the name is not a skill name`},
		{"present", map[string]any{"name": "../../.ssh", "tree": "", "requested": "*"}, RemoveOptions{}, []string{"solo"}, `("../../.ssh"): the name is not a skill name`},
		{"absolute", map[string]any{"name": "/tmp", "tree": ""}, RemoveOptions{Prune: true}, []string{"solo"}, `("/tmp"): the name is not a skill name`},
		{"link out", map[string]any{"name": "pdf", "tree": "", "mode": "link", "link": "/home/u/.ssh"}, RemoveOptions{}, []string{"pdf"}, `the link's copy "/home/u/.ssh" is not a folder named pdf`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, ssh := hostileRoot(t)
			editReceipts(t, root, func(doc map[string]any) {
				doc["skills"] = append(doc["skills"].([]any), tc.record)
			})
			before := snapshot(t, root)
			_, err := Remove(ctx, root, tc.args, tc.opts)
			var re *ReceiptError
			if !errors.Is(err, ErrUnsafeReceipt) || !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), filepath.Join(root, stateDir, receiptsFile)+": record 6") {
				t.Fatalf("got %v, want the receipts file, record 6 and %q", err, tc.want)
			}
			if b, err := os.ReadFile(filepath.Join(ssh, "id_ed25519")); err != nil || string(b) != "key" {
				t.Fatalf("the folder outside was touched: %q, %v", b, err)
			}
			if after := snapshot(t, root); after != before {
				t.Errorf("the root changed:\n%s\n---\n%s", before, after)
			}
			if _, err := List(ctx, []Root{{Host: HostAgents, Scope: ScopeProject, Dir: root}}); !errors.Is(err, ErrUnsafeReceipt) {
				t.Errorf("list: %v", err)
			}
		})
	}
}

// TestRecoverRefusesHostileJournal: an install journal committed into
// a root is input too: one that would move a folder outside the root
// into place, or write a file that is not the project's lock, is
// refused before any step, naming the journal.
func TestRecoverRefusesHostileJournal(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		j    journal
		want string
	}{
		{"op out", journal{ID: "00ff", Ops: []txnOp{{Name: "../../.ssh", Remove: true}}}, `record 1 ("../../.ssh"): the name is not a skill name`},
		{"id out", journal{ID: "../../../.ssh"}, `the transaction id is not one skillpm makes`},
		{"file out", journal{ID: "00ff", Files: []txnFile{{Path: "../../.ssh/authorized_keys", Data: []byte("key")}}}, `record 1 ("../../.ssh/authorized_keys"): a transaction writes no file but the project's skills.lock`},
		{"quarantine out", journal{ID: "00ff", Ops: []txnOp{{Name: "solo", Remove: true, Quarantine: "../../../.ssh"}}}, `record 1 ("../../../.ssh"): the quarantine entry is not one skillpm makes`},
		{"restore from out", journal{ID: "00ff", Ops: []txnOp{{Name: "solo", Restore: "x-00ff/../../.."}}}, `the quarantine entry is not one skillpm makes`},
		{"quarantine receipt out", journal{ID: "00ff", Files: []txnFile{{Path: "../../.ssh/x-00ff/quarantine.json", Data: []byte("key")}}}, `a transaction writes no file but the project's skills.lock and the quarantine's receipts`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, ssh := hostileRoot(t)
			b, err := json.Marshal(tc.j)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, stateDir, journalFile), b, 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, root)
			_, err = Remove(ctx, root, []string{"solo"}, RemoveOptions{})
			if !errors.Is(err, ErrUnsafeReceipt) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), filepath.Join(root, stateDir, journalFile)) {
				t.Fatalf("got %v, want the journal and %q", err, tc.want)
			}
			if b, err := os.ReadFile(filepath.Join(ssh, "id_ed25519")); err != nil || string(b) != "key" {
				t.Fatalf("the folder outside was touched: %q, %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(ssh, "authorized_keys")); err == nil {
				t.Fatal("wrote outside the root")
			}
			if after := snapshot(t, root); after != before {
				t.Errorf("the root changed:\n%s\n---\n%s", before, after)
			}
		})
	}
}

// TestProjectUpdateIgnoresReceiptSource: a project root's receipt naming
// another repository as the source of a skill does not make an update
// install from there: it is refused naming the record, and the root is
// left as it was. A user root's receipts are the user's own.
func TestProjectUpdateIgnoresReceiptSource(t *testing.T) {
	ctx := context.Background()
	reg := newTestRegistry(t)
	reg.publish("app", "1.0.0", nil, nil)
	root := filepath.Join(t.TempDir(), ".claude", "skills")
	if _, err := reg.install(root, "app"); err != nil {
		t.Fatal(err)
	}
	editReceipts(t, root, func(doc map[string]any) {
		doc["skills"].([]any)[0].(map[string]any)["source"] = "attacker.example/skills/app"
	})
	before := snapshot(t, root)
	g, err := catalog.New(reg.client, resolve.Namespace{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Update(ctx, reg.client, g, nil, Options{Auditor: newTestAuditor(), AllowExperimental: true,
		Roots: []Root{{Host: HostClaude, Scope: ScopeProject, Dir: root}}})
	if !errors.Is(err, ErrUnsafeReceipt) || !strings.Contains(err.Error(), `record 1 ("app"): the receipt names the source attacker.example/skills/app, where app resolves to embedded/app`) {
		t.Fatalf("got %v", err)
	}
	if after := snapshot(t, root); after != before {
		t.Errorf("the root changed")
	}
}

// TestRemoveLeavesCopyThatDoesNotKnowTheLink: a link record in a
// project root naming the user's copy of the same skill, which does not
// record that link, does not make removing the link remove the copy,
// even one installed only for links.
func TestRemoveLeavesCopyThatDoesNotKnowTheLink(t *testing.T) {
	ctx := context.Background()
	reg := newTestRegistry(t)
	reg.publish("app", "1.0.0", nil, nil)
	user := filepath.Join(t.TempDir(), "user")
	if _, err := reg.install(user, "app"); err != nil {
		t.Fatal(err)
	}
	editReceipts(t, user, func(doc map[string]any) {
		doc["skills"].([]any)[0].(map[string]any)["linkOnly"] = true
	})
	proj := filepath.Join(t.TempDir(), ".claude", "skills")
	if err := os.MkdirAll(filepath.Join(proj, stateDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(user, "app"), filepath.Join(proj, "app")); err != nil {
		t.Fatal(err)
	}
	rec := &Receipts{Skills: []Record{{Name: "app", Version: "1.0.0", Mode: ModeLink, Link: filepath.Join(user, "app"), Requested: "*"}}}
	b, err := rec.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, stateDir, receiptsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Remove(ctx, proj, []string{"app"}, RemoveOptions{AgentsRoots: []string{user}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 0 {
		t.Errorf("notes: %v", res.Notes)
	}
	if _, err := os.Stat(filepath.Join(user, "app", "SKILL.md")); err != nil {
		t.Errorf("the user's copy was removed: %v", err)
	}
}

// TestRecoverRefusesJournalLockElsewhere: a journal committed into a
// project root may write that project's skills.lock and no other: not
// another project's, not one above the clone, not a relative path that
// lands wherever skillpm runs next. The file and the record are named,
// no lock is written and the root is left as it was; the project's own
// lock is written.
func TestRecoverRefusesJournalLockElsewhere(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		path func(proj, other string) string
		want string
	}{
		{"other project", func(_, other string) string { return filepath.Join(other, "skills.lock") }, "it is not the skills.lock of the project the root belongs to"},
		{"above the clone", func(proj, _ string) string { return filepath.Join(filepath.Dir(proj), "skills.lock") }, "it is not the skills.lock of the project the root belongs to"},
		{"relative", func(string, string) string { return "skills.lock" }, "the path is not absolute and clean"},
		{"dot-dot", func(proj, _ string) string { return proj + "/x/../skills.lock" }, "the path is not absolute and clean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, _ := hostileRoot(t)
			proj := filepath.Dir(filepath.Dir(root))
			other := t.TempDir()
			writeTree(t, proj, map[string]string{"skills.yaml": "skills: {}\n"})
			writeTree(t, other, map[string]string{"skills.yaml": "skills: {}\n"})
			target := tc.path(proj, other)
			j := journal{ID: "00ff", Files: []txnFile{{Path: target, Data: []byte("forged lock")}}}
			b, err := json.Marshal(j)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, stateDir, journalFile), b, 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, root)
			_, err = Remove(ctx, root, []string{"solo"}, RemoveOptions{})
			want := fmt.Sprintf("%s: record 1 (%q): %s", filepath.Join(root, stateDir, journalFile), target, tc.want)
			if !errors.Is(err, ErrUnsafeReceipt) || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v, want %q", err, want)
			}
			for _, d := range []string{proj, other, filepath.Dir(proj)} {
				if _, err := os.Stat(filepath.Join(d, "skills.lock")); err == nil {
					t.Errorf("a lock was written in %s", d)
				}
			}
			if after := snapshot(t, root); after != before {
				t.Errorf("the root changed:\n%s\n---\n%s", before, after)
			}
		})
	}
	t.Run("own project", func(t *testing.T) {
		root, _ := hostileRoot(t)
		proj := filepath.Dir(filepath.Dir(root))
		writeTree(t, proj, map[string]string{"skills.yaml": "skills: {}\n"})
		lock := filepath.Join(proj, "skills.lock")
		b, err := json.Marshal(journal{ID: "00ff", Receipts: mustRead(t, filepath.Join(root, stateDir, receiptsFile)), Files: []txnFile{{Path: lock, Data: []byte("lock")}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, stateDir, journalFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := recoverTxn(ctx, root); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, lock); string(got) != "lock" {
			t.Errorf("the project's lock holds %q", got)
		}
	})
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUserUpdateSaysWhereFromReceiptSource: a user root's receipts are
// the user's own, so a skill installed from another source than the one
// its name resolves to is updated from there; the update says so, naming
// the source and the receipts, since a tool could have written them.
func TestUserUpdateSaysWhereFromReceiptSource(t *testing.T) {
	ctx := context.Background()
	reg := newTestRegistry(t)
	layoutDir := filepath.Join(t.TempDir(), "layout")
	layout, err := reg.client.Layout(layoutDir)
	if err != nil {
		t.Fatal(err)
	}
	pub := func(version string) {
		dir := filepath.Join(t.TempDir(), "app")
		writeTree(t, dir, map[string]string{"SKILL.md": "---\nname: app\ndescription: Skill app for tests. Use in tests.\nversion: " + version + "\n---\n# app\n"})
		a, err := registry.Build(ctx, dir, registry.BuildOptions{NoVCS: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reg.client.Publish(ctx, layout, a, registry.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pub("1.0.0")
	root := filepath.Join(t.TempDir(), ".claude", "skills")
	g, err := catalog.New(reg.client, resolve.Namespace{})
	if err != nil {
		t.Fatal(err)
	}
	src := source.LayoutPrefix + filepath.ToSlash(layoutDir) + "/app"
	roots := []Root{{Host: HostClaude, Scope: ScopeUser, Dir: root}}
	m := &resolve.Manifest{File: "test", Skills: []resolve.Requirement{{Name: src, Range: resolve.AnyRange}}}
	if _, err := Install(ctx, reg.client, g, m, nil, Options{Auditor: newTestAuditor(), AllowExperimental: true, Roots: roots}); err != nil {
		t.Fatal(err)
	}
	pub("1.1.0")
	var warned []string
	if _, err := Update(ctx, reg.client, g, nil, Options{Auditor: newTestAuditor(), AllowExperimental: true, Roots: roots,
		Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("app: updating from %s, the source its receipt in %s records (the name alone resolves to embedded/app)", src, root)
	if !slices.Contains(warned, want) {
		t.Errorf("warnings %q, want %q", warned, want)
	}
	if v := installedVersion(t, root, "app"); v != "1.1.0" {
		t.Errorf("app %s after the update, want 1.1.0", v)
	}
}
