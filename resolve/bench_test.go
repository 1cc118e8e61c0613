package resolve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// benchProvider is a read-only in-memory Provider for benchmarks: versions are
// looked up by pointer, since the solver hands back the ones it was given,
// so the Provider costs next to nothing and the solver is what is measured.
type benchProvider struct {
	versions map[string][]*semver.Version
	deps     map[*semver.Version]map[string]string
}

func (s *benchProvider) Versions(_ context.Context, name string) ([]*semver.Version, error) {
	vs, ok := s.versions[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	return vs, nil
}

func (s *benchProvider) Dependencies(_ context.Context, _ string, v *semver.Version) (map[string]string, error) {
	return s.deps[v], nil
}

func (s *benchProvider) add(name string, v string, deps map[string]string) {
	sv := semver.MustParse(v)
	s.versions[name] = append(s.versions[name], sv)
	s.deps[sv] = deps
}

// synthetic builds n skills of 20 versions each (majors 1-4, minors 0-4).
// Every version depends on 0-4 skills further down the list (a layered
// ecosystem: skills build on lower-level ones), mostly nearby ones, with
// caret ranges on its own major's line of each dependency. One in
// staleOdds requirements of the two newest releases is stale, on the
// previous major, as happens when a release forgets to bump one: the
// solver must notice the clash with requirements on the newest major and
// fall back to an older release. The 20 roots are near the top, so the
// solution spans most of the graph.
func synthetic(n, staleOdds int, seed uint64) (*benchProvider, map[string]string) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	src := &benchProvider{versions: map[string][]*semver.Version{}, deps: map[*semver.Version]map[string]string{}}
	name := func(i int) string { return fmt.Sprintf("skill-%05d", i) }
	for i := 0; i < n; i++ {
		for maj := 1; maj <= 4; maj++ {
			for minor := 0; minor <= 4; minor++ {
				var deps map[string]string
				if i < n-1 {
					k := rng.IntN(5)
					deps = make(map[string]string, k)
					for ; k > 0; k-- {
						j := i + 1 + rng.IntN(min(n-i-1, 40))
						if rng.IntN(10) == 0 {
							j = i + 1 + rng.IntN(n-i-1)
						}
						dmaj := maj
						if maj == 4 && minor >= 3 && rng.IntN(staleOdds) == 0 {
							dmaj = 3
						}
						deps[name(j)] = fmt.Sprintf("^%d.%d", dmaj, rng.IntN(3))
					}
				}
				src.add(name(i), fmt.Sprintf("%d.%d.0", maj, minor), deps)
			}
		}
	}
	roots := map[string]string{}
	for len(roots) < 20 && len(roots) < n {
		roots[name(rng.IntN(min(n, 100)))] = "^4"
	}
	return src, roots
}

// conflicting builds groups of skills whose newest versions (1.10.0 and
// up) need shared-g ^2 while older ones need shared-g ^1. Each group's top
// skill needs all of them and, through a chain of skills, a gate skill
// whose every version needs shared-g ^1. The solver takes the newest
// versions first, reaches the gate only later, and must then learn that
// the chain rules out shared-g ^2, backjump, and settle every skill of the
// group on 1.9.0. (The names put the libraries first in the solver's
// order; a solver that met the gate first would have it easy.)
func conflicting(groups, perGroup, chain int) (*benchProvider, map[string]string) {
	src := &benchProvider{versions: map[string][]*semver.Version{}, deps: map[*semver.Version]map[string]string{}}
	roots := map[string]string{}
	for g := 0; g < groups; g++ {
		shared := fmt.Sprintf("shared-%d", g)
		src.add(shared, "1.0.0", nil)
		src.add(shared, "2.0.0", nil)
		top := map[string]string{}
		for p := 0; p < perGroup; p++ {
			name := fmt.Sprintf("lib-%d-%d", g, p)
			for m := 0; m < 20; m++ {
				rng := "^1"
				if m >= 10 {
					rng = "^2"
				}
				src.add(name, fmt.Sprintf("1.%d.0", m), map[string]string{shared: rng})
			}
			top[name] = "^1"
		}
		gate := fmt.Sprintf("gate-%d", g)
		next := gate
		for c := chain - 1; c >= 0; c-- {
			link := fmt.Sprintf("step-%d-%d", g, c)
			for m := 0; m < 20; m++ {
				src.add(link, fmt.Sprintf("1.%d.0", m), map[string]string{next: "^1"})
			}
			next = link
		}
		top[next] = "^1"
		for m := 0; m < 20; m++ {
			src.add(gate, fmt.Sprintf("1.%d.0", m), map[string]string{shared: "^1"})
		}
		name := fmt.Sprintf("top-%d", g)
		src.add(name, "1.0.0", top)
		roots[name] = "^1"
	}
	return src, roots
}

func benchSolve(b *testing.B, src Provider, roots map[string]string) {
	b.Helper()
	sol, err := Solve(context.Background(), src, roots, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Solve(context.Background(), src, roots, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(sol)), "skills")
}

func BenchmarkSolve50(b *testing.B) {
	src, roots := synthetic(50, 200, 1)
	benchSolve(b, src, roots)
}

func BenchmarkSolve1000(b *testing.B) {
	src, roots := synthetic(1000, 200, 2)
	benchSolve(b, src, roots)
}

// BenchmarkSolve10000 is the contract's figure: 10,000 skills and 200,000
// versions must resolve in well under a second.
func BenchmarkSolve10000(b *testing.B) {
	src, roots := synthetic(10000, 200, 3)
	benchSolve(b, src, roots)
}

func BenchmarkSolveConflicts(b *testing.B) {
	src, roots := conflicting(20, 20, 5)
	benchSolve(b, src, roots)
}
