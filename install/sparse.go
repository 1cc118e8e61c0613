package install

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
	"golang.org/x/sync/errgroup"
)

// resolveFromIndex resolves m from the signed sparse index of the
// namespace's default source, then fetches and verifies the solution as
// resolveAndPrepare does, checking every manifest the index named against
// the index. ok is false when the index cannot be used, after a warning
// unless there is none: no signature the policy trusts, it gives no resolution,
// or it is stale (the registry tags a version it does not list, or no
// longer one it lists); the caller then resolves against the registry,
// whose tag lists are cached by then. An index whose entry the fetched
// manifest contradicts is refused (sparse.ErrLies): it was signed by
// someone the policy trusts, so it is not weather.
func resolveFromIndex(ctx context.Context, c *registry.Client, g *catalog.Registry, m *resolve.Manifest, prev *resolve.Lockfile, opts Options, warn func(string)) (*resolve.Lockfile, []*Planned, bool, error) {
	src := g.DefaultSource()
	if src == nil {
		return nil, nil, false, nil
	}
	ns := g.Namespace()
	fallback := func(why error) (*resolve.Lockfile, []*Planned, bool, error) {
		if ctx.Err() != nil {
			return nil, nil, false, ctx.Err()
		}
		// A registry that cannot be reached, does not answer, or may not
		// be asked more (over budget) fails the resolution the same way:
		// one message for one cause, not a warning before it. Offline,
		// what the caches and pins hold may still resolve, and the index
		// was not asked: nothing to warn about.
		if errors.Is(why, registry.ErrUnreachable) || errors.Is(why, registry.ErrUnresponsive) || errors.Is(why, registry.ErrHostile) {
			return nil, nil, false, why
		}
		if errors.Is(why, registry.ErrOffline) {
			return nil, nil, false, nil
		}
		// A source without a sparse index (a bundle, a registry that never
		// ran index build) or with an unsigned one (index build without
		// --sign, which warned its user) is the ordinary case, not
		// something this install did: the registry answers, and nothing
		// is said. An index signed by someone the policy does not name is
		// still worth a warning.
		if errors.Is(why, sparse.ErrNoIndex) || errors.Is(why, sparse.ErrUnsigned) {
			return nil, nil, false, nil
		}
		warn(fmt.Sprintf("%v; resolving against the registry", why))
		return nil, nil, false, nil
	}
	// The index manifest is asked for first; the roots' tag lists, needed
	// either way (to see whether the index is stale, or to resolve
	// without one), go out in the same round trip.
	type fetched struct {
		ix  *sparse.Index
		err error
	}
	got := make(chan fetched, 1)
	go func() {
		ix, err := sparse.Fetch(registry.WithPriority(ctx), src)
		got <- fetched{ix, err}
	}()
	stopWarm := warmRoots(ctx, g, m, opts.Jobs)
	defer stopWarm()
	f := <-got
	if f.err != nil {
		return fallback(f.err)
	}
	ix := f.ix
	// A stale index is reported and ignored, never obeyed: past its
	// expiry it may be a replay that hides newer versions.
	if err := ix.Fresh(time.Now()); err != nil {
		return fallback(fmt.Errorf("ignoring the sparse index: %w", err))
	}
	var roots []string
	for _, r := range m.Skills {
		key, err := ns.Key(r.Name)
		if err != nil {
			continue
		}
		if s, name := ns.Split(key); s == ix.Source {
			roots = append(roots, name)
		}
	}
	// The signatures are read while the solution downloads; nothing of it
	// is used before they are judged.
	verified := make(chan error, 1)
	go func() {
		_, err := ix.Verify(registry.WithPriority(ctx), c, src, opts.Trust, opts.Policy)
		verified <- err
	}()
	verdict := sync.OnceValue(func() error { return <-verified })
	var bg errgroup.Group
	defer func() {
		verdict() // never leave the goroutine behind
		bg.Wait()
	}()
	if err := ix.Load(ctx, roots, 0); err != nil {
		return fallback(fmt.Errorf("ignoring the sparse index: %w", err))
	}
	cat := ix.Catalog(g)
	// What a lock pins, the registry path keeps (pinLocked): so does the
	// index path.
	if prev != nil && !opts.AllowRepublished {
		for _, ls := range prev.Skills {
			cat.Pin(ns.KeyOf(ls.Source), ls.Version, ls.Digest)
		}
	}
	lock, err := resolve.Lock(ctx, cat, m, prev, resolve.LockOptions{Frozen: opts.Frozen, Prerelease: opts.Prerelease, Warn: warn, Hide: opts.Hide})
	if err != nil {
		if verr := verdict(); verr != nil {
			return fallback(fmt.Errorf("ignoring the sparse index: %w", verr))
		}
		return fallback(fmt.Errorf("the sparse index %s@%s gives no resolution (%v)", ix.Location, ix.Descriptor.Digest, err))
	}
	// The index may narrow the choice, never steer it: a newer version
	// every verified requirement admits was rejected on the index's word
	// alone (its requirements, or those of what it needs), so the
	// registry, whose manifests are the truth, decides instead.
	if why := steered(ix, cat, m, lock, prev, opts.Prerelease); why != "" {
		return fallback(fmt.Errorf("the sparse index %s@%s would decide against a newer version on its own word (%s)", ix.Location, ix.Descriptor.Digest, why))
	}
	// Layers start downloading now, by the digests the index states: the
	// bytes are verified against them as they land, and prepare then
	// refuses an index whose layer digest is not the manifest's.
	if !opts.DryRun {
		for _, ls := range lock.Skills {
			e := cat.Entry(ns.KeyOf(ls.Source))
			if e == nil {
				continue
			}
			iv := e.Find(ls.Version)
			repo, err := OpenLocked(c, ls)
			if iv == nil || err != nil {
				continue
			}
			d, err := digest.Parse(iv.Layer)
			if err != nil {
				continue
			}
			layer := &registry.SkillVersion{OCI: ocispec.Manifest{Layers: []ocispec.Descriptor{{MediaType: registry.LayerMediaType, Digest: d, Size: iv.LayerSize}}}}
			bg.Go(func() error {
				_ = repo.FetchLayer(ctx, layer) // prepare's own fetch reports errors
				return nil
			})
		}
	}
	// Whether the index is stale is asked while the solution downloads:
	// one tag list per skill it answered for (the roots' are in flight).
	stale := make(chan error, 1)
	// A copy: prepare writes each locked skill's tier and signers while
	// this runs.
	solved := slices.Clone(lock.Skills)
	go func() {
		sg, sctx := errgroup.WithContext(ctx)
		sg.SetLimit(max(opts.Jobs, defaultJobs))
		errs := make([]error, len(solved))
		for i, ls := range solved {
			if e := cat.Entry(ns.KeyOf(ls.Source)); e != nil {
				sg.Go(func() error {
					errs[i] = checkFresh(sctx, c, ls, e)
					return nil
				})
			}
		}
		sg.Wait()
		stale <- errors.Join(errs...)
	}()
	popts := opts
	// The Client bounds the requests per host; a job per skill keeps that
	// bound full instead of leaving manifests queued behind layers.
	popts.Jobs = max(opts.Jobs, len(lock.Skills))
	popts.referrers = func(ls resolve.LockedSkill, man *registry.SkillVersion) ([]ocispec.Descriptor, bool) {
		e := cat.Entry(ns.KeyOf(ls.Source))
		if e == nil {
			return nil, false
		}
		iv := e.Find(ls.Version)
		if iv == nil || iv.Referrers == nil || iv.Manifest != man.Descriptor.Digest.String() {
			return nil, false
		}
		return iv.Referrers, true
	}
	popts.vouch = func(ctx context.Context, ls resolve.LockedSkill, repo *registry.Repository, man *registry.SkillVersion) error {
		e := cat.Entry(ns.KeyOf(ls.Source))
		if e == nil {
			return nil
		}
		return vouch(ctx, ls, repo, man, e)
	}
	plan, perr := prepare(ctx, c, ns, lock, popts)
	serr := <-stale
	verr := verdict()
	if missed := cat.Missed(); len(missed) > 0 && verr == nil {
		warn(fmt.Sprintf("the sparse index %s does not list %s: read from the registry", ix.Location, strings.Join(missed, ", ")))
	}
	switch {
	case verr != nil:
		return fallback(fmt.Errorf("ignoring the sparse index: %w", verr))
	case errors.Is(perr, sparse.ErrLies):
		return nil, nil, false, perr
	case serr != nil:
		return fallback(fmt.Errorf("the sparse index %s@%s is stale: %w", ix.Location, ix.Descriptor.Digest, serr))
	case errors.Is(perr, registry.ErrNotFound):
		// A digest the index states that the registry does not hold.
		return fallback(fmt.Errorf("the sparse index %s@%s names what the registry does not hold: %w", ix.Location, ix.Descriptor.Digest, perr))
	case perr != nil:
		return nil, nil, false, perr
	}
	return lock, plan, true, nil
}

