package resolve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/Masterminds/semver/v3"
)

// Catalog is a [Provider] over solver names (see [Namespace]) that can also
// say which artifact a version is. The registry implements it from
// manifests alone; resolution never needs a layer.
type Catalog interface {
	Provider
	// Namespace is the namespace of the catalog's names. Dependencies come
	// back qualified in it ([Namespace.Qualify]).
	Namespace() Namespace
	// Describe returns the manifest digest and tree hash of version v of
	// the skill name.
	Describe(ctx context.Context, name string, v *semver.Version) (Artifact, error)
}

// Artifact is what a lock records about a published version besides its
// name and version.
type Artifact struct {
	// Digest is the manifest digest, "sha256:<hex>".
	Digest string
	// Tree is the tree hash the manifest states, "" when none.
	Tree string
	// Git is the git reference at its commit the artifact was built
	// from, for skills installed from git; "" otherwise.
	Git string
}

// LockOptions tunes [Lock]. The zero value resolves releases only and
// writes whatever resolution gives.
type LockOptions struct {
	// Prerelease makes pre-releases candidates in every range (--pre).
	Prerelease bool
	// MaxSteps bounds the solver; 0 means DefaultMaxSteps.
	MaxSteps int
	// Frozen refuses any change (--frozen): the previous lock must satisfy
	// the manifest and resolving again must give it back exactly, or Lock
	// fails with a *StaleError naming each difference.
	Frozen bool
	// Warn, when set, is told about optional requirements skipped because
	// nothing can satisfy them.
	Warn func(msg string)
	// Known, when set, is the lock the trust fields (tier, signers,
	// layer, referrers) of unchanged entries are kept from, instead of
	// prev: an upgrade prefers none of the locked versions (prev without
	// them) and must still keep what install verified for those that do
	// not move.
	Known *Lockfile
	// Hide, when set, withholds versions from the resolution (yanked
	// ones); the version prev locks stays a candidate.
	Hide HideFunc
}

// Lock resolves what manifest m asks for against cat and returns the lock
// that records it. The versions in prev (nil for none) are preferred while
// they still satisfy every requirement; else the newest allowed version is
// chosen. Each entry carries the chosen version's digest and tree (from
// its manifest), its direct dependencies' chosen versions, and, for the
// skills m lists, the requested range; the tier, signers, layer and
// referrers of an entry whose version and digest are unchanged since prev
// are kept, since only install can know them.
//
// The manifest's names are read in cat's namespace, which the caller
// builds from the manifest ([Manifest.Namespace]) so that --from and the
// manifest's registry are honoured.
//
// Failures: a requirement m cannot name is a *FileError; when nothing
// satisfies the requirements the error is the solver's *NoSolutionError;
// two skills of the same name from different repositories wrap
// ErrNameConflict; with opts.Frozen, any change is a *StaleError.
func Lock(ctx context.Context, cat Catalog, m *Manifest, prev *Lockfile, opts LockOptions) (*Lockfile, error) {
	ns := cat.Namespace()
	var hidden *hiding
	if opts.Hide != nil {
		h := newHiding(cat, opts.Hide, prev.Preferences(ns))
		cat, hidden = h, &h
	}
	if opts.Frozen {
		if prev == nil {
			return nil, &StaleError{Lock: LockFile, Differences: []string{"there is no lock to keep"}}
		}
		if err := prev.satisfies(m, ns, opts.Prerelease); err != nil {
			return nil, err
		}
	}
	roots, optional, err := rootsOf(m, ns)
	if err != nil {
		return nil, err
	}
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	if err := dropUnavailable(ctx, cat, roots, optional, opts.Prerelease, warn); err != nil {
		return nil, err
	}
	sopts := Options{Locked: prev.Preferences(ns), Prerelease: opts.Prerelease, MaxSteps: opts.MaxSteps}
	var sol Solution
	for {
		sol, err = Solve(ctx, cat, roots, sopts)
		var nse *NoSolutionError
		if !errors.As(err, &nse) || !dropConflicting(nse, roots, optional, warn) {
			break
		}
	}
	if nse, ok := errors.AsType[*NoSolutionError](err); ok && hidden != nil {
		hidden.explain(nse)
	}
	if err != nil {
		return nil, err
	}
	known := prev
	if opts.Known != nil {
		known = opts.Known
	}
	next, err := lockOf(ctx, cat, sol, roots, known)
	if err != nil {
		return nil, err
	}
	if opts.Frozen {
		next.File = prev.File
		if diffs := prev.Diff(next); len(diffs) > 0 {
			return nil, &StaleError{Lock: prev.path(), Differences: diffs}
		}
	}
	return next, nil
}

