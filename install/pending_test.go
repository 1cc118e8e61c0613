package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/resolve"
)

func TestStaged(t *testing.T) {
	root := t.TempDir()
	if s, err := Staged(filepath.Join(root, "missing")); len(s) != 0 || err != nil {
		t.Fatalf("missing root: %v %v", s, err)
	}
	if err := os.MkdirAll(filepath.Join(root, stateDir, txPrefix+"abc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if s, err := Staged(root); len(s) != 1 || err != nil {
		t.Fatalf("Staged = %v %v, want one staging dir", s, err)
	}
}

// TestListShowsPendingTransaction: after a kill mid-commit, list names
// the interrupted install instead of calling the skill edited or leaving
// it out; recovery completes it and removes the temporary files of
// atomic writes a crash left behind.
func TestListShowsPendingTransaction(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("txa", "1.0.0", nil, nil)
	reg.publish("txa", "1.0.1", nil, map[string]string{"new.md": "new\n"})
	reg.publish("txb", "1.0.0", nil, nil)
	root := t.TempDir()
	if _, err := reg.installRefs(root, []string{"txa@1.0.0"}, nil); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("killed")
	// Killed with txa moved aside and not yet replaced, txb not in place.
	_, err := reg.installRefs(root, []string{"txa@1.0.1", "txb"}, func(o *Options) {
		o.hook = func(step string) error {
			if step == "old:txa" {
				return crash
			}
			return nil
		}
	})
	if !errors.Is(err, crash) {
		t.Fatalf("install: %v, want the simulated kill", err)
	}
	stray := filepath.Join(root, stateDir, ".journal.json.tmp-123")
	if err := os.WriteFile(stray, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := PendingIn(root)
	if err != nil || p == nil || !strings.Contains(p.String(), "interrupted install of txa, txb") {
		t.Fatalf("pending: %v %v", p, err)
	}
	items, err := List(context.Background(), []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Listed{}
	for _, l := range items {
		got[l.Name] = l
	}
	for _, n := range []string{"txa", "txb"} {
		if l, ok := got[n]; !ok || l.Pending != "install" || l.Edited {
			t.Errorf("%s listed as %+v (present %v), want pending install, not edited", n, l, ok)
		}
	}
	if _, err := recoverTxn(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("recovery left %s (%v)", stray, err)
	}
	if p, err := PendingIn(root); p != nil || err != nil {
		t.Errorf("still pending after recovery: %v %v", p, err)
	}
	if v := installedVersion(t, root, "txa"); v != "1.0.1" {
		t.Errorf("txa %s after recovery, want 1.0.1", v)
	}
}

// TestUpToDateWaitsForRecovery: a lock the roots already hold is a no-op,
// but not while a crashed transaction is pending there: the install takes
// the locked path, which completes it first.
func TestUpToDateWaitsForRecovery(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("txa", "1.0.0", nil, nil)
	reg.publish("txb", "1.0.0", nil, nil)
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	lockFile := filepath.Join(dir, "skills.lock")
	m := &resolve.Manifest{File: "skills.yaml", Skills: []resolve.Requirement{{Name: "txa", Range: "^1"}}}
	res, err := projectInstall(reg, root, lockFile, m, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	crash := errors.New("killed")
	if _, err := reg.installRefs(root, []string{"txb"}, func(o *Options) {
		o.hook = func(step string) error {
			if step == "receipts" {
				return crash
			}
			return nil
		}
	}); !errors.Is(err, crash) {
		t.Fatalf("install: %v, want the simulated kill", err)
	}
	if p, err := PendingIn(root); err != nil || p == nil {
		t.Fatalf("no pending transaction after the kill: %v %v", p, err)
	}
	if _, err := projectInstall(reg, root, lockFile, m, res.Lock, nil); err != nil {
		t.Fatal(err)
	}
	if p, err := PendingIn(root); p != nil || err != nil {
		t.Errorf("the up-to-date install left the transaction pending: %v %v", p, err)
	}
	if v := installedVersion(t, root, "txb"); v != "1.0.0" {
		t.Errorf("txb %q after recovery, want 1.0.0", v)
	}
}
