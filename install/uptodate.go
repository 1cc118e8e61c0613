package install

import (
	"context"
	"path/filepath"

	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/resolve"
)

// upToDate reports whether every root already holds exactly what lock
// records: the same digests, with files that match the lock's tree hash.
// Then installing from the lock needs no resolution and no registry
// request at all. It takes no lock, so it answers only "nothing to do"
// and never while a crashed transaction waits for recovery.
func upToDate(ctx context.Context, roots []Root, lock *resolve.Lockfile) ([]RootResult, bool) {
	var out []RootResult
	for _, r := range roots {
		// An interrupted transaction is completed by the locked path
		// first: receipts read now may be the ones it is replacing.
		if p, err := PendingIn(r.Dir); err != nil || p != nil {
			return nil, false
		}
		rec, err := ReadReceipts(r.Dir)
		if err != nil {
			return nil, false
		}
		rr := RootResult{Root: r, Installed: []string{}, Unchanged: []string{}}
		for _, ls := range lock.Skills {
			got, ok := rec.Get(ls.Name)
			if !ok || got.Digest != ls.Digest || got.Tree == "" {
				return nil, false
			}
			// The files must be the lock's, whatever the receipt (committed
			// with the project) claims; the GAIA host's copy carries the
			// enforced tier, which only its receipt records.
			want := ls.Tree
			if r.Host == HostGaia || want == "" {
				want = got.Tree
			}
			sum, err := archive.TreeHashInstalled(ctx, filepath.Join(r.Dir, ls.Name))
			if err != nil || sum.TreeHash != want {
				return nil, false
			}
			rr.Unchanged = append(rr.Unchanged, ls.Name)
		}
		out = append(out, rr)
	}
	return out, len(out) > 0
}
