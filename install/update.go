package install

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
)

// Update re-resolves what each root of opts.Roots has installed, within
// the ranges its receipts record as requested, preferring the newest
// versions: of the skills named (and whatever they need), or of every
// skill when names is empty; the others keep their versions while they
// still fit. It is Install run per root with a manifest made from the
// receipts: the same fetch, verification, signer pinning, ceilings and
// consent (only permissions not consented to before are asked for).
//
// The changes of every root go to opts.OnPlan before any consent is
// asked. A lower version than installed is refused (ErrDowngrade) unless
// opts.AllowDowngrade. With opts.DryRun, Update stops after the plan and
// the pin checks: it asks nothing and writes nothing. Skills installed
// from a local directory are left as they are. A name installed in none
// of the roots wraps ErrNotInstalled.
//
// The Result's Lock and Plan are those of the last root updated; Roots
// and Changes cover every root.
func Update(ctx context.Context, c *registry.Client, cat resolve.Catalog, names []string, opts Options) (*Result, error) {
	opts.LockFile, opts.Frozen, opts.Local = "", false, nil
	held, err := lockRoots(ctx, opts.Roots, opts)
	if err != nil {
		return nil, err
	}
	defer held.unlock()
	found := map[string]bool{}
	var jobs []*job
	defer func() {
		for _, j := range jobs {
			j.abort()
		}
	}()
	for _, r := range opts.Roots {
		rec, err := ReadReceipts(r.Dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Dir, err)
		}
		m, prev := updateRequest(rec, names, found)
		if len(m.Skills) == 0 {
			continue
		}
		m.File = "the receipts of " + r.Dir
		j, err := newJob(ctx, c, cat, m, prev, []Root{r}, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Dir, err)
		}
		jobs = append(jobs, j)
		if err := j.stageAll(ctx, opts); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Dir, err)
		}
	}
	for _, n := range names {
		if !found[n] {
			return nil, fmt.Errorf("%w: %s is not installed in %s", ErrNotInstalled, n, rootList(opts.Roots))
		}
	}
	res := &Result{Changes: []Change{}}
	for _, j := range jobs {
		res.Changes = append(res.Changes, j.changes...)
		res.Lock, res.Plan = j.lock, j.plan
	}
	if opts.OnPlan != nil {
		if err := opts.OnPlan(ctx, res.Changes); err != nil {
			return nil, err
		}
	}
	for _, j := range jobs {
		if err := j.checkPins(opts, true); err != nil {
			return nil, err
		}
	}
	if opts.DryRun {
		for _, j := range jobs {
			rr := RootResult{Root: j.roots[0], Installed: []string{}, Unchanged: []string{}}
			for _, ch := range j.changes {
				rr.Installed = append(rr.Installed, ch.Name)
			}
			res.Roots = append(res.Roots, rr)
		}
		return res, nil
	}
	for _, j := range jobs {
		if err := j.consent(ctx, opts); err != nil {
			return nil, err
		}
	}
	for _, j := range jobs {
		rrs, err := j.commit(ctx, opts, held)
		res.Roots = append(res.Roots, rrs...)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// updateRequest makes the manifest of one root's update from its
// receipts: every skill asked for by name, in its recorded range (local
// ones aside). prev keeps the installed versions of the skills not being
// updated, so they stay while they fit. found collects the names given
// that the root has.
func updateRequest(rec *Receipts, names []string, found map[string]bool) (*resolve.Manifest, *resolve.Lockfile) {
	m := &resolve.Manifest{}
	prev := &resolve.Lockfile{Version: resolve.LockVersion}
	for _, r := range rec.Skills {
		if r.Source == "" {
			continue // from a local directory: reinstall it from there
		}
		updating := len(names) == 0 || slices.Contains(names, r.Name)
		if updating {
			found[r.Name] = true
		} else {
			prev.Skills = append(prev.Skills, resolve.LockedSkill{Name: r.Name, Version: r.Version, Source: r.Source, Digest: r.Digest,
				Tree: r.Tree, Requested: r.Requested, Dependencies: r.Dependencies, Signers: signersOf(r)})
		}
		if r.Explicit() {
			name := r.Name
			if !strings.HasPrefix(r.Source, resolve.EmbeddedSource+"/") {
				name = r.Source
			}
			m.Skills = append(m.Skills, resolve.Requirement{Name: name, Range: r.Requested})
		}
	}
	if len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { _, ok := rec.Get(n); return ok }) {
		m.Skills = nil // nothing named is here: leave the root alone
	}
	slices.SortFunc(m.Skills, func(a, b resolve.Requirement) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(prev.Skills, func(a, b resolve.LockedSkill) int { return strings.Compare(a.Name, b.Name) })
	return m, prev
}

func signersOf(r Record) []resolve.Signer {
	out := make([]resolve.Signer, 0, len(r.Signers))
	for _, id := range r.Signers {
		out = append(out, resolve.Signer(id))
	}
	return out
}

func rootList(roots []Root) string {
	ds := make([]string, len(roots))
	for i, r := range roots {
		ds[i] = r.Dir
	}
	return strings.Join(ds, ", ")
}
