package resolve

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

var (
	propVersions = []string{
		"0.1.0", "0.2.0", "1.0.0", "1.1.0", "1.2.0-beta", "1.2.0",
		"2.0.0-rc.1", "2.0.0", "2.1.0", "3.0.0",
	}
	propRanges = []string{
		"*", "^1", "^1.1", "~1.1", ">=1.0, <2.0", "1.x", "2.x", ">1.0.0",
		"<2.0.0", "=1.1.0", "1.0.0", "^2.0.0-rc.1", ">=1.2.0-beta", "^0.1",
		"0.2.0 || 2.x", ">=3.0.0", "!=1.1.0", "~2", "<=1.1.0", "^0.2 || ^3",
		">=1.0.0 <1.2.0-0", "1.0.0 - 2.0.0", ">0.1", "2.1.x",
	}
)

type propRegistry struct {
	names []string
	src   *memProvider
	roots map[string]string
	opts  Options
}

func randomRegistry(rng *rand.Rand) *propRegistry {
	n := 3 + rng.IntN(4)
	r := &propRegistry{src: newMemProvider(), roots: map[string]string{}}
	for i := 0; i < n; i++ {
		r.names = append(r.names, fmt.Sprintf("p%d", i))
	}
	for i, name := range r.names {
		if i == n-1 && rng.IntN(8) == 0 {
			continue // unknown to the registry
		}
		perm := rng.Perm(len(propVersions))
		nv := 2 + rng.IntN(4)
		if rng.IntN(12) == 0 {
			nv = 0
			r.src.add(name, "", nil)
		}
		for _, vi := range perm[:nv] {
			deps := map[string]string{}
			for k := rng.IntN(3); k > 0; k-- {
				deps[r.names[rng.IntN(n)]] = propRanges[rng.IntN(len(propRanges))]
			}
			r.src.add(name, propVersions[vi], deps)
		}
	}
	for k := 1 + rng.IntN(2); k > 0; k-- {
		r.roots[r.names[rng.IntN(n)]] = propRanges[rng.IntN(len(propRanges))]
	}
	r.opts.Prerelease = rng.IntN(4) == 0
	if rng.IntN(3) == 0 {
		r.opts.Locked = map[string]*semver.Version{}
		for k := rng.IntN(3); k > 0; k-- {
			r.opts.Locked[r.names[rng.IntN(n)]] = semver.MustParse(propVersions[rng.IntN(len(propVersions))])
		}
	}
	return r
}

func (r *propRegistry) String() string {
	var b strings.Builder
	for _, name := range r.names {
		for _, v := range r.src.pkgs[name] {
			fmt.Fprintf(&b, "%s %s", name, v.v)
			if len(v.deps) > 0 {
				var ds []string
				for dn, dr := range v.deps {
					ds = append(ds, dn+" "+dr)
				}
				sort.Strings(ds)
				b.WriteString(" -> " + strings.Join(ds, ", "))
			}
			b.WriteString("\n")
		}
	}
	var rs []string
	for n, rr := range r.roots {
		rs = append(rs, n+" "+rr)
	}
	sort.Strings(rs)
	fmt.Fprintf(&b, "root -> %s\nprerelease=%v locked=%v\n", strings.Join(rs, ", "), r.opts.Prerelease, r.opts.Locked)
	return b.String()
}

