package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var errCrash = errors.New("simulated crash")

// snapshot lists every file of the root with its content, including the
// receipts but not the rest of skillpm's state directory.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if fi.IsDir() {
			if rel == stateDir {
				b, err := os.ReadFile(filepath.Join(p, receiptsFile))
				if err == nil {
					lines = append(lines, "receipts="+string(b))
				}
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines = append(lines, rel+"="+string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := writeFiles(dir, files); err != nil {
		t.Fatal(err)
	}
}

func writeFiles(dir string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// setupRoot installs a@1 and b@1 through a transaction.
func setupRoot(t *testing.T) string {
	root := t.TempDir()
	tx, err := beginTxn(root)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, tx.StageDir("a"), map[string]string{"SKILL.md": "a v1"})
	writeTree(t, tx.StageDir("b"), map[string]string{"SKILL.md": "b v1", "ref/x.md": "x"})
	r := &Receipts{Skills: []Record{{Name: "a", Version: "1.0.0"}, {Name: "b", Version: "1.0.0"}}}
	if err := tx.Commit(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return root
}

// change replaces a with v2, adds c and removes b. The lock is a
// project's, with its manifest beside it, as recovery requires.
func change(t *testing.T, root string, hook func(string) error) error {
	proj := t.TempDir()
	writeTree(t, proj, map[string]string{"skills.yaml": "skills: {}\n"})
	return applyChange(root, filepath.Join(proj, "skills.lock"), hook)
}

func applyChange(root, lock string, hook func(string) error) error {
	tx, err := beginTxn(root)
	if err != nil {
		return err
	}
	tx.hook = hook
	if err := writeFiles(tx.StageDir("a"), map[string]string{"SKILL.md": "a v2", "new.md": "n"}); err != nil {
		return err
	}
	if err := writeFiles(tx.StageDir("c"), map[string]string{"SKILL.md": "c v1"}); err != nil {
		return err
	}
	tx.Remove("b")
	tx.WriteFile(lock, []byte("lock v2"))
	r := &Receipts{Skills: []Record{{Name: "c", Version: "1.0.0"}, {Name: "a", Version: "2.0.0"}}}
	return tx.Commit(context.Background(), r)
}

// TestCrashAtEveryStep stops the commit at each of its steps, as a killed
// process would, then runs recoverTxn: the root is always either exactly as
// before or exactly as after, receipts included.
func TestCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	before := snapshot(t, setupRoot(t))
	afterRoot := setupRoot(t)
	var steps []string
	if err := change(t, afterRoot, func(s string) error { steps = append(steps, s); return nil }); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, afterRoot)
	if before == after {
		t.Fatal("the change changed nothing")
	}
	if len(steps) < 8 {
		t.Fatalf("too few steps: %v", steps)
	}
	for i, step := range steps {
		t.Run(step, func(t *testing.T) {
			root := setupRoot(t)
			err := change(t, root, func(s string) error {
				if s == step {
					return errCrash
				}
				return nil
			})
			if !errors.Is(err, errCrash) {
				t.Fatalf("commit did not stop at %s: %v", step, err)
			}
			if _, err := recoverTxn(ctx, root); err != nil {
				t.Fatal(err)
			}
			got := snapshot(t, root)
			want, wantName := after, "after"
			if i == 0 { // before the journal: nothing happened
				want, wantName = before, "before"
			}
			if got != want {
				t.Fatalf("after a crash at %s and recovery the root is neither before nor after; want %s:\n%s\n--- got:\n%s", step, wantName, want, got)
			}
			entries, _ := os.ReadDir(filepath.Join(root, stateDir))
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), txPrefix) || e.Name() == journalFile {
					t.Errorf("recovery left %s behind", e.Name())
				}
			}
			// Recovering again is a no-op.
			if again, err := recoverTxn(ctx, root); err != nil || again {
				t.Errorf("second recovery: %v %v", again, err)
			}
		})
	}
}

func TestAbortLeavesRootUntouched(t *testing.T) {
	root := setupRoot(t)
	before := snapshot(t, root)
	tx, err := beginTxn(root)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, tx.StageDir("a"), map[string]string{"SKILL.md": "a v9"})
	if err := tx.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, root); got != before {
		t.Fatalf("abort changed the root:\n%s", got)
	}
}

func TestLockNamesHolder(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	l, err := Lock(ctx, root, DefaultLockWait)
	if err != nil {
		t.Fatal(err)
	}
	// A second lock on the same root (a separate file handle, as another
	// process would have) waits, then fails naming the holder.
	_, err = Lock(ctx, root, 100*1e6)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second lock: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := Lock(ctx, root, DefaultLockWait)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	l2.Unlock()
}

func TestRootDirs(t *testing.T) {
	env := Env{Home: "/h", Cwd: "/p", Getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return "/codex"
		}
		return ""
	}}
	for _, c := range []struct {
		h    HostID
		s    Scope
		want string
	}{
		{HostGaia, ScopeUser, "/h/.gaia/skills"}, {HostGaia, ScopeProject, ""}, // GAIA reads no project root
		{HostClaude, ScopeUser, "/h/.claude/skills"}, {HostClaude, ScopeProject, "/p/.claude/skills"},
		{HostAgents, ScopeUser, "/h/.agents/skills"}, {HostAgents, ScopeProject, "/p/.agents/skills"},
		{HostCodex, ScopeUser, "/codex/skills"}, {HostCodex, ScopeProject, "/p/.codex/skills"},
		{HostOpenCode, ScopeUser, "/h/.config/opencode/skills"}, {HostOpenCode, ScopeProject, "/p/.opencode/skills"},
	} {
		got, err := RootDir(c.h, c.s, env)
		if (err != nil) != (c.want == "") || got != c.want {
			t.Errorf("RootDir(%s, %s) = %q, %v; want %q", c.h, c.s, got, err, c.want)
		}
	}
	if _, err := ParseHost("vim"); err == nil {
		t.Error("unknown host accepted")
	}
}
