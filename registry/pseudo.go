package registry

import (
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
)

// Unversioned is the version a skill that declares none stands for (the
// skill format: "0.0.0 (unversioned) blocks publishing"). Installing from
// source builds such a skill at a pseudo-version of it instead.
const Unversioned = "0.0.0"

// PseudoVersion is the version a skill that declares none is built at
// from a git commit: 0.0.0-YYYYMMDDHHMMSS-abcdef123456 (the commit time
// in UTC and the first twelve hex digits of the commit), as Go's
// pseudo-versions are. It is a pre-release so that semver precedence
// orders it: a later commit sorts later, and every real version (0.0.1
// and up) sorts above it.
func PseudoVersion(commitTime time.Time, commit string) string {
	if len(commit) > 12 {
		commit = commit[:12]
	}
	return Unversioned + "-" + commitTime.UTC().Format("20060102150405") + "-" + commit
}

// TreeVersion is the version a skill that declares none is built at from
// a folder: 0.0.0+tree.abcdef123456, the first twelve hex digits of its
// tree hash as build metadata. Two builds of a folder have no order, and
// semver precedence ignores build metadata: neither is a downgrade of the
// other; the version still names the files installed.
func TreeVersion(treeHash string) string {
	h := strings.TrimPrefix(treeHash, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	return Unversioned + "+tree." + h
}

// IsPseudoVersion reports whether v is 0.0.0 with a pre-release or build
// metadata: a version made for a skill that declares none, which only
// the source it was built from can give again.
func IsPseudoVersion(v string) bool {
	sv, err := semver.StrictNewVersion(v)
	if err != nil {
		return false
	}
	return sv.Major() == 0 && sv.Minor() == 0 && sv.Patch() == 0 && (sv.Prerelease() != "" || sv.Metadata() != "")
}

// DeclaresNoVersion reports whether v, a SKILL.md's version, means
// "unversioned": absent or 0.0.0.
func DeclaresNoVersion(v string) bool { return v == "" || v == Unversioned }
