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

// Lock takes the root's lock, waiting up to wait for another holder; a
// wait of 0 or less tries once, however long that try takes (a deadline
// as short as a millisecond can pass before the first try on a busy
// machine). The holder's PID is kept beside the lock so a waiter can
// name it.
func Lock(ctx context.Context, root string, wait time.Duration) (*RootLock, error) {
	dir := filepath.Join(root, stateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, max(wait, 0))
	defer cancel()
	fl, ok, err := lockFile(wctx, dir, wait <= 0)
	if !ok {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		le := &LockedError{Root: root}
		if b, rerr := os.ReadFile(filepath.Join(dir, "lock.pid")); rerr == nil {
			le.PID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if err != nil && (wait <= 0 || wctx.Err() == nil) {
			return nil, err
		}
		return nil, le
	}
	pid := strconv.Itoa(os.Getpid())
	// Best effort: the PID only improves the waiter's message.
	_ = os.WriteFile(filepath.Join(dir, "lock.pid"), []byte(pid+"\n"), 0o644)
	return &RootLock{fl: fl, pid: pid}, nil
}

// lockFile locks dir's lock file. A holder may unlink the file before it
// unlocks (a refused install into a root that had no state leaves none
// behind), so a lock won on a file no longer at the path is let go and
// taken again on the file that is.
func lockFile(ctx context.Context, dir string, once bool) (*flock.Flock, bool, error) {
	path := filepath.Join(dir, "lock")
	for {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, false, err
		}
		fl := flock.New(path)
		var ok bool
		var err error
		if once {
			ok, err = fl.TryLock()
		} else {
			ok, err = fl.TryLockContext(ctx, 50*time.Millisecond)
		}
		if !ok || err != nil {
			return fl, ok, err
		}
		held, herr := fl.Stat()
		cur, cerr := os.Stat(path)
		if herr == nil && cerr == nil && os.SameFile(held, cur) {
			return fl, true, nil
		}
		fl.Unlock()
	}
}

// discard removes the lock file (and its PID file) while the lock is
// still held; Unlock must follow.
func (l *RootLock) discard() {
	dir := filepath.Dir(l.fl.Path())
	_ = os.Remove(filepath.Join(dir, "lock.pid"))
	_ = os.Remove(l.fl.Path())
}

// Unlock releases the lock. The PID file goes first, while the lock is
// still held, so that an idle root holds nothing that differs from one
// run to the next (OEM images are compared byte for byte).
func (l *RootLock) Unlock() error {
	_ = os.Remove(filepath.Join(filepath.Dir(l.fl.Path()), "lock.pid"))
	return l.fl.Unlock()
}

// lockAndRead takes root's lock (waiting up to wait, DefaultLockWait when
// 0), completes any transaction a crash interrupted there, and only then
// reads the receipts: a plan made from them cannot be undone by a
// transaction that was still pending. The caller unlocks.
func lockAndRead(ctx context.Context, root string, wait time.Duration) (*RootLock, *Receipts, error) {
	if wait == 0 {
		wait = DefaultLockWait
	}
	lock, err := Lock(ctx, root, wait)
	if err != nil {
		return nil, nil, err
	}
	if _, err := recoverTxn(ctx, root); err != nil {
		lock.Unlock()
		return nil, nil, err
	}
	rec, err := ReadReceipts(root)
	if err != nil {
		lock.Unlock()
		return nil, nil, err
	}
	return lock, rec, nil
}
