package install

import (
	"github.com/skillpm/skillpm/internal/atomicfile"

	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path by write-temp, fsync, rename, fsync
// of the directory: a reader sees the old file or the new one, never a mix,
// even across a crash.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, perm)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
