package catalog

import (
	"context"
	"slices"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry"
)

// prefetcher warms the Client's caches ahead of the solver: when a
// version's dependencies are read, the versions of each dependency and the
// manifest of its newest matching version are fetched concurrently, so the
// solver's one-at-a-time questions are mostly answered from memory.
type prefetcher struct {
	ctx  context.Context
	sem  chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	seen map[string]bool
	// layers also downloads the layer of each version prefetched.
	layers bool
	// prefer is the version to prefetch per key, when its range allows it.
	prefer map[string]*semver.Version
}

// PrefetchOptions configures PrefetchWith.
type PrefetchOptions struct {
	// Jobs bounds the requests at once; 0 means DefaultRegistryRequests.
	Jobs int
	// Roots are warmed at once: solver name to range.
	Roots map[string]string
	// Layers also downloads into the content cache the layer of each
	// version whose dependencies are prefetched, while the solver runs:
	// an installer then finds most layers there when the solution is
	// known. A version the solver does not choose costs its layer's
	// bytes, never a round trip on the way to the solution.
	Layers bool
	// Prefer names, per solver name, the version the solver will prefer
	// (a lock's): it is prefetched instead of the newest when it is
	// published and in range, as the solver will choose it.
	Prefer map[string]*semver.Version
}

// Prefetch makes the catalog fetch ahead of the solver with up to jobs
// requests at once (0 means DefaultRegistryRequests), until stop is called; stop cancels what is still in
// flight and waits for it. Prefetching is speculative: its errors are
// dropped, and the solver's own requests report them.
// The roots (solver name to range) are warmed at once.
func (g *Registry) Prefetch(ctx context.Context, jobs int, roots map[string]string) (stop func()) {
	return g.PrefetchWith(ctx, PrefetchOptions{Jobs: jobs, Roots: roots})
}

// PrefetchWith is Prefetch with options: see PrefetchOptions.
func (g *Registry) PrefetchWith(ctx context.Context, opts PrefetchOptions) (stop func()) {
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = registry.DefaultRegistryRequests
	}
	pctx, cancel := context.WithCancel(ctx)
	p := &prefetcher{ctx: pctx, sem: make(chan struct{}, jobs), seen: map[string]bool{}, layers: opts.Layers, prefer: opts.Prefer}
	g.pre = p
	for key, rng := range opts.Roots {
		g.warm(p, key, rng)
	}
	return func() {
		cancel()
		p.wg.Wait()
		g.pre = nil
	}
}

// warm fetches key's versions and the dependencies of the newest version
// in rng, once per key.
func (g *Registry) warm(p *prefetcher, key, rng string) {
	p.mu.Lock()
	if p.seen[key] {
		p.mu.Unlock()
		return
	}
	p.seen[key] = true
	p.mu.Unlock()
	c, err := semver.NewConstraint(rng)
	if err != nil {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case p.sem <- struct{}{}:
		case <-p.ctx.Done():
			return
		}
		vs, err := g.Versions(p.ctx, key)
		<-p.sem
		if err != nil {
			return
		}
		vs = slices.Clone(vs)
		slices.SortFunc(vs, func(a, b *semver.Version) int { return b.Compare(a) })
		if pv := p.prefer[key]; pv != nil && c.Check(pv) {
			if i := slices.IndexFunc(vs, pv.Equal); i >= 0 {
				vs = []*semver.Version{vs[i]}
			}
		}
		for _, v := range vs {
			if v.Prerelease() == "" && c.Check(v) {
				select {
				case p.sem <- struct{}{}:
				case <-p.ctx.Done():
					return
				}
				deps, err := g.dependencies(p.ctx, key, v)
				<-p.sem
				if err == nil {
					for d, r := range deps {
						g.warm(p, d, r)
					}
					if p.layers {
						g.warmLayer(p, key, v)
					}
				}
				return
			}
		}
	}()
}

// warmLayer downloads the layer of version v of key into the content
// cache; its manifest is in memory by now.
func (g *Registry) warmLayer(p *prefetcher, key string, v *semver.Version) {
	select {
	case p.sem <- struct{}{}:
	case <-p.ctx.Done():
		return
	}
	defer func() { <-p.sem }()
	rs, name := g.route(key)
	r, err := rs.Repository(name)
	if err != nil {
		return
	}
	m, err := r.Metadata(p.ctx, v)
	if err != nil {
		return
	}
	_ = r.FetchLayer(p.ctx, m)
}