// warmRoots lists the tags of m's skills in the background, into the
// Client's cache; stop waits for what is in flight.
func warmRoots(ctx context.Context, g *catalog.Registry, m *resolve.Manifest, jobs int) (stop func()) {
	ns := g.Namespace()
	done := make(chan struct{})
	go func() {
		defer close(done)
		wg, wctx := errgroup.WithContext(ctx)
		wg.SetLimit(max(jobs, defaultJobs))
		for _, r := range m.Skills {
			if key, err := ns.Key(r.Name); err == nil {
				wg.Go(func() error {
					g.Versions(wctx, key) // errors are the resolver's to report
					return nil
				})
			}
		}
		wg.Wait()
	}()
	return func() { <-done }
}

// checkFresh compares the versions e lists with the tags of ls's
// repository.
func checkFresh(ctx context.Context, c *registry.Client, ls resolve.LockedSkill, e *sparse.Entry) error {
	repo, err := OpenLocked(c, ls)
	if err != nil {
		return err
	}
	vs, err := repo.Versions(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", ls.Name, err)
	}
	tagged := map[string]bool{}
	var extra, gone []string
	for _, v := range vs {
		tagged[v.Original()] = true
		if e.Find(v.Original()) == nil {
			extra = append(extra, v.Original())
		}
	}
	for _, v := range e.Doc.Versions {
		if !tagged[v.Version] {
			gone = append(gone, v.Version)
		}
	}
	if len(extra)+len(gone) == 0 {
		return nil
	}
	var parts []string
	if len(extra) > 0 {
		parts = append(parts, "the registry has "+strings.Join(extra, ", ")+" it does not list")
	}
	if len(gone) > 0 {
		parts = append(parts, "it lists "+strings.Join(gone, ", ")+" the registry does not tag")
	}
	return fmt.Errorf("%s: %w: %s", ls.Name, sparse.ErrStale, strings.Join(parts, "; "))
}

