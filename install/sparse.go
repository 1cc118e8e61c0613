package install

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/resolve"
	"golang.org/x/sync/errgroup"
)

// resolveFromIndex resolves m from the signed sparse index of the
// namespace's default source, then fetches and verifies the solution as
// resolveAndPrepare does, checking every manifest the index named against
// the index. ok is false, after a warning, when the index cannot be used:
// there is none, no signature the policy trusts, it gives no resolution,
// or it is stale (the registry tags a version it does not list, or no
// longer one it lists); the caller then resolves against the registry,
// whose tag lists are cached by then. An index whose entry the fetched
// manifest contradicts is refused (sparse.ErrLies): it was signed by
// someone the policy trusts, so it is not weather.
func resolveFromIndex(ctx context.Context, c *registry.Client, g *registry.Graph, m *resolve.Manifest, prev *resolve.Lockfile, opts Options, warn func(string)) (*resolve.Lockfile, []*Planned, bool, error) {
	src := g.DefaultSource()
	if src == nil {
		return nil, nil, false, nil
	}
	ns := g.Namespace()
	fallback := func(why error) (*resolve.Lockfile, []*Planned, bool, error) {
		if ctx.Err() != nil {
			return nil, nil, false, ctx.Err()
		}
		warn(fmt.Sprintf("%v; resolving against the registry", why))
		return nil, nil, false, nil
	}
	ix, err := sparse.Fetch(ctx, src)
	if err != nil {
		return fallback(err)
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
	// The signatures are read while the documents download: the solver
	// waits for both.
	verified := make(chan error, 1)
	go func() {
		_, err := ix.Verify(ctx, c, src, opts.Trust, opts.Policy)
		verified <- err
	}()
	lerr := ix.Load(ctx, roots, 0)
	if err := <-verified; err != nil {
		return fallback(fmt.Errorf("ignoring the sparse index: %w", err))
	}
	if lerr != nil {
		return fallback(fmt.Errorf("ignoring the sparse index: %w", lerr))
	}
	cat := ix.Catalog(g)
	lock, err := resolve.Lock(ctx, cat, m, prev, resolve.LockOptions{Frozen: opts.Frozen, Prerelease: opts.Prerelease, Warn: warn})
	if err != nil {
		return fallback(fmt.Errorf("the sparse index %s@%s gives no resolution (%v)", ix.Location, ix.Descriptor.Digest, err))
	}
	if missed := cat.Missed(); len(missed) > 0 {
		warn(fmt.Sprintf("the sparse index %s does not list %s: read from the registry", ix.Location, strings.Join(missed, ", ")))
	}
	// Whether the index is stale is asked while the solution downloads:
	// one tag list per skill it answered for, in the same round trip as
	// the manifests.
	stale := make(chan error, 1)
	go func() {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(max(opts.Jobs, defaultJobs))
		errs := make([]error, len(lock.Skills))
		for i, ls := range lock.Skills {
			if e := cat.Entry(ns.KeyOf(ls.Source)); e != nil {
				g.Go(func() error {
					errs[i] = checkFresh(gctx, c, ls, e)
					return nil
				})
			}
		}
		g.Wait()
		stale <- errors.Join(errs...)
	}()
	popts := opts
	popts.vouch = func(ctx context.Context, ls resolve.LockedSkill, repo *registry.Repository, man *registry.Manifest) error {
		e := cat.Entry(ns.KeyOf(ls.Source))
		if e == nil {
			return nil
		}
		return vouch(ctx, ls, repo, man, e)
	}
	plan, perr := prepare(ctx, c, ns, lock, popts)
	serr := <-stale
	switch {
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
func vouch(ctx context.Context, ls resolve.LockedSkill, repo *registry.Repository, m *registry.Manifest, e *sparse.Entry) error {
	md := m.Metadata
	if md.Name != ls.Name || md.Version != ls.Version {
		tagged := "no manifest"
		if v, err := semver.StrictNewVersion(ls.Version); err == nil {
			if r, err := repo.Resolve(ctx, registry.Selector{Kind: registry.SelectVersion, Version: v, Raw: ls.Version}, true); err == nil {
				tagged = r.Descriptor.Digest.String()
			}
		}
		return &sparse.LieError{Skill: ls.Name, Version: ls.Version, What: "manifest",
			Index:    fmt.Sprintf("%s (which holds %s@%s)", m.Descriptor.Digest, md.Name, md.Version),
			Registry: fmt.Sprintf("%s at tag %s", tagged, registry.Tag(ls.Version))}
	}
	return e.Check(m)
}
