package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"
)

// Staged lists the staging directories of transactions in root that never
// reached their journal (a crash before the commit), and the staging
// areas of processes that died (their owner lock is free): the next
// install, update or remove of the root discards them (recoverTxn);
// doctor reports them beside PendingIn's journal. The staging of a
// process still running is not listed. A root that does not exist has
// none.
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
		if e.IsDir() && strings.HasPrefix(e.Name(), stagePrefix) && orphanStage(root, e.Name()) {
			staged = append(staged, filepath.Join(root, stateDir, e.Name()))
		}
	}
	return staged, nil
}

// orphanStage reports whether the staging area dir of root has lost its
// owner: its lock file is gone or no process holds it.
func orphanStage(root, dir string) bool {
	path := filepath.Join(root, stateDir, dir+".lock")
	if _, err := os.Stat(path); err != nil {
		return true
	}
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil || !ok {
		return false
	}
	fl.Unlock()
	return true
}
