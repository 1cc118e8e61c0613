package install

import (
	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry/advisory"
)

// OutdatedSkill is one skill, installed or locked, and the versions it
// could move to: what an outdated check reports of each skill it checks.
type OutdatedSkill struct {
	Name string `json:"name"`
	// Installed is the version in Root ("" when not installed there).
	Installed string `json:"installed"`
	// Locked is the version the project's lock records ("" outside one).
	Locked string `json:"locked"`
	// Range is the range asked for (the manifest's, else the install's);
	// "" for a dependency, whose Wanted is what resolving what needs it
	// gives now, as update does. A skill installed from a folder has the
	// folder as Source, and Wanted is the version it builds at now.
	Range string `json:"range"`
	// Wanted is the newest version Range allows, Latest the newest
	// release; both "" when the repository no longer has the skill.
	Wanted string `json:"wanted"`
	Latest string `json:"latest"`
	Root   string `json:"root"`
	// Source is the repository the skill comes from.
	Source string `json:"source"`
	// Yanked, YankReason and Deprecated are the publisher's status of
	// the current version (the locked one, else the installed one).
	// Wanted and Latest are never yanked versions.
	Yanked     bool   `json:"yanked,omitempty"`
	YankReason string `json:"yankReason,omitempty"`
	Deprecated string `json:"deprecated,omitempty"`
	// Advisories are the obeyed advisories naming the current version.
	Advisories []advisory.Advised `json:"advisories,omitempty"`
}

// Outdated reports whether s is behind what it could have: installed
// other than locked, a newer wanted or latest version than it has, a
// yanked one, or one an advisory names.
func (s OutdatedSkill) Outdated() bool {
	cur := s.Locked
	if cur == "" {
		cur = s.Installed
	}
	return s.Yanked || len(s.Advisories) > 0 || (s.Installed != "" && s.Installed != cur) || movedVersion(s.Wanted, cur) || movedVersion(s.Latest, cur)
}

// movedVersion reports whether a is a version b moves to: above it, or
// the same but for its build metadata (a folder's 0.0.0+tree.HASH whose
// files changed).
func movedVersion(a, b string) bool {
	va, errA := semver.NewVersion(a)
	vb, errB := semver.NewVersion(b)
	return errA == nil && errB == nil && (va.GreaterThan(vb) || va.Equal(vb) && va.Metadata() != vb.Metadata())
}
