package boundedfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		max     int64
		want    string
		tooBig  bool
		missing bool
	}{
		{max: 5, want: "12345"},
		{max: 100, want: "12345"},
		{max: 4, tooBig: true},
		{max: 0, tooBig: true},
	} {
		got, err := Read(p, tc.max)
		var tl *TooLargeError
		switch {
		case tc.tooBig && (!errors.As(err, &tl) || tl.Max != tc.max || tl.Path != p):
			t.Errorf("max %d: err %v, want *TooLargeError", tc.max, err)
		case !tc.tooBig && (err != nil || string(got) != tc.want):
			t.Errorf("max %d: %q, %v", tc.max, got, err)
		}
	}
	if _, err := Read(filepath.Join(dir, "none"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
