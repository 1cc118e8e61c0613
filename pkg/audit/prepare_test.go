package audit

import (
	"context"
	"path/filepath"
	"testing"
)

// TestPrepareDecidesNothing: a Scanner asked to Prepare a directory, with
// or without a report cache, gives each labelled skill the report a fresh
// Scanner gives it, while the preparation may still be running (the race
// detector watches the rules built on both sides); preparing a directory
// that does not exist is harmless.
func TestPrepareDecidesNothing(t *testing.T) {
	ctx := context.Background()
	dirs := labelledDirs(t)
	for _, cache := range []string{"", t.TempDir()} {
		prepared, err := New(Options{Tool: "skillpm test", CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		prepared.Prepare(ctx, filepath.Join(t.TempDir(), "missing"))
		for _, d := range dirs {
			prepared.Prepare(ctx, d)
		}
		for _, d := range dirs {
			got, err := prepared.Scan(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Scan(ctx, d, Options{Tool: "skillpm test"})
			if err != nil {
				t.Fatal(err)
			}
			gd, _ := got.Digest()
			wd, _ := want.Digest()
			if gd != wd {
				t.Errorf("%s (cache %q): prepared report %s, fresh %s", d, cache, gd, wd)
			}
		}
	}
}
