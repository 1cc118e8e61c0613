package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "skills.yaml"), filepath.Join(dir, "skills.lock")
	if err := WriteFiles([]File{{a, []byte("A"), 0o644}, {b, []byte("B"), 0o644}}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{a: "A", b: "B"} {
		if got, err := os.ReadFile(p); err != nil || string(got) != want {
			t.Fatalf("%s = %q, %v", p, got, err)
		}
	}
	// The second file cannot be staged (its directory is missing): the
	// first keeps its old content and no temporary file is left.
	bad := filepath.Join(dir, "missing", "skills.lock")
	if err := WriteFiles([]File{{a, []byte("new"), 0o644}, {bad, []byte("new"), 0o644}}); err == nil {
		t.Fatal("no error")
	}
	if got, _ := os.ReadFile(a); string(got) != "A" {
		t.Fatalf("skills.yaml changed to %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Fatalf("left behind: %v", entries)
	}
}
