package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	r := &recorder{TB: t}
	Check(r, path, []byte("a\n"), false)
	if !r.failed {
		t.Error("a missing golden file passed")
	}
	r = &recorder{TB: t}
	Check(r, path, []byte("a\n"), true)
	if b, err := os.ReadFile(path); r.failed || err != nil || string(b) != "a\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	Check(r, path, []byte("a\n"), false)
	if r.failed {
		t.Error("equal output failed")
	}
	Check(r, path, []byte("b\n"), false)
	if !r.failed {
		t.Error("different output passed")
	}
}
