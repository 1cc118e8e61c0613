package install

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
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
	ctx = registry.WithBudget(ctx, opts.budget())
	for attempt := 1; ; attempt++ {
		res, err := updateOnce(ctx, c, cat, names, opts)
		if !errors.Is(err, ErrRootChanged) || attempt == commitAttempts {
			return res, err
		}
		if opts.Warn != nil {
			opts.Warn(err.Error() + "; checking again")
		}
	}
}

func updateOnce(ctx context.Context, c *registry.Client, cat resolve.Catalog, names []string, opts Options) (*Result, error) {
	opts.LockFile, opts.Frozen, opts.Local = "", false, nil
	// Links follow their copy: the roots they point into are updated too.
	var err error
	if opts.Roots, err = withLinkedCopies(opts.Roots, opts.AgentsRoots); err != nil {
		return nil, err
	}
	held, err := lockRoots(ctx, opts.Roots, opts)
	if err != nil {
		return nil, err
	}
	defer held.unlock()
	// As for Install: the roots are not held while the update is
	// resolved, fetched, staged, audited and consented to; relock checks
	// that their receipts are still those the plans were made from.
	held.release()
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
		if r.Scope == ScopeProject {
			if err := sourcesChosen(rec, r.Dir, cat.Namespace(), names); err != nil {
				return nil, err
			}
		} else if opts.Warn != nil {
			// A user root's receipts are the user's own: the source an
			// install was asked for is where its update comes from. A tool
			// could have written them too, so the update says so.
			for _, n := range otherSources(rec, r.Dir, cat.Namespace(), names) {
				opts.Warn(n)
			}
		}
		m, prev := updateRequest(rec, names, found)
		if len(m.Skills) == 0 {
			continue
		}
		m.File = "the receipts of " + r.Dir
		own := r
		own.Link = "" // the root's copies; its links were skipped
		// An update asks for no copy for its own sake: a copy kept only
		// for its links stays one.
		own.LinkOnly = true
		j, err := newJob(ctx, c, cat, m, prev, []Root{own}, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Dir, err)
		}
		jobs = append(jobs, j)
		if opts.Check != nil {
			if err := opts.Check(ctx, j.lock); err != nil {
				return nil, fmt.Errorf("%s: %w", r.Dir, err)
			}
		}
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
	if err := held.relock(ctx, opts, jobs...); err != nil {
		return nil, err
	}
	for _, j := range jobs {
		rrs, err := j.commit(ctx, opts, held)
		res.Roots = append(res.Roots, rrs...)
		if err != nil {
			return res, err
		}
	}
	for _, r := range opts.Roots {
		if r.Link == "" {
			continue
		}
		held.committed[r.Dir] = true
		rr, err := refreshLinks(ctx, r, opts)
		if err != nil {
			return res, fmt.Errorf("%s: %w", r.Dir, err)
		}
		if len(rr.Installed) > 0 {
			res.Roots = append(res.Roots, rr)
		}
	}
	return res, nil
}

// withLinkedCopies gives each root that holds links skillpm made its
// Link (the root of the copy its first link points to) and puts that
// root before it, so that updating a link updates the copy it shows. A
// link whose copy is not in one of agents is refused: the update would
// write where a receipt says.
func withLinkedCopies(roots []Root, agents []string) ([]Root, error) {
	var out []Root
	has := func(d string) bool { return slices.ContainsFunc(out, func(o Root) bool { return o.Dir == d }) }
	for _, r := range roots {
		rec, err := ReadReceipts(r.Dir)
		if err == nil {
			if err := rec.checkLinks(filepath.Join(r.Dir, stateDir, receiptsFile), agents); err != nil {
				return nil, err
			}
			for _, s := range rec.Skills {
				if s.IsLink() {
					r.Link = filepath.Dir(s.Link)
					break
				}
			}
		}
		if r.Link != "" && !has(r.Link) {
			out = append(out, Root{Host: canonicalHost, Scope: r.Scope, Dir: r.Link})
		}
		if !has(r.Dir) {
			out = append(out, r)
		}
	}
	return out, nil
}

// refreshLinks rewrites the receipts of r's links from the receipts of
// the copies they point to, which an update just changed: a link shows
// what its copy is. Only receipts change, in one transaction.
func refreshLinks(ctx context.Context, r Root, opts Options) (RootResult, error) {
	res := RootResult{Root: r, Installed: []string{}, Unchanged: []string{}}
	rec, err := ReadReceipts(r.Dir)
	if err != nil {
		return res, err
	}
	copies := map[string]*Receipts{}
	changed := false
	for _, l := range rec.Skills {
		if !l.IsLink() {
			continue
		}
		croot := filepath.Dir(l.Link)
		if copies[croot] == nil {
			if copies[croot], err = ReadReceipts(croot); err != nil {
				return res, err
			}
		}
		c, ok := copies[croot].Get(l.Name)
		if !ok || c.Digest == l.Digest {
			continue
		}
		nl := c
		nl.Mode, nl.Link, nl.LinkedFrom, nl.LinkOnly = ModeLink, l.Link, nil, false
		nl.ReadBy, nl.Requested = l.ReadBy, l.Requested
		rec.Put(nl)
		res.Installed = append(res.Installed, l.Name)
		changed = true
	}
	if !changed {
		return res, nil
	}
	tx, err := beginTxn(r.Dir)
	if err != nil {
		return res, err
	}
	tx.hook = opts.hook
	return res, tx.Commit(ctx, rec)
}

