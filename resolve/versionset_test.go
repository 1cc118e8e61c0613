package resolve

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// probeVersions covers every kind of neighbourhood a bound can have:
// releases, the smallest pre-release "-0", longer pre-releases that sort
// after shorter ones, and build metadata (which ordering ignores).
func probeVersions() []*semver.Version {
	var out []*semver.Version
	pres := []string{"", "0", "0.0", "1", "beta", "rc.1"}
	for maj := 0; maj <= 3; maj++ {
		for min := 0; min <= 3; min++ {
			for pat := 0; pat <= 3; pat++ {
				for _, pre := range pres {
					s := fmt.Sprintf("%d.%d.%d", maj, min, pat)
					if pre != "" {
						s += "-" + pre
					}
					out = append(out, semver.MustParse(s))
				}
			}
		}
	}
	for _, s := range []string{"1.2.3+build.5", "1.2.3-beta+exp", "10.20.30", "18446744073709551615.0.0", "0.0.0-0.0.0"} {
		out = append(out, semver.MustParse(s))
	}
	return out
}

// randomSet builds a set from bounds, points and parsed ranges combined by
// random operations, so that every operation's output is also an input.
func randomSet(rng *rand.Rand, pool []*semver.Version, depth int) VersionSet {
	if depth == 0 || rng.IntN(3) == 0 {
		switch rng.IntN(5) {
		case 0:
			return Exactly(pool[rng.IntN(len(pool))])
		case 1:
			a, b := pool[rng.IntN(len(pool))], pool[rng.IntN(len(pool))]
			if a.Compare(b) > 0 {
				a, b = b, a
			}
			return lineSet(strip(a), strip(b))
		case 2:
			return lineSet(nil, strip(pool[rng.IntN(len(pool))]))
		case 3:
			return lineSet(strip(pool[rng.IntN(len(pool))]), nil)
		default:
			s, err := ParseRange(randomRange(rng), rng.IntN(2) == 0)
			if err != nil {
				return VersionSet{}
			}
			return s
		}
	}
	a, b := randomSet(rng, pool, depth-1), randomSet(rng, pool, depth-1)
	switch rng.IntN(4) {
	case 0:
		return a.Union(b)
	case 1:
		return a.Intersect(b)
	case 2:
		return a.Difference(b)
	}
	return a.Complement()
}

func checkCanonical(t *testing.T, s VersionSet) {
	t.Helper()
	for d, sp := range []spans{s.rel, s.pre} {
		pre := d == 1
		for i, x := range sp {
			for _, b := range []*semver.Version{x.lo, x.hi} {
				if b == nil {
					continue
				}
				if b.Metadata() != "" || (b.Prerelease() != "") != pre {
					t.Fatalf("bound %s in the wrong domain or with metadata: %v", b, s)
				}
			}
			if x.lo != nil && isDomainMin(x.lo, pre) {
				t.Fatalf("lower bound at the domain minimum: %v", s)
			}
			if !below(x.lo, x.hi) {
				t.Fatalf("empty span %d: %v", i, s)
			}
			if i > 0 && (sp[i-1].hi == nil || x.lo == nil || sp[i-1].hi.Compare(x.lo) >= 0) {
				t.Fatalf("spans %d and %d touch or overlap: %v", i-1, i, s)
			}
		}
	}
}

