package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// lockingAuditor is another skillpm arriving while the audit runs: it
// takes the root's lock (waiting as long as any skillpm would), runs
// that skillpm's recovery, lets go, and records what it saw of the
// folder being audited, before it audits.
type lockingAuditor struct {
	Auditor
	root string
	// locked is the second Lock's error; audited the tree of the folder
	// audited; survived whether that folder was still there after the
	// other skillpm's recovery.
	locked   error
	audited  string
	survived bool
}

func (a *lockingAuditor) Audit(ctx context.Context, dir string, tier skill.Tier) (AuditVerdict, error) {
	l, err := Lock(ctx, a.root, DefaultLockWait)
	a.locked = err
	if err == nil {
		_, rerr := recoverTxn(ctx, a.root)
		l.Unlock()
		if rerr != nil {
			return AuditVerdict{}, rerr
		}
	}
	_, serr := os.Stat(filepath.Join(dir, skill.SkillFile))
	a.survived = serr == nil
	sum, err := archive.TreeHashInstalled(ctx, dir)
	if err != nil {
		return AuditVerdict{}, err
	}
	a.audited = sum.TreeHash
	return a.Auditor.Audit(ctx, dir, tier)
}

// TestAuditDoesNotHoldTheRootLock: while an install audits a skill, the
// root's lock is free (another skillpm takes it at once, where it would
// wait out its whole lock wait if the install held it), that skillpm's
// recovery leaves the skill being audited alone, and the files committed
// are the files audited. Install and update alike.
func TestAuditDoesNotHoldTheRootLock(t *testing.T) {
	ctx := context.Background()
	reg := newTestRegistry(t)
	reg.publish("app", "1.0.0", nil, map[string]string{"notes.md": "one"})
	root := t.TempDir()
	g, err := catalog.New(reg.client, resolve.Namespace{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, a *lockingAuditor) {
		t.Helper()
		if a.locked != nil {
			t.Fatalf("%s: another skillpm could not take the root's lock during the audit: %v", what, a.locked)
		}
		if !a.survived {
			t.Fatalf("%s: another skillpm's recovery removed the skill being audited", what)
		}
		sum, err := archive.TreeHashInstalled(ctx, filepath.Join(root, "app"))
		if err != nil || sum.TreeHash != a.audited {
			t.Fatalf("%s: installed tree %s (%v), audited %s", what, sum.TreeHash, err, a.audited)
		}
		entries, _ := os.ReadDir(filepath.Join(root, stateDir))
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), stagePrefix) || strings.HasPrefix(e.Name(), txPrefix) {
				t.Errorf("%s: %s left in the state folder", what, e.Name())
			}
		}
	}
	a := &lockingAuditor{Auditor: newTestAuditor(), root: root}
	m := &resolve.Manifest{File: "test", Skills: []resolve.Requirement{{Name: "app", Range: resolve.AnyRange}}}
	if _, err := Install(ctx, reg.client, g, m, nil, Options{Auditor: a, AllowExperimental: true,
		Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}}}); err != nil {
		t.Fatal(err)
	}
	check("install", a)

	reg.publish("app", "1.1.0", nil, map[string]string{"notes.md": "two"})
	a = &lockingAuditor{Auditor: newTestAuditor(), root: root}
	if _, err := Update(ctx, reg.client, g, nil, Options{Auditor: a, AllowExperimental: true,
		Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}}}); err != nil {
		t.Fatal(err)
	}
	check("update", a)
	if v := installedVersion(t, root, "app"); v != "1.1.0" {
		t.Errorf("app %s after the update", v)
	}
}

// TestRecoverRemovesOnlyOrphanStaging: a staging area whose process is
// gone (its owner lock free) is removed by the next skillpm on the root;
// one whose owner lives is left alone.
func TestRecoverRemovesOnlyOrphanStaging(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	live, err := beginStage(root)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	writeTree(t, live.StageDir("a"), map[string]string{"SKILL.md": "live"})
	dead, err := beginStage(root)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, dead.StageDir("b"), map[string]string{"SKILL.md": "dead"})
	// The process dies: the kernel lets its lock go, its files stay.
	dead.owner.Unlock()
	if _, err := recoverTxn(ctx, root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(live.dir("new"), "a", "SKILL.md")); err != nil {
		t.Errorf("a live process's staging was removed: %v", err)
	}
	for _, p := range []string{filepath.Join(root, stateDir, stagePrefix+dead.id), dead.ownerPath()} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind (%v)", p, err)
		}
	}
}

// TestStagedListsOnlyOrphanStaging: doctor's list of leftover staging
// names a dead process's staging area, not a live one's.
func TestStagedListsOnlyOrphanStaging(t *testing.T) {
	root := t.TempDir()
	live, err := beginStage(root)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	dead, err := beginStage(root)
	if err != nil {
		t.Fatal(err)
	}
	dead.owner.Unlock()
	got, err := Staged(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, stateDir, stagePrefix+dead.id)}
	if len(got) != 1 || got[0] != want[0] {
		t.Errorf("Staged = %v, want %v", got, want)
	}
}

// hookAuditor runs during, before the first audit, another skillpm's
// command on the same root.
type hookAuditor struct {
	Auditor
	during func() error
	err    error
}

