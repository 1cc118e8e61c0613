package resolve

import (
	"math"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// VersionSet is an exact set of semantic versions, closed under union,
// intersection and complement, which Masterminds constraints are not and
// which PubGrub needs.
//
// Pre-releases sit between every two releases (1.0.0 < 1.0.1-0 < 1.0.1), so
// a set like "every release of 1.x but no pre-release" is an infinite union
// of intervals on the single version line. The set therefore keeps two
// sorted lists of half-open spans: one over release versions and one over
// pre-release versions. Both are canonical (bounds carry no build metadata,
// spans neither touch nor overlap, a lower bound at the bottom of its domain
// is written as unbounded), so two sets are equal exactly when their spans
// are.
//
// Versions that differ only in build metadata compare equal, as in
// Masterminds, and so are either all in a set or all out of it.
//
// The zero VersionSet is empty.
type VersionSet struct {
	rel spans // over release versions
	pre spans // over pre-release versions
}

// span is [lo, hi); a nil lo is unbounded below and a nil hi unbounded above.
type span struct{ lo, hi *semver.Version }

type spans []span

// AllVersions returns the set of every version, pre-releases included.
func AllVersions() VersionSet {
	return VersionSet{rel: spans{{}}, pre: spans{{}}}
}

// Exactly returns the set holding v alone (and any version equal to it but
// for build metadata); for nil, the empty set.
func Exactly(v *semver.Version) VersionSet {
	if v == nil {
		return VersionSet{}
	}
	return lineSet(strip(v), successor(v))
}

// IsEmpty reports whether no version is in s.
func (s VersionSet) IsEmpty() bool { return len(s.rel) == 0 && len(s.pre) == 0 }

// IsAll reports whether every version, pre-releases included, is in s.
func (s VersionSet) IsAll() bool { return s.rel.isAll() && s.pre.isAll() }

// Contains reports whether v is in s.
func (s VersionSet) Contains(v *semver.Version) bool {
	if v == nil {
		return false
	}
	if v.Prerelease() != "" {
		return s.pre.contains(v)
	}
	return s.rel.contains(v)
}

// Intersect returns the versions in both s and o.
func (s VersionSet) Intersect(o VersionSet) VersionSet {
	return VersionSet{rel: s.rel.intersect(o.rel), pre: s.pre.intersect(o.pre)}
}

// Union returns the versions in s or o.
func (s VersionSet) Union(o VersionSet) VersionSet {
	return VersionSet{rel: s.rel.union(o.rel), pre: s.pre.union(o.pre)}
}

// Complement returns every version not in s.
func (s VersionSet) Complement() VersionSet {
	return VersionSet{rel: s.rel.complement(), pre: s.pre.complement()}
}

// Difference returns the versions in s but not in o.
func (s VersionSet) Difference(o VersionSet) VersionSet {
	return s.Intersect(o.Complement())
}

// Equal reports whether s and o hold the same versions.
func (s VersionSet) Equal(o VersionSet) bool { return s.rel.equal(o.rel) && s.pre.equal(o.pre) }

// IsSubsetOf reports whether every version of s is in o.
func (s VersionSet) IsSubsetOf(o VersionSet) bool {
	return s.rel.subsetOf(o.rel) && s.pre.subsetOf(o.pre)
}

// IsDisjoint reports whether no version is in both s and o.
func (s VersionSet) IsDisjoint(o VersionSet) bool {
	return s.rel.disjoint(o.rel) && s.pre.disjoint(o.pre)
}

// String renders s exactly, in Masterminds-like syntax: "^1.2.0",
// ">=1.0.0, <1.5.0 || >=2.0.0", "1.2.3", "*"; pre-releases in the set, if
// any, follow in a "pre-releases ..." clause. The empty set is "<none>".
func (s VersionSet) String() string {
	switch {
	case s.IsEmpty():
		return "<none>"
	case s.IsAll():
		return "* (pre-releases included)"
	case len(s.pre) == 0:
		return s.rel.format(false)
	case len(s.rel) == 0:
		return "pre-releases " + s.pre.format(true)
	}
	return s.rel.format(false) + ", and pre-releases " + s.pre.format(true)
}

// key is a compact exact identity of s, used to match sets to the range
// text they came from.
func (s VersionSet) key() string {
	var b strings.Builder
	for _, sp := range s.rel {
		b.WriteString(bound(sp.lo) + "," + bound(sp.hi) + ";")
	}
	b.WriteString("|")
	for _, sp := range s.pre {
		b.WriteString(bound(sp.lo) + "," + bound(sp.hi) + ";")
	}
	return b.String()
}

func bound(v *semver.Version) string {
	if v == nil {
		return "~"
	}
	return v.String()
}

// --- construction on the whole version line ---

// lineSet returns the versions v with lo <= v < hi on the single version
// line (nil lo: unbounded below; nil hi: unbounded above), split into the
// two domains.
func lineSet(lo, hi *semver.Version) VersionSet {
	plo, ok := preBound(lo)
	phi, _ := preBound(hi)
	return boundSet(relBound(lo), relBound(hi), plo, phi, lo == nil || ok)
}

// boundSet assembles a set from bounds already mapped to each domain by
// relBound and preBound; preOK false means the lower bound lies above every
// pre-release. The solver calls it with bounds it caches per version.
func boundSet(rlo, rhi, plo, phi *semver.Version, preOK bool) VersionSet {
	var s VersionSet
	s.rel = makeSpan(rlo, rhi, false)
	if preOK {
		s.pre = makeSpan(plo, phi, true)
	}
	return s
}

// lineFrom returns every version >= lo, or nothing when lo is nil because
// it overflowed past the largest version.
func lineFrom(lo *semver.Version) VersionSet {
	if lo == nil {
		return VersionSet{}
	}
	return lineSet(lo, nil)
}

// relBound maps a cut "just below v" to the release domain: a release r
// satisfies r >= v iff r >= core(v), since every release below core(v) is
// below v and core(v) itself is >= v.
func relBound(v *semver.Version) *semver.Version {
	if v == nil || (v.Prerelease() == "" && v.Metadata() == "") {
		return v
	}
	return semver.New(v.Major(), v.Minor(), v.Patch(), "", "")
}

// preBound maps a cut "just below v" to the pre-release domain: below a
// release r are exactly the pre-releases whose core is at most r's, so the
// cut moves up to the first pre-release of the next core. ok is false when
// that overflows (the cut is above every pre-release).
func preBound(v *semver.Version) (*semver.Version, bool) {
	if v == nil {
		return nil, false
	}
	if v.Prerelease() != "" {
		return strip(v), true
	}
	n := nextCoreStart(v.Major(), v.Minor(), v.Patch())
	return n, n != nil
}

// isDomainMin reports whether v is the smallest version of its domain:
// 0.0.0 among releases, 0.0.0-0 among pre-releases ("0" is the smallest
// identifier in Masterminds' ordering).
func isDomainMin(v *semver.Version, pre bool) bool {
	if v.Major() != 0 || v.Minor() != 0 || v.Patch() != 0 {
		return false
	}
	if pre {
		return v.Prerelease() == "0"
	}
	return v.Prerelease() == ""
}

func makeSpan(lo, hi *semver.Version, pre bool) spans {
	if lo != nil && isDomainMin(lo, pre) {
		lo = nil
	}
	if hi != nil && isDomainMin(hi, pre) {
		return nil
	}
	if lo != nil && hi != nil && lo.Compare(hi) >= 0 {
		return nil
	}
	return spans{{lo: lo, hi: hi}}
}

// strip drops build metadata, which ordering ignores.
func strip(v *semver.Version) *semver.Version {
	if v.Metadata() == "" {
		return v
	}
	return semver.New(v.Major(), v.Minor(), v.Patch(), v.Prerelease(), "")
}

// successor is the smallest version greater than v (nil if none): the next
// core's first pre-release after a release, or v with ".0" appended after a
// pre-release, because "0" is the smallest identifier and a longer
// pre-release with an equal prefix sorts after the shorter one.
func successor(v *semver.Version) *semver.Version {
	if v.Prerelease() != "" {
		return semver.New(v.Major(), v.Minor(), v.Patch(), v.Prerelease()+".0", "")
	}
	return nextCoreStart(v.Major(), v.Minor(), v.Patch())
}

// nextCoreStart is the first version (a "-0" pre-release) whose core follows
// M.m.p, or nil if M.m.p is the last core.
func nextCoreStart(maj, min, pat uint64) *semver.Version {
	switch {
	case pat < math.MaxUint64:
		return coreStart(maj, min, pat+1)
	case min < math.MaxUint64:
		return coreStart(maj, min+1, 0)
	case maj < math.MaxUint64:
		return coreStart(maj+1, 0, 0)
	}
	return nil
}

// coreStart is the smallest version with core M.m.p.
func coreStart(maj, min, pat uint64) *semver.Version { return semver.New(maj, min, pat, "0", "") }

// majorEnd is the first version above every version of major M (nil: none).
func majorEnd(maj uint64) *semver.Version {
	if maj == math.MaxUint64 {
		return nil
	}
	return coreStart(maj+1, 0, 0)
}

// minorEnd is the first version above every version of M.m (nil: none).
func minorEnd(maj, min uint64) *semver.Version {
	if min == math.MaxUint64 {
		return majorEnd(maj)
	}
	return coreStart(maj, min+1, 0)
}

// patchEnd is the first version above every version of M.m.p (nil: none).
func patchEnd(maj, min, pat uint64) *semver.Version {
	if pat == math.MaxUint64 {
		return minorEnd(maj, min)
	}
	return coreStart(maj, min, pat+1)
}

// --- span algebra; nil lo is -inf, nil hi is +inf ---

func cmpLo(a, b *semver.Version) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return a.Compare(b)
}