// updateRequest makes the manifest of one root's update from its
// receipts: every skill asked for by name, in its recorded range (local
// ones aside). prev keeps the installed versions of the skills not being
// updated, so they stay while they fit. found collects the names given
// that the root has.
func updateRequest(rec *Receipts, names []string, found map[string]bool) (*resolve.Manifest, *resolve.Lockfile) {
	m := UpdateManifest(rec, "")
	prev := &resolve.Lockfile{Version: resolve.LockVersion}
	for _, r := range rec.Skills {
		if r.Source == "" || r.IsLink() {
			continue // from a local directory: reinstall it from there; a link follows its copy
		}
		updating := len(names) == 0 || slices.Contains(names, r.Name)
		if updating {
			found[r.Name] = true
		} else {
			prev.Skills = append(prev.Skills, resolve.LockedSkill{Name: r.Name, Version: r.Version, Source: r.Source, Digest: r.Digest,
				Tree: r.Tree, Requested: r.Requested, Dependencies: r.Dependencies, Signers: signersOf(r)})
		}
	}
	if len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { _, ok := rec.Get(n); return ok }) {
		m.Skills = nil // nothing named is here: leave the root alone
	}
	slices.SortFunc(prev.Skills, func(a, b resolve.LockedSkill) int { return strings.Compare(a.Name, b.Name) })
	return m, prev
}

// UpdateManifest is what an update of a root's registry skills resolves
// (file names it in messages): every skill its receipts record as asked
// for by name, in the range it was asked for, from the source recorded.
// Skills from a local directory or git, and links, are not in it: they
// are built again from where they came from.
func UpdateManifest(rec *Receipts, file string) *resolve.Manifest {
	m := &resolve.Manifest{File: file}
	for _, r := range rec.Skills {
		if r.Source == "" || r.IsLink() || !r.Explicit() {
			continue
		}
		name := r.Name
		if !strings.HasPrefix(r.Source, resolve.EmbeddedSource+"/") {
			name = r.Source
		}
		m.Skills = append(m.Skills, resolve.Requirement{Name: name, Range: r.Requested})
	}
	slices.SortFunc(m.Skills, func(a, b resolve.Requirement) int { return strings.Compare(a.Name, b.Name) })
	return m
}

// sourcesChosen refuses to update a project root's skill from the source
// its receipt names when that is not where the name resolves (ns): the
// receipts are committed with the project, so whoever wrote it would
// choose the repository an update installs from. The project's
// skills.yaml and lock, or the user, name sources.
func sourcesChosen(rec *Receipts, dir string, ns resolve.Namespace, names []string) error {
	for i, r := range rec.Skills {
		if r.Source == "" || r.IsLink() || (len(names) > 0 && !slices.Contains(names, r.Name)) {
			continue
		}
		key, err := ns.Key(r.Name)
		if err != nil {
			continue // ReadReceipts let only skill names through
		}
		if want := ns.Repository(key); r.Source != want {
			return &ReceiptError{File: filepath.Join(dir, stateDir, receiptsFile), Record: i + 1, Name: r.Name,
				Reason: fmt.Sprintf("the receipt names the source %s, where %s resolves to %s: a project's receipts choose no source (its manifest does), so nothing was updated; list the skill with its source in the project's manifest to update it from there", r.Source, r.Name, want)}
		}
	}
	return nil
}

// otherSources says, for each skill of rec to update whose receipt names
// another source than the one its name resolves to (ns), where the
// update fetches it from and why.
func otherSources(rec *Receipts, dir string, ns resolve.Namespace, names []string) []string {
	var out []string
	for _, r := range rec.Skills {
		if r.Source == "" || r.IsLink() || (len(names) > 0 && !slices.Contains(names, r.Name)) {
			continue
		}
		key, err := ns.Key(r.Name)
		if err != nil {
			continue
		}
		if want := ns.Repository(key); r.Source != want {
			out = append(out, fmt.Sprintf("%s: updating from %s, the source its receipt in %s records (the name alone resolves to %s)", r.Name, r.Source, dir, want))
		}
	}
	return out
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