// bruteForce decides by exhaustive search whether some choice of one
// version or nothing per skill meets the roots and every requirement of
// every chosen version. It judges ranges with Masterminds' Check alone.
func (r *propRegistry) bruteForce(t *testing.T) bool {
	type req struct {
		pkg  int
		mask uint32 // allowed version indices; 0 with bad: unusable
		bad  bool
	}
	idx := map[string]int{}
	for i, n := range r.names {
		idx[n] = i
	}
	versions := make([][]*semver.Version, len(r.names))
	for i, n := range r.names {
		for _, v := range r.src.pkgs[n] {
			versions[i] = append(versions[i], v.v)
		}
	}
	mask := func(q int, rng string) (uint32, bool) {
		c, err := semver.NewConstraint(rng)
		if err != nil {
			return 0, true
		}
		c.IncludePrerelease = r.opts.Prerelease
		var m uint32
		for j, v := range versions[q] {
			if c.Check(v) {
				m |= 1 << j
			}
		}
		return m, false
	}
	var roots []req
	for n, rr := range r.roots {
		m, bad := mask(idx[n], rr)
		if bad {
			t.Fatalf("bad root range %q", rr)
		}
		roots = append(roots, req{idx[n], m, false})
	}
	deps := make([][][]req, len(r.names))
	for i, n := range r.names {
		for _, v := range r.src.pkgs[n] {
			var rs []req
			for dn, dr := range v.deps {
				m, bad := mask(idx[dn], dr)
				rs = append(rs, req{idx[dn], m, bad})
			}
			deps[i] = append(deps[i], rs)
		}
	}
	choice := make([]int, len(r.names)) // -1: absent
	ok := func(upto int) bool {
		met := func(q req) bool {
			if q.pkg > upto {
				return true // not assigned yet
			}
			return !q.bad && choice[q.pkg] >= 0 && q.mask&(1<<choice[q.pkg]) != 0
		}
		for _, q := range roots {
			if !met(q) {
				return false
			}
		}
		for p := 0; p <= upto; p++ {
			if choice[p] < 0 {
				continue
			}
			for _, q := range deps[p][choice[p]] {
				if q.bad || !met(q) {
					return false
				}
			}
		}
		return true
	}
	var search func(p int) bool
	search = func(p int) bool {
		if p == len(r.names) {
			return true
		}
		for c := -1; c < len(versions[p]); c++ {
			choice[p] = c
			if ok(p) && search(p+1) {
				return true
			}
		}
		return false
	}
	return search(0)
}

// TestSolveMatchesBruteForce checks completeness and soundness on
// thousands of small random registries: PubGrub finds a solution exactly
// when exhaustive search does, and every solution it returns meets every
// requirement by Masterminds' own Check.
func TestSolveMatchesBruteForce(t *testing.T) {
	n := 3000
	if raceEnabled || testing.Short() {
		n = 500
	}
	rng := rand.New(rand.NewPCG(1, 2))
	solved, failed := 0, 0
	for i := 0; i < n; i++ {
		r := randomRegistry(rng)
		want := r.bruteForce(t)
		r.opts.MaxSteps = 10000
		// Every other registry backtracks chronologically at once, so
		// that path is held to the same standard.
		if i%2 == 1 {
			r.opts.chrono = -1
		}
		sol, err := Solve(context.Background(), r.src, r.roots, r.opts)
		r.src.checkCalls(t)
		switch {
		case err != nil && !errors.Is(err, ErrNoSolution):
			t.Fatalf("case %d: %v\n%s", i, err, r)
		case err == nil && !want:
			t.Fatalf("case %d: PubGrub found %v where brute force found nothing\n%s", i, sol, r)
		case err != nil && want:
			t.Fatalf("case %d: PubGrub failed where brute force found a solution:\n%v\n%s", i, err, r)
		case err == nil:
			solved++
			checkSolution(t, r.src, r.roots, r.opts.Prerelease, sol)
			if t.Failed() {
				t.Fatalf("case %d: bad solution %v\n%s", i, sol, r)
			}
		default:
			failed++
			if err.Error() == "" || !strings.Contains(err.Error(), "version solving failed") {
				t.Fatalf("case %d: explanation does not conclude:\n%v", i, err)
			}
		}
	}
	// Both outcomes must be well represented for the test to mean much.
	if solved < n/5 || failed < n/5 {
		t.Fatalf("unbalanced sample: %d solved, %d failed", solved, failed)
	}
	t.Logf("%d solved, %d without solution", solved, failed)
}
