package install

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPending(t *testing.T) {
	root := t.TempDir()
	if j, s, err := Pending(filepath.Join(root, "missing")); j || len(s) != 0 || err != nil {
		t.Fatalf("missing root: %v %v %v", j, s, err)
	}
	if err := os.MkdirAll(filepath.Join(root, stateDir, txPrefix+"abc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, stateDir, journalFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, s, err := Pending(root)
	if !j || len(s) != 1 || err != nil {
		t.Fatalf("Pending = %v %v %v, want a journal and one staging dir", j, s, err)
	}
}
