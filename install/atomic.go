package install

import (
	"github.com/skillpm/skillpm/internal/atomicfile"

	"os"
	"path/filepath"
)

// writeFileAtomic writes data to path by write-temp, fsync, rename, fsync
// of the directory: a reader sees the old file or the new one, never a mix,
// even across a crash.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, perm)
}

// syncDir makes renames in dir durable (a no-op on Windows, see
// atomicfile.SyncDir).
func syncDir(dir string) error { return atomicfile.SyncDir(dir) }
