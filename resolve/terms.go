package resolve

import "github.com/Masterminds/semver/v3"

// pkgID indexes solver.pkgs; names are interned once per solve so that the
// hot paths compare integers. The project itself is rootID.
type pkgID int32

const rootID pkgID = 0

// term is PubGrub's statement about one package: "pkg is selected at a
// version in set" when pos, else "pkg is not selected at a version in set"
// (which absence of pkg also satisfies).
type term struct {
	pkg pkgID
	pos bool
	set VersionSet
}

func (t term) negate() term { return term{pkg: t.pkg, pos: !t.pos, set: t.set} }

// intersect returns the term true exactly when both a and b are (same pkg).
func (a term) intersect(b term) term {
	switch {
	case a.pos && b.pos:
		return term{a.pkg, true, a.set.Intersect(b.set)}
	case a.pos:
		return term{a.pkg, true, a.set.Difference(b.set)}
	case b.pos:
		return term{a.pkg, true, b.set.Difference(a.set)}
	}
	return term{a.pkg, false, a.set.Union(b.set)}
}

// admits reports whether selecting v for t's package makes t true.
func (t term) admits(v *semver.Version) bool { return t.set.Contains(v) == t.pos }

type relation uint8

const (
	relInconclusive relation = iota
	relSatisfies
	relContradicts
)

// relate tells whether knowing a (an assignment, or the intersection of all
// of a package's assignments) makes t necessarily true, necessarily false,
// or neither.
func relate(a, t term) relation {
	if t.set.IsEmpty() {
		// "in nothing" is always false and "not in nothing" always true.
		if t.pos {
			return relContradicts
		}
		return relSatisfies
	}
	switch {
	case a.pos && t.pos:
		if a.set.IsSubsetOf(t.set) {
			return relSatisfies
		}
		if a.set.IsDisjoint(t.set) {
			return relContradicts
		}
	case a.pos:
		if a.set.IsDisjoint(t.set) {
			return relSatisfies
		}
		if a.set.IsSubsetOf(t.set) {
			return relContradicts
		}
	case t.pos:
		// A negative a allows absence, so it never satisfies a positive t.
		if t.set.IsSubsetOf(a.set) {
			return relContradicts
		}
	default:
		if t.set.IsSubsetOf(a.set) {
			return relSatisfies
		}
	}
	return relInconclusive
}

// kind says where an incompatibility comes from.
type kind uint8

const (
	kindRoot       kind = iota // {not root}: the project is selected
	kindDependency             // versions of depender need dependee in a range
	kindNoVersions             // no published version lies in the term's set
	kindInvalid                // a version whose requirements cannot be read
	kindDerived                // learned by conflict resolution from left and right
)

// incompat is a set of terms that must not all be true at once, normalised
// to one term per package.
type incompat struct {
	terms []term
	kind  kind

	left, right *incompat // causes, for kindDerived

	// The partial solution contradicted inc at decision level contraLevel
	// while that level had generation contraGen (0: never).
	contraLevel int32
	contraGen   uint32

	// For kindDependency and kindInvalid: which versions of which package
	// need what. Kept apart from terms, which may merge when a skill
	// depends on itself.
	depender    pkgID
	dependerSet VersionSet
	dependee    pkgID
	depName     string // dependee name as written (may be invalid)
	depRaw      string // range as written
	dependeeSet VersionSet
}

// newIncompat normalises terms into an incompatibility: terms on the same
// package are intersected, terms that are always true are dropped, and a
// derived incompatibility drops the project's positive term when others
// remain (the project is always selected). It returns nil when a term can
// never be true, since such an incompatibility can never be satisfied.
func newIncompat(ts []term, k kind) *incompat {
	out := make([]term, 0, len(ts))
	for _, t := range ts {
		merged := false
		for i := range out {
			if out[i].pkg == t.pkg {
				out[i] = out[i].intersect(t)
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, t)
		}
	}
	kept := out[:0]
	for _, t := range out {
		switch {
		case t.set.IsEmpty() && !t.pos:
			continue
		case t.set.IsEmpty():
			return nil
		}
		kept = append(kept, t)
	}
	if k == kindDerived && len(kept) > 1 {
		nr := kept[:0]
		for _, t := range kept {
			if !(t.pkg == rootID && t.pos) {
				nr = append(nr, t)
			}
		}
		kept = nr
	}
	// Insertion sort by package: tiny slices, and a fixed order keeps the
	// explanation deterministic.
	for i := 1; i < len(kept); i++ {
		for j := i; j > 0 && kept[j].pkg < kept[j-1].pkg; j-- {
			kept[j], kept[j-1] = kept[j-1], kept[j]
		}
	}
	return &incompat{terms: kept, kind: k}
}

// isFailure reports whether inc says the project itself cannot be selected.
func (inc *incompat) isFailure() bool {
	return len(inc.terms) == 0 || (len(inc.terms) == 1 && inc.terms[0].pos && inc.terms[0].pkg == rootID)
}
