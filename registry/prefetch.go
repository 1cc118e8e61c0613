package registry

import (
	"context"
	"slices"
	"sync"

	"github.com/Masterminds/semver/v3"
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
}

// Prefetch makes the Graph fetch ahead of the solver with up to jobs
// requests at once, until stop is called; stop cancels what is still in
// flight and waits for it. Prefetching is speculative: its errors are
// dropped, and the solver's own requests report them.
// The roots (solver name to range) are warmed at once.
func (g *Graph) Prefetch(ctx context.Context, jobs int, roots map[string]string) (stop func()) {
	if jobs <= 0 {
		jobs = 16
	}
	pctx, cancel := context.WithCancel(ctx)
	p := &prefetcher{ctx: pctx, sem: make(chan struct{}, jobs), seen: map[string]bool{}}
	g.pre = p
	for key, rng := range roots {
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
func (g *Graph) warm(p *prefetcher, key, rng string) {
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
				}
				return
			}
		}
	}()
}