// vouch checks the manifest fetched by the digest the index states for
// ls against the index entry. A manifest of another version is named with
// the digest that version's tag holds, so both digests are in the
// refusal.
func vouch(ctx context.Context, ls resolve.LockedSkill, repo *registry.Repository, m *registry.SkillVersion, e *sparse.Entry) error {
	// A digest the solver took from elsewhere (the previous lock keeps
	// its own) is no claim of the index's.
	if iv := e.Find(ls.Version); iv == nil || iv.Manifest != ls.Digest {
		return nil
	}
	md := m.Metadata
	if md.Name != ls.Name || md.Version != ls.Version {
		tagged := "no manifest"
		if v, err := semver.StrictNewVersion(ls.Version); err == nil {
			if r, err := repo.Resolve(ctx, source.Selector{Kind: source.SelectVersion, Version: v, Raw: ls.Version}, true); err == nil {
				tagged = r.Descriptor.Digest.String()
			}
		}
		return &sparse.LieError{Skill: ls.Name, Version: ls.Version, What: "manifest",
			Index:    fmt.Sprintf("%s (which holds %s@%s)", m.Descriptor.Digest, md.Name, md.Version),
			Registry: fmt.Sprintf("%s at tag %s", tagged, registry.Tag(ls.Version))}
	}
	return e.Check(ls.Version, m)
}

// steered names a skill the index's solution holds at an older version
// than one the index lists that every range on it admits: the ranges the
// project asks for, and those the solved versions require (which prepare
// checks against their manifests). The solver then rejected that version
// for what the index says of it or of what it needs, which only the
// manifests may decide. A version the previous lock keeps is the lock's
// choice, not the index's. "" when nothing was steered.
func steered(ix *sparse.Index, cat *sparse.Catalog, m *resolve.Manifest, lock, prev *resolve.Lockfile, prerelease bool) string {
	ns := cat.Namespace()
	ranges := map[string][]*semver.Constraints{}
	admit := func(name, rng string) {
		if c, err := semver.NewConstraint(rng); err == nil {
			ranges[name] = append(ranges[name], c)
		}
	}
	for _, r := range m.Skills {
		if key, err := ns.Key(r.Name); err == nil {
			if src, name := ns.Split(key); src == ix.Source {
				admit(name, r.Range)
			}
		}
	}
	for _, ls := range lock.Skills {
		if e := cat.Entry(ns.KeyOf(ls.Source)); e != nil {
			if iv := e.Find(ls.Version); iv != nil {
				for dep, rng := range iv.Requires {
					if name, ok := ix.Local(dep); ok {
						admit(name, rng)
					}
				}
			}
		}
	}
	for _, ls := range lock.Skills {
		e := cat.Entry(ns.KeyOf(ls.Source))
		v, err := semver.StrictNewVersion(ls.Version)
		if e == nil || e.Doc == nil || err != nil {
			continue
		}
		if p := prev.Get(ls.Name); p != nil && p.Version == ls.Version {
			continue
		}
	next:
		for _, iv := range e.Doc.Versions {
			w, err := semver.StrictNewVersion(iv.Version)
			if err != nil || !w.GreaterThan(v) || w.Prerelease() != "" && !prerelease {
				continue
			}
			for _, c := range ranges[e.Name] {
				if !c.Check(w) {
					continue next
				}
			}
			return fmt.Sprintf("%s %s is solved, yet %s is listed and every range on %s admits it", ls.Name, ls.Version, iv.Version, ls.Name)
		}
	}
	return ""
}
