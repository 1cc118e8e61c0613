package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Staged lists the staging directories of transactions in root that never
// reached their journal (a crash before the commit): the next install,
// update or remove of the root discards them (recoverTxn); doctor reports
// them beside PendingIn's journal. A root that does not exist has none.
func Staged(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, stateDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var staged []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), txPrefix) {
			staged = append(staged, filepath.Join(root, stateDir, e.Name()))
		}
	}
	return staged, nil
}
