package install

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
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

// refsUpToDate reports whether installing refs into opts.Roots changes
// nothing: every ref names an exact version, and every root holds what
// the first root's receipts record (FromRefs), which satisfies the refs
// and the skills asked for earlier, with intact files (upToDate).
func refsUpToDate(ctx context.Context, ns resolve.Namespace, file string, refs []string, opts Options) ([]RootResult, *resolve.Lockfile, bool) {
	if len(refs) == 0 || len(opts.Roots) == 0 || opts.Force || opts.DryRun || opts.MinTier != "" || len(opts.Grants) > 0 ||
		opts.AllowRepublished || len(opts.Local) > 0 {
		return nil, nil, false
	}
	m, prev, err := FromRefs(file, refs, opts.Roots)
	if err != nil || len(prev.Skills) == 0 || prev.Satisfies(m, ns) != nil {
		return nil, nil, false
	}
	// The receipts must already record each ref as asked for with that
	// very version: otherwise installing it changes them (a dependency
	// becomes a skill asked for, a range becomes the version).
	for _, a := range refs {
		ref, err := source.ParseRef(a)
		if err != nil || ref.Selector.Kind != source.SelectVersion {
			return nil, nil, false
		}
		i := slices.IndexFunc(prev.Skills, func(ls resolve.LockedSkill) bool { return ls.Name == ref.Name })
		if i < 0 || prev.Skills[i].Requested != ref.Selector.Raw {
			return nil, nil, false
		}
	}
	rrs, ok := upToDate(ctx, opts.Roots, prev)
	return rrs, prev, ok
}
