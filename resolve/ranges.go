package resolve

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// The range grammar is Masterminds' own: the same patterns split a range
// into the same primitive constraints its Check evaluates, so the sets built
// here agree with Check version for version. Compiled patterns are immutable
// and safe for concurrent use.
const (
	rangeVersion = `v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?` +
		`(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` +
		`(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`
	rangeOps = `=||!=|>|<|>=|=>|<=|=<|~|~>|\^`
)

var (
	rangeOne    = regexp.MustCompile(`^\s*(` + rangeOps + `)\s*(` + rangeVersion + `)\s*$`)
	rangeFind   = regexp.MustCompile(`(` + rangeOps + `)\s*(` + rangeVersion + `)`)
	rangeHyphen = regexp.MustCompile(`\s*(` + rangeVersion + `)\s+-\s+(` + rangeVersion + `)\s*`)
)

// ParseRange returns the exact set of versions that the Masterminds range r
// accepts: v is in the set iff Check(v) is true for the constraint parsed
// from r with IncludePrerelease set to includePre.
//
// As in Masterminds, a pre-release is in the set only when includePre is
// true or when the ||-separated part of r that admits it names a
// pre-release itself ("^1.0.0-beta"). Every range Masterminds accepts is
// supported except "!=" with a wildcard patch and a pre-release
// ("!=1.2.x-beta"), whose set is not a finite union of intervals; it fails
// with ErrUnsupportedRange. Invalid ranges fail with ErrInvalidRange.
func ParseRange(r string, includePre bool) (VersionSet, error) {
	if _, err := semver.NewConstraint(r); err != nil {
		return VersionSet{}, fmt.Errorf("%w %q: %v", ErrInvalidRange, r, err)
	}
	var out VersionSet
	for _, group := range strings.Split(rewriteHyphens(r), "||") {
		parts := rangeFind.FindAllString(group, -1)
		if parts == nil {
			parts = []string{group}
		}
		set, hasPre := AllVersions(), false
		for _, p := range parts {
			ps, pre, err := primitiveSet(p)
			if err != nil {
				return VersionSet{}, fmt.Errorf("range %q: %w", r, err)
			}
			hasPre = hasPre || pre
			set = set.Intersect(ps)
		}
		if !includePre && !hasPre {
			set.pre = nil
		}
		out = out.Union(set)
	}
	return out, nil
}

// rewriteHyphens turns "1.0 - 2.0" into ">= 1.0, <= 2.0", as Masterminds
// does before splitting.
func rewriteHyphens(r string) string {
	m := rangeHyphen.FindAllStringSubmatch(r, -1)
	for _, v := range m {
		r = strings.Replace(r, v[0], fmt.Sprintf(">= %s, <= %s ", v[1], v[11]), 1)
	}
	return r
}

func isWildcard(s string) bool { return s == "x" || s == "X" || s == "*" }

// primitiveSet converts one operator-and-version constraint into its set
// over every version (pre-releases included; the caller filters them), and
// reports whether its version names a pre-release. Each case follows the
// matching Masterminds check function, quirks included: "^*" admits only
// 0.0.0 and "<=*" only 0.0.x, because a wildcard major parses as 0.0.0
// without the minor and patch wildcard flags.
func primitiveSet(c string) (VersionSet, bool, error) {
	if c == "" {
		return lineSet(semver.New(0, 0, 0, "", ""), nil), false, nil
	}
	m := rangeOne.FindStringSubmatch(c)
	if m == nil {
		return VersionSet{}, false, fmt.Errorf("%w: improper constraint %q", ErrInvalidRange, c)
	}
	op, ver := m[1], m[2]
	var dirty, minorDirty, patchDirty bool
	switch {
	case isWildcard(m[3]) || m[3] == "":
		ver, dirty = "0.0.0"+m[6], true
	case isWildcard(strings.TrimPrefix(m[4], ".")) || m[4] == "":
		ver, dirty, minorDirty = m[3]+".0.0"+m[6], true, true
	case isWildcard(strings.TrimPrefix(m[5], ".")) || m[5] == "":
		ver, dirty, patchDirty = m[3]+m[4]+".0"+m[6], true, true
	}
	con, err := semver.NewVersion(ver)
	if err != nil {
		return VersionSet{}, false, fmt.Errorf("%w: %q: %v", ErrInvalidRange, c, err)
	}
	c0 := strip(con)
	maj, min, pat := con.Major(), con.Minor(), con.Patch()
	hasPre := con.Prerelease() != ""
	wildMajor := dirty && !minorDirty && !patchDirty

	tilde := func() VersionSet {
		switch {
		case maj == 0 && min == 0 && pat == 0 && !minorDirty && !patchDirty:
			return lineSet(c0, nil)
		case minorDirty:
			return lineSet(c0, majorEnd(maj))
		}
		return lineSet(c0, minorEnd(maj, min))
	}

	var s VersionSet
	switch op {
	case "", "=":
		if dirty {
			s = tilde()
		} else {
			s = Exactly(con)
		}
	case "!=":
		switch {
		case !dirty || wildMajor:
			s = Exactly(con).Complement()
		case minorDirty:
			s = lineSet(coreStart(maj, 0, 0), majorEnd(maj)).Complement()
		case hasPre:
			return VersionSet{}, false, fmt.Errorf("%w: %q excludes one pre-release of every patch version", ErrUnsupportedRange, c)
		default:
			// Excludes the releases of M.m only; its pre-releases stay in.
			s = VersionSet{rel: lineSet(coreStart(maj, min, 0), minorEnd(maj, min)).rel}.Complement()
		}
	case ">":
		switch {
		case !dirty || wildMajor:
			s = lineFrom(successor(con))
		case minorDirty:
			s = lineFrom(majorEnd(maj))
		default:
			s = lineFrom(minorEnd(maj, min))
		}
	case "<":
		s = lineSet(nil, c0)
	case ">=", "=>":
		s = lineSet(c0, nil)
	case "<=", "=<":
		switch {
		case !dirty:
			s = lineSet(nil, successor(con))
		case minorDirty:
			s = lineSet(nil, majorEnd(maj))
		default:
			s = lineSet(nil, minorEnd(maj, min))
		}
	case "~", "~>":
		s = tilde()
	case "^":
		switch {
		case maj > 0 || minorDirty:
			s = lineSet(c0, majorEnd(maj))
		case min > 0 || patchDirty:
			s = lineSet(c0, minorEnd(0, min))
		default:
			s = lineSet(c0, patchEnd(0, 0, pat))
		}
	default:
		return VersionSet{}, false, fmt.Errorf("%w: unknown operator %q", ErrInvalidRange, op)
	}
	return s, hasPre, nil
}
