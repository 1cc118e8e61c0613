package install

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
)

// installLocked installs exactly prev when it satisfies m: installing
// from a lock needs no resolution, so no tag list or manifest by tag is
// read, only what the lock names by digest (manifests, layers,
// signatures). What the fetched manifests require is then checked
// against the lock's versions, since the lock file alone could claim a
// set that does not fit together. It returns a nil lock when a resolution
// is needed instead: no usable lock, local skills, a lock that does not
// satisfy m, or (without frozen) one whose manifests disagree with it;
// with opts.Frozen that disagreement is a *resolve.StaleError.
func installLocked(ctx context.Context, c *registry.Client, ns resolve.Namespace, m *resolve.Manifest, prev *resolve.Lockfile, opts Options) (*resolve.Lockfile, []*Planned, error) {
	// --allow-republished (without --frozen) asks what the tags say now.
	if prev == nil || len(prev.Skills) == 0 || len(opts.Local) > 0 || (opts.AllowRepublished && !opts.Frozen) || prev.Satisfies(m, ns) != nil {
		return nil, nil, nil
	}
	lock := *prev
	lock.Skills = slices.Clone(prev.Skills)
	if opts.Frozen && opts.Warn != nil {
		if old := unrecorded(lock.Skills); len(old) > 0 {
			opts.Warn(fmt.Sprintf("%s records no layer and signature digests for %s (it was written by an older skillpm): their signatures are listed at the registry, which costs round trips; locking again records them",
				lockPath(prev), strings.Join(old, ", ")))
		}
	}
	plan, err := prepare(ctx, c, ns, &lock, opts)
	if err != nil {
		// A locked version the registry no longer has: resolving again
		// says what is there (and refuses a downgrade); --frozen cannot.
		if errors.Is(err, registry.ErrNotFound) && !opts.Frozen {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	if diffs := unmetRequirements(ns, &lock, plan, opts.Prerelease); len(diffs) > 0 {
		if opts.Frozen {
			return nil, nil, &resolve.StaleError{Lock: lockPath(prev), Differences: diffs}
		}
		return nil, nil, nil
	}
	return &lock, plan, nil
}

// unrecorded lists the registry skills of a lock that record no layer.
func unrecorded(skills []resolve.LockedSkill) []string {
	var out []string
	for _, ls := range skills {
		if r, err := source.ParseName(ls.Source); ls.Layer == nil && ls.Git == "" && (err != nil || r.Kind == source.RefRemote) {
			out = append(out, ls.Name)
		}
	}
	return out
}

// unmetRequirements lists each requirement a planned manifest states that
// the lock's version of that skill does not meet.
func unmetRequirements(ns resolve.Namespace, lock *resolve.Lockfile, plan []*Planned, pre bool) []string {
	byKey := map[string]resolve.LockedSkill{}
	for _, ls := range lock.Skills {
		byKey[ns.KeyOf(ls.Source)] = ls
	}
	var diffs []string
	for _, p := range plan {
		if p == nil || p.manifest == nil {
			continue
		}
		key := ns.KeyOf(p.Lock.Source)
		for dep, rng := range p.manifest.Metadata.Requires {
			q, err := ns.Qualify(key, dep)
			if err != nil {
				diffs = append(diffs, fmt.Sprintf("%s %s: dependency %s: %v", p.Lock.Name, p.Lock.Version, dep, err))
				continue
			}
			ls, ok := byKey[q]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s %s: needs %s %s, which is not in the lock", p.Lock.Name, p.Lock.Version, dep, rng))
				continue
			}
			set, err := resolve.ParseRange(rng, pre)
			v, verr := semver.StrictNewVersion(ls.Version)
			if err != nil || verr != nil || !set.Contains(v) {
				diffs = append(diffs, fmt.Sprintf("%s %s: needs %s %s, the lock has %s", p.Lock.Name, p.Lock.Version, dep, rng, ls.Version))
			}
		}
	}
	slices.Sort(diffs)
	return diffs
}

// lockPath names the lock in messages.
func lockPath(l *resolve.Lockfile) string {
	if l.File != "" {
		return l.File
	}
	return resolve.LockFile
}
