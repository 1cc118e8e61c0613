package install

import (
	"errors"
	"fmt"
)

// Sentinel errors.
var (
	// ErrLocked means another skillpm holds the root's lock past the wait.
	ErrLocked = errors.New("install root is locked by another skillpm")
	// ErrEdited means an installed skill's files differ from its receipt.
	ErrEdited = errors.New("installed skill was edited by hand")
	// ErrNotInstalled names a skill the root has no receipt for.
	ErrNotInstalled = errors.New("skill is not installed")
	// ErrDependedUpon means other installed skills need the one to remove.
	ErrDependedUpon = errors.New("skill is needed by other installed skills")
	// ErrReceipt means the receipts file cannot be read.
	ErrReceipt = errors.New("install receipts are unreadable")
	// ErrDowngrade means an update would lower an installed version.
	ErrDowngrade = errors.New("update would downgrade a skill")
	// ErrRepublished means a version's manifest digest differs from the
	// one locked or installed for it: its tag was moved.
	ErrRepublished = errors.New("version republished with other content")
	// ErrLinked means links skillpm made still point to the copy to remove.
	ErrLinked = errors.New("skill is linked from other roots")
	// ErrUnsupportedRef names a reference that cannot be installed by name.
	ErrUnsupportedRef = errors.New("reference cannot be installed")
)

// LockedError says which process holds the root.
type LockedError struct {
	Root string
	PID  int
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is locked by another skillpm (pid %d); wait for it to finish, or stop it", e.Root, e.PID)
	}
	return fmt.Sprintf("%s is locked by another skillpm; wait for it to finish", e.Root)
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }
