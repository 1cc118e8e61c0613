package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Pending says what an interrupted transaction left in root: whether a
// journal waits to be rolled forward, and the staging directories of
// transactions that never reached theirs. The next install, update or
// remove of the root finishes or discards them (Recover); doctor reports
// them. A root that does not exist has none.
func Pending(root string) (journal bool, staged []string, err error) {
	if _, err := os.Lstat(filepath.Join(root, stateDir, journalFile)); err == nil {
		journal = true
	} else if !errors.Is(err, os.ErrNotExist) {
		return false, nil, err
	}
	entries, err := os.ReadDir(filepath.Join(root, stateDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return journal, nil, err
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), txPrefix) {
			staged = append(staged, filepath.Join(root, stateDir, e.Name()))
		}
	}
	return journal, staged, nil
}
