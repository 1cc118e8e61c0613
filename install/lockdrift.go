package install

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
)

// DriftKind says how a project's roots differ from its lock.
type DriftKind int

// The ways installed skills differ from a lock.
const (
	// DriftNoLock: the project has no lock.
	DriftNoLock DriftKind = iota
	// DriftNotInstalled: a locked skill is not installed in a root.
	DriftNotInstalled
	// DriftNewer: a root holds a version newer than the locked one.
	DriftNewer
	// DriftDiffers: a root holds other content than the lock's.
	DriftDiffers
	// DriftFiles: a root holds the locked version, but its files are not
	// the lock's tree, whatever its receipt claims.
	DriftFiles
)

// LockDrift is one difference between a project's lock and a root.
type LockDrift struct {
	Kind DriftKind
	// Name and Locked are the locked skill and version.
	Name, Locked string
	// The rest is for the message: the project's files, the root where
	// it differs and the version there, and, for DriftFiles, the tree
	// hash of the files in the root and the one its receipt records.
	manifest, lock, root, installed, tree, claimed string
}

// Class is errdef.Conflict: what is installed disagrees with the lock.
func (d *LockDrift) Class() errdef.Class { return errdef.Conflict }

func (d *LockDrift) Error() string {
	switch d.Kind {
	case DriftNoLock:
		return fmt.Sprintf("%s has no %s", d.manifest, d.lock)
	case DriftNotInstalled:
		return fmt.Sprintf("%s %s is locked but not installed in %s", d.Name, d.Locked, d.root)
	case DriftNewer:
		return fmt.Sprintf("%s: %s holds %s, newer than the locked %s", d.Name, d.root, d.installed, d.Locked)
	case DriftFiles:
		claim := "its receipt records them"
		if d.claimed != d.tree {
			claim = "its receipt records " + d.claimed
		}
		return fmt.Sprintf("%s: the files of %s in %s (tree %s) are not the locked %s's, though %s: they were changed after install", d.Name, d.installed, d.root, d.tree, d.Locked, claim)
	}
	return fmt.Sprintf("%s: %s holds %s, the lock says %s", d.Name, d.root, d.installed, d.Locked)
}

// LockDrifts lists where roots differ from lock, the lock of the project
// whose files are manifest and lockFile (named in the messages); a nil
// lock is one DriftNoLock. Each difference is a *LockDrift; a root whose
// receipts cannot be read is its error. The files are compared with the
// lock's tree, never with the receipt's claim: a project commits its
// receipts with the files.
func LockDrifts(ctx context.Context, manifest, lockFile string, lock *resolve.Lockfile, roots []Root) []error {
	out := []error{}
	if lock == nil {
		return append(out, &LockDrift{Kind: DriftNoLock, manifest: manifest, lock: lockFile})
	}
	for _, r := range roots {
		rec, err := ReadReceipts(r.Dir)
		if err != nil {
			out = append(out, fmt.Errorf("%s: %w", r.Dir, err))
			continue
		}
		for _, ls := range lock.Skills {
			d := &LockDrift{manifest: manifest, lock: lockFile, Name: ls.Name, Locked: ls.Version, root: r.Dir}
			got, ok := rec.Get(ls.Name)
			switch {
			case !ok:
				d.Kind = DriftNotInstalled
			case got.Digest != ls.Digest && newerVersion(got.Version, ls.Version):
				d.Kind, d.installed = DriftNewer, got.Version
			case got.Digest != ls.Digest:
				d.Kind, d.installed = DriftDiffers, got.Version
			case ls.Tree != "" && r.Host != HostGaia && !got.IsLink():
				// The GAIA host's copy carries the enforced tier, which
				// only its receipt records; a link is checked at its copy.
				sum, err := archive.TreeHashInstalled(ctx, filepath.Join(r.Dir, ls.Name))
				if err == nil && sum.TreeHash == ls.Tree {
					continue
				}
				d.Kind, d.installed, d.tree, d.claimed = DriftFiles, got.Version, sum.TreeHash, got.Tree
				if err != nil {
					d.tree = err.Error()
				}
			default:
				continue
			}
			out = append(out, d)
		}
	}
	return out
}

// newerVersion reports whether version a is newer than b, both valid.
func newerVersion(a, b string) bool {
	va, errA := semver.NewVersion(a)
	vb, errB := semver.NewVersion(b)
	return errA == nil && errB == nil && va.GreaterThan(vb)
}
