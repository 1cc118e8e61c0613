package resolve

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// randomRange writes a range in the forms Masterminds accepts: every
// operator, wildcards in any position, "v" prefixes, pre-releases, build
// metadata, hyphen ranges, comma and space AND, and || OR.
func randomRange(rng *rand.Rand) string {
	ops := []string{"", "=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^"}
	part := func() string {
		switch rng.IntN(8) {
		case 0:
			return []string{"x", "X", "*"}[rng.IntN(3)]
		default:
			return strconv.Itoa(rng.IntN(4))
		}
	}
	version := func() string {
		s := part()
		if rng.IntN(4) != 0 {
			s += "." + part()
			if rng.IntN(3) != 0 {
				s += "." + part()
			}
		}
		if rng.IntN(4) == 0 {
			s += "-" + []string{"0", "alpha", "beta.1", "rc.1", "1"}[rng.IntN(5)]
		}
		if rng.IntN(10) == 0 {
			s += "+build.1"
		}
		if rng.IntN(10) == 0 {
			s = "v" + s
		}
		return s
	}
	prim := func() string {
		if rng.IntN(10) == 0 {
			return version() + " - " + version()
		}
		sp := ""
		if rng.IntN(4) == 0 {
			sp = " "
		}
		return ops[rng.IntN(len(ops))] + sp + version()
	}
	var groups []string
	for g := 1 + rng.IntN(2); g > 0; g-- {
		var ands []string
		for a := 1 + rng.IntN(3); a > 0; a-- {
			ands = append(ands, prim())
		}
		sep := ", "
		if rng.IntN(2) == 0 {
			sep = " "
		}
		groups = append(groups, strings.Join(ands, sep))
	}
	return strings.Join(groups, " || ")
}

// agree checks ParseRange against Masterminds' Check on every probe
// version, both pre-release policies. It returns false if Masterminds
// rejects the range.
func agree(t *testing.T, r string, probes []*semver.Version) bool {
	t.Helper()
	c, cerr := semver.NewConstraint(r)
	for _, pre := range []bool{false, true} {
		set, err := ParseRange(r, pre)
		if cerr != nil {
			if !errors.Is(err, ErrInvalidRange) {
				t.Fatalf("ParseRange(%q) = %v, %v; Masterminds rejects it: %v", r, set, err, cerr)
			}
			return false
		}
		if errors.Is(err, ErrUnsupportedRange) && strings.Contains(r, "!=") {
			return true
		}
		if err != nil {
			t.Fatalf("ParseRange(%q): %v; Masterminds accepts it", r, err)
		}
		c.IncludePrerelease = pre
		for _, v := range probes {
			if got, want := set.Contains(v), c.Check(v); got != want {
				t.Fatalf("range %q (pre-releases %v), version %s: Contains = %v, Check = %v (set %v)", r, pre, v, got, want, set)
			}
		}
	}
	return true
}

var numberRe = regexp.MustCompile(`[0-9]+`)

// probesFor adds versions near the numbers a range mentions, so bounds
// far from the fixed probes are still tested from both sides.
func probesFor(r string, base []*semver.Version) []*semver.Version {
	out := append([]*semver.Version(nil), base...)
	for i, n := range numberRe.FindAllString(r, 6) {
		if len(n) > 18 {
			continue
		}
		for _, s := range []string{n + ".0.0", "0." + n + ".0", "0.0." + n, "1." + n + ".1", n + "." + n + "." + n + "-alpha", n + ".0.0-0"} {
			if v, err := semver.NewVersion(s); err == nil {
				out = append(out, v)
			}
		}
		if i > 3 {
			break
		}
	}
	return out
}

// TestRangeAgreesWithMasterminds is the contract of ParseRange: for
// random ranges of every supported form and many versions, Contains
// agrees with Masterminds' Check under both pre-release policies.
func TestRangeAgreesWithMasterminds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	probes := probeVersions()
	n := 6000
	if raceEnabled || testing.Short() {
		n = 1000
	}
	accepted := 0
	for i := 0; i < n; i++ {
		r := randomRange(rng)
		if agree(t, r, probesFor(r, sampleProbes(rng, probes, 60))) {
			accepted++
		}
	}
	if accepted < n/2 {
		t.Fatalf("only %d of %d random ranges were valid; the generator drifted", accepted, n)
	}
	for _, r := range []string{
		"^1.2", "~1.4", ">=1.0, <2.0", ">=1.0 <2.0", "1.x", "*", "=1.2.3", "1.2.3",
		"^1.0.0-beta", "^0.0.3", "^0.0", "^0", "^*", "<=*", ">*", "!=*", "~*", "x",
		"!=1.2.x", "!=1.x", ">1.x", ">1.2.x", "<=1.x", "<=1.2.x", "1 - 2", "1.2 - 2.3.4",
		"~0.0.0", "~1", "~1.2.3-beta", ">=1.2.3-0", "<1.2.3-rc.1 || >2", "v1.2.3",
		"18446744073709551615.18446744073709551615.18446744073709551615",
		"^18446744073709551615", "~1.18446744073709551615", ">18446744073709551615.x",
	} {
		if !agree(t, r, probesFor(r, probes)) {
			t.Errorf("Masterminds rejects %q", r)
		}
	}
}

func TestRangeErrors(t *testing.T) {
	for _, r := range []string{"", "^x.y", ">=1 <=>2", "foo", "1.2.3.4", strings.Repeat("1 || ", 40) + "1"} {
		if _, err := ParseRange(r, false); !errors.Is(err, ErrInvalidRange) {
			t.Errorf("ParseRange(%q) = %v, want ErrInvalidRange", r, err)
		}
	}
	if _, err := ParseRange("!=1.2.x-beta", false); !errors.Is(err, ErrUnsupportedRange) {
		t.Errorf("ParseRange(!=1.2.x-beta) = %v, want ErrUnsupportedRange", err)
	}
}

// FuzzRange checks that no string makes ParseRange panic, and that for any
// range Masterminds accepts the set agrees with Check.
func FuzzRange(f *testing.F) {
	for _, s := range []string{"^1.2", "~1.4", ">=1.0, <2.0", "1.x", "*", "=1.2.3", "1.2.3 - 2", "^1.0.0-beta || 3.x"} {
		f.Add(s)
	}
	probes := probeVersions()
	f.Fuzz(func(t *testing.T, r string) {
		agree(t, r, probesFor(r, probes))
	})
}