func (a *hookAuditor) Audit(ctx context.Context, dir string, tier skill.Tier) (AuditVerdict, error) {
	if a.during != nil {
		f := a.during
		a.during = nil
		a.err = f()
	}
	return a.Auditor.Audit(ctx, dir, tier)
}

// TestCommitAfterConcurrentCommit: another skillpm commits to the root
// while an install audits. A commit of another skill keeps both records
// and plans nothing again; a commit of the same skill makes the install
// check again from the receipts now there, saying so, and what ends up
// installed is what the last plan audited.
func TestCommitAfterConcurrentCommit(t *testing.T) {
	ctx := context.Background()
	reg := newTestRegistry(t)
	reg.publish("app", "1.0.0", nil, nil)
	reg.publish("other", "1.0.0", nil, nil)
	g, err := catalog.New(reg.client, resolve.Namespace{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(root, name, rng string, during func() error) ([]string, error) {
		var warned []string
		a := &hookAuditor{Auditor: newTestAuditor(), during: during}
		m := &resolve.Manifest{File: "test", Skills: []resolve.Requirement{{Name: name, Range: rng}}}
		_, err := Install(ctx, reg.client, g, m, nil, Options{Auditor: a, AllowExperimental: true,
			Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}}, Warn: func(s string) { warned = append(warned, s) }})
		if a.err != nil {
			t.Fatalf("the other skillpm: %v", a.err)
		}
		return warned, err
	}

	root := t.TempDir()
	warned, err := run(root, "app", "*", func() error { _, err := reg.install(root, "other"); return err })
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 0 {
		t.Errorf("planned again after a commit of another skill: %q", warned)
	}
	if installedVersion(t, root, "app") != "1.0.0" || installedVersion(t, root, "other") != "1.0.0" {
		t.Errorf("receipts lost a record: app %q, other %q", installedVersion(t, root, "app"), installedVersion(t, root, "other"))
	}

	root = t.TempDir()
	reg.publish("app", "1.1.0", nil, nil)
	warned, err = run(root, "app", "1.1.0", func() error { _, err := run(root, "app", "1.0.0", nil); return err })
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "another skillpm changed app in "+root+" while this one checked it; nothing was committed; checking again") {
		t.Errorf("warnings %q", warned)
	}
	if v := installedVersion(t, root, "app"); v != "1.1.0" {
		t.Errorf("app %s, want 1.1.0", v)
	}
	rec, err := ReadReceipts(root)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := rec.Get("app")
	sum, err := archive.TreeHashInstalled(ctx, filepath.Join(root, "app"))
	if err != nil || sum.TreeHash != r.Tree {
		t.Errorf("installed tree %s (%v), receipt %s", sum.TreeHash, err, r.Tree)
	}
}

// countingAuditor records the trees it audits.
type countingAuditor struct {
	Auditor
	mu    sync.Mutex
	trees []string
}

func (a *countingAuditor) Audit(ctx context.Context, dir string, tier skill.Tier) (AuditVerdict, error) {
	sum, err := archive.TreeHashInstalled(ctx, dir)
	if err != nil {
		return AuditVerdict{}, err
	}
	a.mu.Lock()
	a.trees = append(a.trees, sum.TreeHash)
	a.mu.Unlock()
	return a.Auditor.Audit(ctx, dir, tier)
}

// TestAuditOncePerContent: a skill installed into several roots is
// audited once, from one root's staged copy; every root then holds those
// same files. A later install of other bytes is audited again.
func TestAuditOncePerContent(t *testing.T) {
	ctx := context.Background()
	reg := newTestRegistry(t)
	reg.publish("app", "1.0.0", nil, map[string]string{"notes.md": "one"})
	g, err := catalog.New(reg.client, resolve.Namespace{})
	if err != nil {
		t.Fatal(err)
	}
	roots := []Root{{Host: HostAgents, Scope: ScopeUser, Dir: t.TempDir()}, {Host: HostClaude, Scope: ScopeUser, Dir: t.TempDir()}}
	install := func(version string) *countingAuditor {
		t.Helper()
		a := &countingAuditor{Auditor: newTestAuditor()}
		m := &resolve.Manifest{File: "test", Skills: []resolve.Requirement{{Name: "app", Range: version}}}
		if _, err := Install(ctx, reg.client, g, m, nil, Options{Auditor: a, AllowExperimental: true, Roots: roots}); err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := install("1.0.0")
	if len(a.trees) != 1 {
		t.Fatalf("audited %d copies of app for two roots, want 1", len(a.trees))
	}
	for _, r := range roots {
		sum, err := archive.TreeHashInstalled(ctx, filepath.Join(r.Dir, "app"))
		if err != nil || sum.TreeHash != a.trees[0] {
			t.Errorf("%s holds tree %s (%v), the audit saw %s", r.Dir, sum.TreeHash, err, a.trees[0])
		}
	}
	reg.publish("app", "1.1.0", nil, map[string]string{"notes.md": "two"})
	if b := install("1.1.0"); len(b.trees) != 1 || b.trees[0] == a.trees[0] {
		t.Errorf("audits of 1.1.0: %q, want one, of other files than 1.0.0's %s", b.trees, a.trees[0])
	}
}
