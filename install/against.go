package install

import (
	"context"
	"path/filepath"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/resolve"
)

// lockStatus compares the copy of rr in root r (at dir) with what lock
// records for it. A project commits its roots' receipts with its lock,
// so a receipt's tier and tree vouch for nothing: what counts is the
// lock's digest, tier and tree. It returns the tier the lock gives the
// copy ("" when it locks another version; the receipt's when the lock
// does not name the skill), and why the copy is
// not what the lock records ("" when it is, or when the lock does not
// name the skill).
func lockStatus(ctx context.Context, r Root, dir string, rr Record, lock *resolve.Lockfile) (skill.Tier, string) {
	ls := lock.Get(rr.Name)
	if ls == nil {
		return rr.Tier, ""
	}
	if rr.Digest != ls.Digest {
		return "", "not the locked " + ls.Name + " " + ls.Version
	}
	// The GAIA host's copy carries the enforced tier, which only its
	// receipt records; a link's files are those of its copy.
	if ls.Tree != "" && r.Host != HostGaia {
		sum, err := treeOf(ctx, dir)
		if err != nil || sum.TreeHash != ls.Tree {
			return ls.Tier, "the files differ from the lock's tree"
		}
	}
	return ls.Tier, ""
}

// AgainstLock checks the managed copies items lists in project roots
// against lock (the project's): each takes its tier from the lock, and
// Drift says how one differs from it. Copies in other roots are left as
// their receipts describe them.
func AgainstLock(ctx context.Context, items []Listed, lock *resolve.Lockfile) error {
	if lock == nil {
		return nil
	}
	recs := map[string]*Receipts{}
	for i := range items {
		l := &items[i]
		if l.Root.Scope != ScopeProject || !l.Managed || l.Pending != "" {
			continue
		}
		rec, ok := recs[l.Root.Dir]
		if !ok {
			var err error
			if rec, err = ReadReceipts(l.Root.Dir); err != nil {
				return err
			}
			recs[l.Root.Dir] = rec
		}
		rr, ok := rec.Get(l.Name)
		if !ok {
			continue
		}
		tier, drift := lockStatus(ctx, l.Root, l.Dir, rr, lock)
		l.Tier, l.Drift = tier, drift
	}
	return nil
}

// DescribeAgainstLock is AgainstLock for the copies Describe found.
func DescribeAgainstLock(ctx context.Context, items []Installed, lock *resolve.Lockfile) {
	if lock == nil {
		return
	}
	for i := range items {
		in := &items[i]
		if in.Root.Scope != ScopeProject || in.Missing {
			continue
		}
		tier, drift := lockStatus(ctx, in.Root, filepath.Join(in.Root.Dir, in.Name), in.Record, lock)
		in.Tier, in.Drift = tier, drift
	}
}
