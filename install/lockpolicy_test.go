package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// projectInstall installs m into root from reg as a project install
// does: with prev preferred and the lock written to lockFile.
func projectInstall(reg *testRegistry, root, lockFile string, m *resolve.Manifest, prev *resolve.Lockfile, mod func(*Options)) (*Result, error) {
	g, err := catalog.New(reg.client, resolve.Namespace{})
	if err != nil {
		return nil, err
	}
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}}, AllowExperimental: true, LockFile: lockFile}
	if mod != nil {
		mod(&opts)
	}
	return Install(context.Background(), reg.client, g, m, prev, opts)
}

// TestInstallRefusesSilentDowngrade: the lock has txa 1.0.1; the registry
// no longer offers it. A plain install used to pick 1.0.0 and rewrite the
// lock; it now refuses naming both versions, unless AllowDowngrade.
func TestInstallRefusesSilentDowngrade(t *testing.T) {
	old := newTestRegistry(t)
	old.publish("txa", "1.0.0", nil, nil)
	old.publish("txa", "1.0.1", nil, nil)
	dir := t.TempDir()
	lockFile := filepath.Join(dir, "skills.lock")
	m := &resolve.Manifest{File: "skills.yaml", Skills: []resolve.Requirement{{Name: "txa", Range: "^1"}}}
	res, err := projectInstall(old, filepath.Join(dir, "root1"), lockFile, m, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	locked, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	withdrawn := newTestRegistry(t)
	withdrawn.publish("txa", "1.0.0", nil, nil)
	root := filepath.Join(dir, "root2")
	_, err = projectInstall(withdrawn, root, lockFile, m, res.Lock, nil)
	if !errors.Is(err, ErrDowngrade) || !strings.Contains(err.Error(), "1.0.1") || !strings.Contains(err.Error(), "1.0.0") || strings.Contains(err.Error(), "--") {
		t.Fatalf("install after 1.0.1 vanished: %v, want a downgrade refusal naming 1.0.1 and 1.0.0", err)
	}
	if now, _ := os.ReadFile(lockFile); string(now) != string(locked) {
		t.Error("the refused install rewrote skills.lock")
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("the refused install wrote the root (%v)", err)
	}
	if _, err := projectInstall(withdrawn, root, lockFile, m, res.Lock, func(o *Options) { o.AllowDowngrade = true }); err != nil {
		t.Fatal(err)
	}
	if v := installedVersion(t, root, "txa"); v != "1.0.0" {
		t.Errorf("txa %s with AllowDowngrade, want 1.0.0", v)
	}
}

// TestRepublishedVersionRefused: txa 1.0.0 is installed and locked; its
// tag is then moved to other content. Update refuses it as republished,
// naming both digests; install keeps the installed (locked) bytes;
// AllowRepublished takes the new content.
func TestRepublishedVersionRefused(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("txa", "1.0.0", nil, nil)
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	lockFile := filepath.Join(dir, "skills.lock")
	m := &resolve.Manifest{File: "skills.yaml", Skills: []resolve.Requirement{{Name: "txa", Range: "^1"}}}
	res, err := projectInstall(reg, root, lockFile, m, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := res.Lock.Get("txa").Digest
	// The tag moves: same version, other files, force-published.
	src := filepath.Join(reg.work, "moved", "txa")
	if err := writeFiles(src, map[string]string{"SKILL.md": "---\nname: txa\ndescription: Skill txa moved. Use in tests.\nversion: 1.0.0\n---\n# moved\n", "payload.sh": "echo moved\n"}); err != nil {
		t.Fatal(err)
	}
	a, err := registry.Build(context.Background(), src, registry.BuildOptions{NoVCS: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.client.Publish(context.Background(), reg.client.Embedded(), a, registry.PublishOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	moved := a.Descriptor.Digest.String()
	wantBoth := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrRepublished) || !strings.Contains(err.Error(), "republished") || !strings.Contains(err.Error(), first) || !strings.Contains(err.Error(), moved) {
			t.Errorf("%s: %v, want a republished refusal naming %s and %s", what, err, first, moved)
		}
	}
	// update reads the installed version's tag and finds it moved.
	_, err = reg.update(root, nil, 0)
	wantBoth("update", err)
	// So does a machine whose cache never saw the first digest.
	fresh := *reg
	if fresh.client, err = registry.New(registry.Options{CacheDir: t.TempDir(), EmbeddedDir: filepath.Join(filepath.Dir(reg.work), "registry")}); err != nil {
		t.Fatal(err)
	}
	_, err = fresh.update(root, nil, 0)
	wantBoth("update on a fresh machine", err)
	// Installing again where the receipts record txa installs their
	// digest: the moved content never lands without AllowRepublished.
	if _, err := fresh.installRefs(root, []string{"txa@1.0.0"}, nil); err != nil {
		t.Fatalf("install of the recorded version: %v", err)
	}
	if rec, _ := ReadReceipts(root); rec == nil {
		t.Fatal("no receipts")
	} else if r, _ := rec.Get("txa"); r.Digest != first {
		t.Fatalf("install replaced txa: %s, want %s", r.Digest, first)
	}
	// A later process (as the CLI is) that allows the move installs it.
	if _, err := fresh.installRefs(root, []string{"txa@1.0.0"}, func(o *Options) { o.AllowRepublished = true }); err != nil {
		t.Fatal(err)
	}
	rec, _ := ReadReceipts(root)
	if r, _ := rec.Get("txa"); r.Digest != moved {
		t.Errorf("receipt digest %s with AllowRepublished, want %s", r.Digest, moved)
	}
}

// TestFrozenNeverWritesLock: --frozen installs the lock as it is; it used
// to rewrite skills.lock when its bytes differed from the canonical form.
func TestFrozenNeverWritesLock(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("txa", "1.0.0", nil, nil)
	dir := t.TempDir()
	lockFile := filepath.Join(dir, "skills.lock")
	m := &resolve.Manifest{File: "skills.yaml", Skills: []resolve.Requirement{{Name: "txa", Range: "^1"}}}
	res, err := projectInstall(reg, filepath.Join(dir, "root1"), lockFile, m, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "# ", "# (hand-edited) ", 1)
	if err := os.WriteFile(lockFile, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := projectInstall(reg, filepath.Join(dir, "root2"), lockFile, m, res.Lock, func(o *Options) { o.Frozen = true }); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(lockFile); string(now) != edited {
		t.Errorf("--frozen rewrote skills.lock:\n%s", now)
	}
}

// TestRemoveEditedNeedsForce: remove used to delete hand edits silently.
func TestRemoveEditedNeedsForce(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("txa", "1.0.0", nil, nil)
	root := t.TempDir()
	if _, err := reg.installRefs(root, []string{"txa"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "txa", "mine.md"), []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Remove(ctx, root, []string{"txa"}, RemoveOptions{}); !errors.Is(err, ErrEdited) || !strings.Contains(err.Error(), "keep your changes elsewhere") {
		t.Fatalf("remove of an edited skill: %v, want ErrEdited saying to keep the changes", err)
	}
	if _, err := os.Stat(filepath.Join(root, "txa", "mine.md")); err != nil {
		t.Fatalf("the refused remove lost the edit: %v", err)
	}
	if _, err := Remove(ctx, root, []string{"txa"}, RemoveOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
}