func TestVersionSetLaws(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pool := probeVersions()
	all, none := AllVersions(), VersionSet{}
	n := 1500
	if raceEnabled || testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		a, b, c := randomSet(rng, pool, 3), randomSet(rng, pool, 3), randomSet(rng, pool, 3)
		for _, s := range []VersionSet{a, b, c, a.Union(b), a.Intersect(b), a.Complement(), a.Difference(b)} {
			checkCanonical(t, s)
		}
		eq := func(name string, x, y VersionSet) {
			t.Helper()
			if !x.Equal(y) {
				t.Fatalf("%s fails:\n a=%v\n b=%v\n c=%v\n got %v\n want %v", name, a, b, c, x, y)
			}
		}
		eq("commutative union", a.Union(b), b.Union(a))
		eq("commutative intersection", a.Intersect(b), b.Intersect(a))
		eq("associative union", a.Union(b).Union(c), a.Union(b.Union(c)))
		eq("associative intersection", a.Intersect(b).Intersect(c), a.Intersect(b.Intersect(c)))
		eq("double complement", a.Complement().Complement(), a)
		eq("De Morgan union", a.Union(b).Complement(), a.Complement().Intersect(b.Complement()))
		eq("De Morgan intersection", a.Intersect(b).Complement(), a.Complement().Union(b.Complement()))
		eq("distributive", a.Intersect(b.Union(c)), a.Intersect(b).Union(a.Intersect(c)))
		eq("split and rejoin", a.Intersect(b).Union(a.Difference(b)), a)
		eq("excluded middle", a.Union(a.Complement()), all)
		eq("non-contradiction", a.Intersect(a.Complement()), none)
		eq("identity", a.Union(none).Intersect(all), a)
		if got, want := a.IsSubsetOf(b), a.Difference(b).IsEmpty(); got != want {
			t.Fatalf("IsSubsetOf = %v, emptiness of difference = %v\n a=%v\n b=%v", got, want, a, b)
		}
		if got, want := a.IsDisjoint(b), a.Intersect(b).IsEmpty(); got != want {
			t.Fatalf("IsDisjoint = %v, emptiness of intersection = %v\n a=%v\n b=%v", got, want, a, b)
		}
		if !a.IsSubsetOf(a.Union(b)) || !a.Intersect(b).IsSubsetOf(a) {
			t.Fatalf("subset of union / intersection fails\n a=%v\n b=%v", a, b)
		}
		for k := 0; k < 60; k++ {
			v := pool[rng.IntN(len(pool))]
			ia, ib := a.Contains(v), b.Contains(v)
			if a.Union(b).Contains(v) != (ia || ib) || a.Intersect(b).Contains(v) != (ia && ib) ||
				a.Complement().Contains(v) == ia || a.Difference(b).Contains(v) != (ia && !ib) {
				t.Fatalf("membership of %s disagrees with the operations\n a=%v\n b=%v", v, a, b)
			}
		}
	}
}

func TestVersionSetBasics(t *testing.T) {
	v := semver.MustParse
	if !AllVersions().IsAll() || AllVersions().IsEmpty() || !(VersionSet{}).IsEmpty() {
		t.Fatal("AllVersions/zero value")
	}
	one := Exactly(v("1.2.3"))
	for _, tc := range []struct {
		v    string
		want bool
	}{{"1.2.3", true}, {"1.2.3+meta", true}, {"1.2.4-0", false}, {"1.2.3-rc.1", false}, {"1.2.2", false}} {
		if got := one.Contains(v(tc.v)); got != tc.want {
			t.Errorf("Exactly(1.2.3).Contains(%s) = %v", tc.v, got)
		}
	}
	pre := Exactly(v("1.2.3-rc.1"))
	if !pre.Contains(v("1.2.3-rc.1")) || pre.Contains(v("1.2.3-rc.1.0")) || pre.Contains(v("1.2.3-rc")) {
		t.Error("Exactly of a pre-release")
	}
	if one.Contains(nil) {
		t.Error("Contains(nil)")
	}
	for _, tc := range []struct{ r, want string }{
		{"^1.2", "^1.2.0"},
		{"~1.4", "~1.4.0"},
		{">=1.0, <2.0", "^1.0.0"},
		{"1.x", "^1.0.0"},
		{"*", "*"},
		{"=1.2.3", "1.2.3"},
		{"<2 || >=3", "<2.0.0 || >=3.0.0"},
		{"^0.2.3", "^0.2.3"},
		{">=1.0.0, <1.5.0", ">=1.0.0, <1.5.0"},
		{"^1.0.0-beta", "^1.0.0, and pre-releases >=1.0.0-beta, <2.0.0-0"},
		{">5, <3", "<none>"},
		{"1.2.3-rc.1", "pre-releases 1.2.3-rc.1"},
		{"!=1.2.3 || 1.2.3", "*"},
		{"v1.2.3+build", "1.2.3"},
		{"~0", "<1.0.0"},
	} {
		s, err := ParseRange(tc.r, false)
		if err != nil {
			t.Errorf("ParseRange(%q): %v", tc.r, err)
			continue
		}
		if got := s.String(); got != tc.want {
			t.Errorf("ParseRange(%q).String() = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// sampleProbes picks n probes at random: many ranges times a sample covers
// the pool without testing every pair.
func sampleProbes(rng *rand.Rand, pool []*semver.Version, n int) []*semver.Version {
	out := make([]*semver.Version, n)
	for i := range out {
		out[i] = pool[rng.IntN(len(pool))]
	}
	return out
}
