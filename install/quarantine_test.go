package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/archive"
)

// quarantineRoot is setupRoot with the receipts recording each copy's
// tree hash, as an install does.
func quarantineRoot(t *testing.T) string {
	t.Helper()
	root := setupRoot(t)
	rec, err := ReadReceipts(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b"} {
		r, _ := rec.Get(n)
		sum, err := archive.TreeHashInstalled(context.Background(), filepath.Join(root, n))
		if err != nil {
			t.Fatal(err)
		}
		r.Tree = sum.TreeHash
		rec.Put(r)
	}
	data, err := rec.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(filepath.Join(root, stateDir, receiptsFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestQuarantineCrashAtEveryStep stops a quarantine at each step of its
// commit, as a killed process would: after recovery the copy is either in
// place with its receipt or in the quarantine with its own, never lost;
// restore then puts it back byte for byte (and its receipt).
func TestQuarantineCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	items := []QuarantineItem{{Name: "b", Version: "1.0.0", Advisory: "MAL-1", Why: "malicious"}}
	var steps []string
	clean := quarantineRoot(t)
	before := snapshot(t, clean)
	res, err := Quarantine(ctx, clean, items, QuarantineOptions{hook: func(s string) error { steps = append(steps, s); return nil }})
	if err != nil || len(res.Moved) != 1 {
		t.Fatalf("quarantine: %v %+v", err, res)
	}
	if len(steps) < 5 {
		t.Fatalf("too few steps: %v", steps)
	}
	for _, step := range steps {
		t.Run(step, func(t *testing.T) {
			root := quarantineRoot(t)
			_, err := Quarantine(ctx, root, items, QuarantineOptions{hook: func(s string) error {
				if s == step {
					return errCrash
				}
				return nil
			}})
			if !errors.Is(err, errCrash) {
				t.Fatalf("did not stop at %s: %v", step, err)
			}
			if _, err := recoverTxn(ctx, root); err != nil {
				t.Fatal(err)
			}
			qs, err := ListQuarantine(root)
			if err != nil {
				t.Fatal(err)
			}
			rec, _ := ReadReceipts(root)
			_, inPlace := rec.Get("b")
			switch {
			case inPlace && len(qs) == 0 && exists(filepath.Join(root, "b")):
				if got := snapshot(t, root); got != before {
					t.Fatalf("recovered to neither before nor after:\n%s", got)
				}
				return
			case !inPlace && len(qs) == 1 && !exists(filepath.Join(root, "b")):
				if !exists(filepath.Join(root, stateDir, quarantineDir, qs[0].ID, "b", "SKILL.md")) {
					t.Fatal("the quarantine receipt is there but the copy is not")
				}
			default:
				t.Fatalf("in place %v, %d quarantined, dir exists %v", inPlace, len(qs), exists(filepath.Join(root, "b")))
			}
			if _, err := Restore(ctx, root, []string{"b"}, QuarantineOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := snapshot(t, root); got != before {
				t.Fatalf("restore did not give the root back:\n%s\n--- want:\n%s", got, before)
			}
			if qs, _ := ListQuarantine(root); len(qs) != 0 {
				t.Errorf("restore left %d quarantine entries", len(qs))
			}
		})
	}
}

// TestQuarantineLeavesWhatDoesNotMatch: an edited copy, another version
// or a name not installed stay in place, each saying why.
func TestQuarantineLeavesWhatDoesNotMatch(t *testing.T) {
	ctx := context.Background()
	root := quarantineRoot(t)
	if err := os.WriteFile(filepath.Join(root, "a", "SKILL.md"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, root)
	res, err := Quarantine(ctx, root, []QuarantineItem{
		{Name: "a", Version: "1.0.0"}, {Name: "b", Version: "2.0.0"}, {Name: "zz", Version: "1.0.0"},
	}, QuarantineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Moved) != 0 || len(res.Left) != 3 {
		t.Fatalf("moved %v, left %v", res.Moved, res.Left)
	}
	for i, want := range []string{"does not name exactly", "does not name exactly", "not a copy skillpm installed here"} {
		if !strings.Contains(res.Left[i], want) || !strings.Contains(res.Left[i], "left in place") {
			t.Errorf("left[%d] = %q, want %q", i, res.Left[i], want)
		}
	}
	if got := snapshot(t, root); got != before {
		t.Fatal("a quarantine that matched nothing changed the root")
	}
	// A copy named by its tree hash moves whatever its version.
	sum, _ := archive.TreeHashInstalled(ctx, filepath.Join(root, "b"))
	res, err = Quarantine(ctx, root, []QuarantineItem{{Name: "b", Version: "9.9.9", Digests: []string{sum.TreeHash}}}, QuarantineOptions{})
	if err != nil || len(res.Moved) != 1 {
		t.Fatalf("by digest: %v %+v", err, res)
	}
}
