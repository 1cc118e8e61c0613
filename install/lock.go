package install

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// stateDir is skillpm's folder inside a root: lock, receipts, journal, staging.
const stateDir = ".skillpm"

// RootLock is an exclusive OS file lock on one root. The kernel releases
// it when the process dies, so a crash never leaves a stale lock.
type RootLock struct {
	fl  *flock.Flock
	pid string
}

// DefaultLockWait is how long Lock waits for another skillpm.
const DefaultLockWait = 30 * time.Second

// Lock takes the root's lock, waiting up to wait for another holder.
// The holder's PID is kept beside the lock so a waiter can name it.
func Lock(ctx context.Context, root string, wait time.Duration) (*RootLock, error) {
	dir := filepath.Join(root, stateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	fl := flock.New(filepath.Join(dir, "lock"))
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ok, err := fl.TryLockContext(wctx, 50*time.Millisecond)
	if !ok {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		le := &LockedError{Root: root}
		if b, rerr := os.ReadFile(filepath.Join(dir, "lock.pid")); rerr == nil {
			le.PID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if err != nil && wctx.Err() == nil {
			return nil, err
		}
		return nil, le
	}
	pid := strconv.Itoa(os.Getpid())
	// Best effort: the PID only improves the waiter's message.
	_ = os.WriteFile(filepath.Join(dir, "lock.pid"), []byte(pid+"\n"), 0o644)
	return &RootLock{fl: fl, pid: pid}, nil
}

// Unlock releases the lock. The PID file goes first, while the lock is
// still held, so that an idle root holds nothing that differs from one
// run to the next (OEM images are compared byte for byte).
func (l *RootLock) Unlock() error {
	_ = os.Remove(filepath.Join(filepath.Dir(l.fl.Path()), "lock.pid"))
	return l.fl.Unlock()
}