func cmpHi(a, b *semver.Version) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return a.Compare(b)
}

// below reports whether lo < hi, i.e. [lo, hi) is not empty.
func below(lo, hi *semver.Version) bool {
	if lo == nil || hi == nil {
		return true
	}
	return lo.Compare(hi) < 0
}

func (a spans) isAll() bool { return len(a) == 1 && a[0].lo == nil && a[0].hi == nil }

func (a spans) contains(v *semver.Version) bool {
	// First span whose hi is above v; v is in it iff its lo is at or below v.
	i := sort.Search(len(a), func(i int) bool { return a[i].hi == nil || v.Compare(a[i].hi) < 0 })
	return i < len(a) && (a[i].lo == nil || a[i].lo.Compare(v) <= 0)
}

func (a spans) intersect(b spans) spans {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	if a.isAll() {
		return b
	}
	if b.isAll() {
		return a
	}
	var out spans
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		lo := a[i].lo
		if cmpLo(b[j].lo, lo) > 0 {
			lo = b[j].lo
		}
		hi, adv := a[i].hi, 0
		if c := cmpHi(b[j].hi, hi); c < 0 {
			hi, adv = b[j].hi, 1
		}
		if below(lo, hi) {
			out = append(out, span{lo, hi})
		}
		if adv == 0 {
			i++
		} else {
			j++
		}
	}
	return out
}

