package advisory

import "fmt"

// Advised is one advisory naming a skill, as a front end shows it.
type Advised struct {
	// Name, Version and Source name the skill; Digest is what matched
	// when a digest did.
	Name    string `json:"name"`
	Version string `json:"version"`
	Source  string `json:"source"`
	// ID, Kind, Severity and Summary are the advisory's.
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Severity string `json:"severity,omitempty"`
	Summary  string `json:"summary,omitempty"`
	// Refuses is true for malicious and revoked versions.
	Refuses bool `json:"refuses"`
	// ByDigest is true when a digest named it.
	ByDigest bool `json:"byDigest,omitempty"`
}

// String says which advisory names the skill.
func (a Advised) String() string {
	return fmt.Sprintf("%s@%s is named by %s", a.Name, a.Version, a.Cite())
}

// Cite is "advisory ID (kind, severity): summary", severity and summary
// left out when the advisory has none.
func (a Advised) Cite() string {
	kind := a.Kind
	if a.Severity != "" {
		kind += ", " + a.Severity
	}
	s := "advisory " + a.ID + " (" + kind + ")"
	if a.Summary != "" {
		s += ": " + a.Summary
	}
	return s
}

// Advised is m as it names skill name at version: the skill's source is
// the repository the advisory names.
func (m Match) Advised(name, version string) Advised {
	a := m.Advisory
	return Advised{Name: name, Version: version, Source: m.Repository, ID: a.ID(), Kind: a.Kind, Severity: a.Severity,
		Summary: a.OSV.GetSummary(), Refuses: a.Refuses(), ByDigest: m.ByDigest}
}

// Advised returns the advisories naming skill name at version of
// repository, or one of digests (Lookup).
func (ix *Index) Advised(name, version, repository string, digests ...string) []Advised {
	var out []Advised
	for _, m := range ix.Lookup(repository, version, digests...) {
		out = append(out, m.Advised(name, version))
	}
	return out
}
