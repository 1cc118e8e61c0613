// Package golden compares test output with golden files under testdata,
// rewriting them when the test binary runs with -update (each package
// keeps its own -update flag and passes its value).
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Check compares got with the file at path. With update it writes got to
// path first (creating its directory), so the comparison passes and the
// diff shows in version control.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from output (run go test -update after checking):\n--- want\n%s--- got\n%s", path, want, got)
	}
}