// rootsOf qualifies the manifest's requirements.
func rootsOf(m *Manifest, ns Namespace) (roots map[string]string, optional map[string]Requirement, err error) {
	roots, optional = map[string]string{}, map[string]Requirement{}
	first := map[string]Requirement{}
	for _, r := range m.Skills {
		key, err := ns.Key(r.Name)
		if err != nil {
			return nil, nil, &FileError{File: m.File, Line: r.Line, Column: r.Column, Message: err.Error(), Err: ErrInvalidManifest}
		}
		if f, ok := first[key]; ok {
			return nil, nil, &FileError{File: m.File, Line: r.Line, Column: r.Column, Err: ErrInvalidManifest,
				Message: fmt.Sprintf("%s names the same skill as %s (line %d)", r.Name, f.Name, f.Line), Hint: "keep one"}
		}
		first[key] = r
		roots[key] = RangeOrAny(r.Range)
		if r.Optional {
			optional[key] = r
		}
	}
	return roots, optional, nil
}

// dropUnavailable removes the optional roots that no published version
// satisfies, or whose skill does not exist.
func dropUnavailable(ctx context.Context, cat Catalog, roots map[string]string, optional map[string]Requirement, pre bool, warn func(string)) error {
	keys := make([]string, 0, len(optional))
	for k := range optional {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		vs, err := cat.Versions(ctx, key)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("listing versions of %s: %w", key, err)
		}
		set, err := ParseRange(roots[key], pre)
		if err != nil {
			return fmt.Errorf("requirement on %s: %w", key, err)
		}
		ok := false
		for _, v := range vs {
			ok = ok || set.Contains(v)
		}
		if !ok {
			why := "no published version matches"
			if len(vs) == 0 {
				why = "it is not published"
			}
			warn(fmt.Sprintf("skipping optional skill %s %s: %s", key, roots[key], why))
			delete(roots, key)
		}
	}
	return nil
}

// dropConflicting removes the optional roots that take part in a failed
// solve, reporting whether it removed any.
func dropConflicting(nse *NoSolutionError, roots map[string]string, optional map[string]Requirement, warn func(string)) bool {
	dropped := false
	for _, key := range nse.Requirements {
		if _, ok := optional[key]; ok {
			if _, ok := roots[key]; ok {
				warn(fmt.Sprintf("skipping optional skill %s %s: it conflicts with the other requirements:\n%s", key, roots[key], nse.Explanation))
				delete(roots, key)
				dropped = true
			}
		}
	}
	return dropped
}

// lockOf turns a solution into lock entries.
func lockOf(ctx context.Context, cat Catalog, sol Solution, roots map[string]string, prev *Lockfile) (*Lockfile, error) {
	ns := cat.Namespace()
	names := sol.Names()
	byShort := map[string]string{}
	for _, key := range names {
		short := ShortName(key)
		if other, ok := byShort[short]; ok {
			return nil, fmt.Errorf("%w: %s and %s are both needed, and an install root holds one skill named %s; require one of them by its full reference everywhere",
				ErrNameConflict, ns.Repository(other), ns.Repository(key), short)
		}
		byShort[short] = key
	}
	l := &Lockfile{Version: LockVersion, Skills: make([]LockedSkill, 0, len(names))}
	for _, key := range names {
		v := sol[key]
		art, err := cat.Describe(ctx, key, v)
		if err != nil {
			return nil, fmt.Errorf("describing %s@%s: %w", key, v, err)
		}
		deps, err := cat.Dependencies(ctx, key, v)
		if err != nil {
			return nil, fmt.Errorf("reading requirements of %s@%s: %w", key, v, err)
		}
		var dv map[string]string
		for d := range deps {
			if chosen, ok := sol[d]; ok && d != key {
				if dv == nil {
					dv = map[string]string{}
				}
				dv[ShortName(d)] = chosen.String()
			}
		}
		e := LockedSkill{
			Name:         ShortName(key),
			Version:      v.String(),
			Source:       ns.Repository(key),
			Digest:       art.Digest,
			Tree:         art.Tree,
			Git:          art.Git,
			Dependencies: dv,
			Requested:    roots[key],
		}
		if p := prev.Get(e.Name); p != nil && p.Source == e.Source && p.Version == e.Version && p.Digest == e.Digest {
			e.Tier, e.Signers = p.Tier, slices.Clone(p.Signers)
			e.Referrers = slices.Clone(p.Referrers)
			if p.Layer != nil {
				layer := *p.Layer
				e.Layer = &layer
			}
		}
		l.Skills = append(l.Skills, e)
	}
	l.normalize()
	return l, nil
}
