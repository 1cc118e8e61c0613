package install

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestKilledProcess runs the commit in a child process that SIGKILLs itself
// at one step of the transaction — no deferred cleanup, the kernel drops
// its lock — for every step in turn. The next run's recoverTxn must leave the
// root exactly as before or exactly as after, receipts included.
func TestKilledProcess(t *testing.T) {
	ctx := context.Background()
	before := snapshot(t, setupRoot(t))
	afterRoot := setupRoot(t)
	var steps []string
	if err := change(t, afterRoot, func(s string) error { steps = append(steps, s); return nil }); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, afterRoot)
	for i, step := range steps {
		t.Run(strings.ReplaceAll(step, ":", "_"), func(t *testing.T) {
			root := setupRoot(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "SKILLPM_CRASH_CHILD="+root, "SKILLPM_CRASH_AT="+step)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !killedBySelf(ee) {
				t.Fatalf("child was not killed at %s: %v\n%s", step, err, out)
			}
			// The next run takes the lock (the dead child's is gone) and recovers.
			l, err := Lock(ctx, root, DefaultLockWait)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Unlock()
			if _, err := recoverTxn(ctx, root); err != nil {
				t.Fatal(err)
			}
			want := after
			if i == 0 {
				want = before
			}
			if got := snapshot(t, root); got != want {
				t.Fatalf("killed at %s: root is neither before nor after:\n%s", step, got)
			}
			if _, err := os.Stat(filepath.Join(root, stateDir, journalFile)); !os.IsNotExist(err) {
				t.Errorf("journal left after recovery")
			}
		})
	}
}

// TestMain runs the child half of TestKilledProcess when asked to: a
// commit that SIGKILLs its own process at step SKILLPM_CRASH_AT.
func TestMain(m *testing.M) {
	if root := os.Getenv("SKILLPM_CRASH_CHILD"); root != "" {
		crashChild(root, os.Getenv("SKILLPM_CRASH_AT"))
		os.Exit(3) // the step never came
	}
	os.Exit(m.Run())
}

func crashChild(root, at string) {
	l, err := Lock(context.Background(), root, DefaultLockWait)
	if err != nil {
		os.Exit(2)
	}
	defer l.Unlock()
	hook := func(s string) error {
		if s == at {
			killSelf()
			select {} // the signal ends the process
		}
		return nil
	}
	if os.Getenv("SKILLPM_CRASH_LINKS") != "" {
		_ = linkChange(root, hook)
		return
	}
	// Beside the root, inside the parent test's temporary directory, with
	// the manifest that makes that directory a project (recovery writes
	// no lock elsewhere).
	lock := filepath.Join(filepath.Dir(root), "skills.lock")
	if err := os.WriteFile(filepath.Join(filepath.Dir(root), "skills.yaml"), []byte("skills: {}\n"), 0o644); err != nil {
		return
	}
	_ = applyChange(root, lock, hook)
}

// TestKilledProcessLinks is TestKilledProcess for a transaction that
// stages links (linkChange): the process dies at each step, and Recover
// leaves the root exactly before or after, links included.
func TestKilledProcessLinks(t *testing.T) {
	ctx := context.Background()
	before := linkSnapshot(t, linkRoot(t))
	afterRoot := linkRoot(t)
	var steps []string
	if err := linkChange(afterRoot, func(s string) error { steps = append(steps, s); return nil }); err != nil {
		t.Fatal(err)
	}
	after := linkSnapshot(t, afterRoot)
	for i, step := range steps {
		t.Run(strings.ReplaceAll(step, ":", "_"), func(t *testing.T) {
			root := linkRoot(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "SKILLPM_CRASH_CHILD="+root, "SKILLPM_CRASH_AT="+step, "SKILLPM_CRASH_LINKS=1")
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !killedBySelf(ee) {
				t.Fatalf("child was not killed at %s: %v\n%s", step, err, out)
			}
			l, err := Lock(ctx, root, DefaultLockWait)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Unlock()
			if _, err := recoverTxn(ctx, root); err != nil {
				t.Fatal(err)
			}
			want := after
			if i == 0 {
				want = before
			}
			if got := linkSnapshot(t, root); got != want {
				t.Fatalf("killed at %s: root is neither before nor after:\n%s", step, got)
			}
		})
	}
}
