// Package corpustest finds the real-world skill corpus that tests read:
// $SKILLPM_CORPUS, else shared/corpus beside the repository. Under CI a
// missing corpus fails the test; elsewhere the test is skipped with a note.
package corpustest

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// Dir returns the corpus directory.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("SKILLPM_CORPUS"); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository")
	}
	// internal/corpustest/corpustest.go -> repository root -> ../shared/corpus
	d := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(d); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus not found at %s (set SKILLPM_CORPUS)", d)
		}
		t.Skipf("corpus not found at %s; set SKILLPM_CORPUS to run", d)
	}
	return filepath.Clean(d)
}

// Skills lists every directory of the corpus holding a SKILL.md (in any
// letter case), sorted.
func Skills(t testing.TB) []string {
	t.Helper()
	root := Dir(t)
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(d.Name(), "SKILL.md") {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	return dirs
}