func (a spans) union(b spans) spans {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make(spans, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var next span
		if j >= len(b) || (i < len(a) && cmpLo(a[i].lo, b[j].lo) <= 0) {
			next = a[i]
			i++
		} else {
			next = b[j]
			j++
		}
		if n := len(out); n > 0 {
			last := &out[n-1]
			// Touching spans merge: [x, y) and [y, z) make [x, z).
			if last.hi == nil || next.lo == nil || next.lo.Compare(last.hi) <= 0 {
				if cmpHi(next.hi, last.hi) > 0 {
					last.hi = next.hi
				}
				continue
			}
		}
		out = append(out, next)
	}
	return out
}

func (a spans) complement() spans {
	if len(a) == 0 {
		return spans{{}}
	}
	out := make(spans, 0, len(a)+1)
	var prev *semver.Version // hi of the previous span; nil at the start means -inf
	for _, sp := range a {
		if sp.lo != nil {
			out = append(out, span{lo: prev, hi: sp.lo})
		}
		if sp.hi == nil {
			return out
		}
		prev = sp.hi
	}
	return append(out, span{lo: prev})
}

func (a spans) equal(b spans) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if cmpLo(a[i].lo, b[i].lo) != 0 || cmpHi(a[i].hi, b[i].hi) != 0 {
			return false
		}
	}
	return true
}

// subsetOf walks both lists once without allocating: it runs on every
// relation test of the solver.
func (a spans) subsetOf(b spans) bool {
	j := 0
	for _, sp := range a {
		for j < len(b) && b[j].hi != nil && sp.lo != nil && b[j].hi.Compare(sp.lo) <= 0 {
			j++
		}
		if j >= len(b) || cmpLo(b[j].lo, sp.lo) > 0 || cmpHi(b[j].hi, sp.hi) < 0 {
			return false
		}
	}
	return true
}

func (a spans) disjoint(b spans) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		lo := a[i].lo
		if cmpLo(b[j].lo, lo) > 0 {
			lo = b[j].lo
		}
		hi := a[i].hi
		if cmpHi(b[j].hi, hi) < 0 {
			hi = b[j].hi
			j++
		} else {
			i++
		}
		if below(lo, hi) {
			return false
		}
	}
	return true
}

// format renders the spans of one domain.
func (a spans) format(pre bool) string {
	parts := make([]string, 0, len(a))
	for _, sp := range a {
		parts = append(parts, formatSpan(sp, pre))
	}
	return strings.Join(parts, " || ")
}

func formatSpan(sp span, pre bool) string {
	lo, hi := sp.lo, sp.hi
	switch {
	case lo == nil && hi == nil:
		return "*"
	case lo == nil:
		return "<" + hi.String()
	case hi == nil:
		return ">=" + lo.String()
	}
	if !pre {
		if n := nextCoreStart(lo.Major(), lo.Minor(), lo.Patch()); n != nil && sameCore(n, hi) {
			return lo.String()
		}
		if lo.Major() > 0 && hi.Major() == lo.Major()+1 && hi.Minor() == 0 && hi.Patch() == 0 {
			return "^" + lo.String()
		}
		if lo.Major() == 0 && lo.Minor() > 0 && hi.Major() == 0 && hi.Minor() == lo.Minor()+1 && hi.Patch() == 0 {
			return "^" + lo.String()
		}
		if hi.Major() == lo.Major() && hi.Minor() == lo.Minor()+1 && hi.Patch() == 0 {
			return "~" + lo.String()
		}
	} else if hi.Compare(successor(lo)) == 0 {
		return lo.String()
	}
	return ">=" + lo.String() + ", <" + hi.String()
}

func sameCore(a, b *semver.Version) bool {
	return a != nil && b != nil && a.Major() == b.Major() && a.Minor() == b.Minor() && a.Patch() == b.Patch()
}
