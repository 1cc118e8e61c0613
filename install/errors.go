package install

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// Sentinel errors.
var (
	// ErrLocked means another skillpm holds the root's lock past the wait.
	ErrLocked = errdef.New(errdef.Conflict, "install root is locked by another skillpm")
	// ErrEdited means an installed skill's files differ from its receipt.
	ErrEdited = errdef.New(errdef.Conflict, "installed skill was edited by hand")
	// ErrNotInstalled names a skill the root has no receipt for.
	ErrNotInstalled = errdef.New(errdef.NotFound, "skill is not installed")
	// ErrDependedUpon means other installed skills need the one to remove.
	ErrDependedUpon = errdef.New(errdef.Conflict, "skill is needed by other installed skills")
	// ErrReceipt means the receipts file cannot be read.
	ErrReceipt = errdef.New(errdef.Internal, "install receipts are unreadable")
	// ErrDowngrade means an update would lower an installed version.
	ErrDowngrade = errdef.New(errdef.Conflict, "update would downgrade a skill")
	// ErrRepublished means a version's manifest digest differs from the
	// one locked or installed for it: its tag was moved.
	ErrRepublished = errdef.New(errdef.Trust, "version republished with other content")
	// ErrLinked means links skillpm made still point to the copy to remove.
	ErrLinked = errdef.New(errdef.Conflict, "skill is linked from other roots")
	// ErrNoAuditor reports an install with no Auditor and without
	// NoAuditUnsafe: the library never skips the audit by omission.
	ErrNoAuditor = errdef.New(errdef.Usage, "no auditor: set Options.Auditor (install/auditor), or NoAuditUnsafe to install without the static audit")
	// ErrUnsupportedRef names a reference that cannot be installed by name.
	ErrUnsupportedRef = errdef.New(errdef.Usage, "reference cannot be installed")
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

// ErrPlaceTaken means a quarantined copy cannot be restored: the skill is
// installed there again.
var ErrPlaceTaken = errdef.New(errdef.Conflict, "the quarantined skill's place is taken")
