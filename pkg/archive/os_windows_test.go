package archive

import (
	"errors"
	"fmt"
)

// umask does nothing: Windows has no umask, and files carry no Unix mode
// bits beyond read-only.
func umask(int) int { return 0 }

// mkfifo fails: Windows has no named pipes in the file system.
func mkfifo(path string) error {
	return fmt.Errorf("mkfifo %s: %w", path, errors.ErrUnsupported)
}
