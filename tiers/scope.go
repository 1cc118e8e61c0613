package tiers

import (
	"path"
	"strings"
	"unicode"

	"github.com/skillpm/skillpm/source"
)

// EmbeddedSource is the source name of the embedded default registry in
// canonical repository strings: a skill "web-research" published there is
// the repository "embedded/web-research".
const EmbeddedSource = source.Embedded

// maxScopeSegments bounds a scope's segments so matching stays cheap.
const maxScopeSegments = 64

// Repository returns the canonical repository string that scopes match:
// "<source>/<name>" (source.Repository). An empty source is the embedded
// default registry; an "oci-layout:DIR" source keeps its prefix with DIR
// cleaned to a slash path (callers pass it absolute); a remote source
// ("ghcr.io/acme/skills") is used without a trailing slash. A source that
// does not parse is an error.
func Repository(src, name string) (string, error) {
	return source.Repository(src, name)
}

// scopeRank orders how specifically a scope names a repository: exact
// scopes above globs, longer globs above shorter, and "*" lowest.
type scopeRank int

const (
	rankNone  scopeRank = -1
	rankAll   scopeRank = 0
	rankExact scopeRank = 1 << 20
)

func isGlob(scope string) bool { return strings.ContainsAny(scope, `*?[\`) }

// rankOf returns the specificity of a valid scope.
func rankOf(scope string) scopeRank {
	switch {
	case scope == "*" || scope == "**":
		return rankAll
	case !isGlob(scope):
		return rankExact + scopeRank(len(scope))
	}
	return scopeRank(len(scope))
}

// MatchScope reports whether scope covers repository, with the semantics
// described in the package documentation. A malformed scope matches
// nothing.
func MatchScope(scope, repository string) bool {
	if scope == "*" || scope == "**" {
		return true
	}
	if !isGlob(scope) {
		return scope == repository
	}
	return matchSegments(strings.Split(scope, "/"), strings.Split(repository, "/"))
}

// matchSegments matches pattern segments against name segments; a "**"
// segment matches zero or more segments. It runs in O(len(p)·len(n)).
func matchSegments(p, n []string) bool {
	if len(p) > maxScopeSegments {
		return false
	}
	// ok[j] reports whether p[:i] matches n[:j] for the current i.
	ok := make([]bool, len(n)+1)
	ok[0] = true
	for _, seg := range p {
		next := make([]bool, len(n)+1)
		if seg == "**" {
			seen := false
			for j := 0; j <= len(n); j++ {
				seen = seen || ok[j]
				next[j] = seen
			}
		} else {
			for j := 1; j <= len(n); j++ {
				if ok[j-1] {
					m, err := path.Match(seg, n[j-1])
					next[j] = m && err == nil
				}
			}
		}
		ok = next
	}
	return ok[len(n)]
}

// scopeProblem explains why a scope is malformed, with a fix; "" when it is
// fine.
func scopeProblem(scope string) (msg, hint string) {
	if scope == "" {
		return "scope is empty", `write a repository such as "ghcr.io/acme/skills/*", or "*" for every repository`
	}
	if scope == "*" || scope == "**" {
		return "", ""
	}
	for _, r := range scope {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return "scope " + quote(scope) + " contains white space or control characters", "repositories never do; remove them"
		}
	}
	segs := strings.Split(scope, "/")
	if len(segs) > maxScopeSegments {
		return "scope " + quote(scope) + " has too many segments", "a repository has at most a few dozen"
	}
	for i, seg := range segs {
		if seg == "" {
			return "scope " + quote(scope) + " has an empty segment", `remove the leading, trailing or doubled "/"`
		}
		if seg != "**" && strings.Contains(seg, "**") {
			return "scope " + quote(scope) + ` uses "**" inside a segment`, `"**" matches whole segments: write it alone between slashes, or use "*"`
		}
		if _, err := path.Match(seg, ""); err != nil {
			return "scope " + quote(scope) + " is not a valid glob (" + err.Error() + ")", `close every "[", and escape a literal "*", "?" or "[" with "\"`
		}
		if i > 0 && i == len(segs)-1 && strings.ContainsAny(seg, ":@") {
			return "scope " + quote(scope) + " names a tag or digest", "scopes name repositories: drop the :tag or @digest"
		}
	}
	return "", ""
}
