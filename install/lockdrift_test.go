package install

import (
	"context"
	"errors"
	"testing"

	"github.com/skillpm/skillpm/resolve"
)

// TestLockDrifts: no lock is one DriftNoLock naming the project's files;
// a locked skill an empty root lacks is DriftNotInstalled there.
func TestLockDrifts(t *testing.T) {
	ctx := context.Background()
	got := LockDrifts(ctx, "skills.yaml", "skills.lock", nil, nil)
	var d *LockDrift
	if len(got) != 1 || !errors.As(got[0], &d) || d.Kind != DriftNoLock || d.Error() != "skills.yaml has no skills.lock" {
		t.Errorf("no lock: %v", got)
	}
	root := Root{Dir: t.TempDir()}
	lock := &resolve.Lockfile{Skills: []resolve.LockedSkill{{Name: "notes", Version: "1.0.0"}}}
	got = LockDrifts(ctx, "skills.yaml", "skills.lock", lock, []Root{root})
	if len(got) != 1 || !errors.As(got[0], &d) || d.Kind != DriftNotInstalled || d.Name != "notes" || d.Locked != "1.0.0" {
		t.Errorf("an empty root: %v", got)
	}
}
