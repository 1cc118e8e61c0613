package migrate

import "github.com/skillpm/skillpm/pkg/skill"

// Report says what a migration did: every foreign field mapped, every field
// left as it was and why, every value changed, and the suggestions a human
// should review. It is what `skillpm migrate` prints.
type Report struct {
	// Source is the input skill directory, File its SKILL.md.
	Source string `json:"source"`
	File   string `json:"file"`
	// Output is the directory written, "" until Write succeeds.
	Output string `json:"output,omitempty"`
	// Name is the skill's name after migration: the output directory's name.
	Name string `json:"name"`
	// Detected lists the foreign formats found; Migrated those mapped. A
	// skill with neither is already standard and only normalized.
	Detected []Format `json:"detected"`
	Migrated []Format `json:"migrated"`

	Mapped      []Mapping    `json:"mapped"`
	Changes     []Change     `json:"changes"`
	Unmapped    []Unmapped   `json:"unmapped"`
	Suggestions []Suggestion `json:"suggestions"`
	// Notes are remarks that fit none of the above (a foreign block written
	// as a JSON string, a VCS directory not copied).
	Notes []string `json:"notes"`

	// Valid is true when the result passes strict validation with GAIA's
	// loader rules (a permission GAIA refuses is a gaia-refused error);
	// Diagnostics holds what validation found (warnings included).
	Valid       bool              `json:"valid"`
	Diagnostics skill.Diagnostics `json:"diagnostics"`
}

// Mapping is one foreign field carried into the GAIA fields.
type Mapping struct {
	From   string   `json:"from"`
	To     string   `json:"to"`
	Values []string `json:"values,omitempty"`
	Note   string   `json:"note,omitempty"`
}

// Change is a value migration rewrote so the skill validates: a fixed name,
// a version, a shortened description, a repaired frontmatter line.
type Change struct {
	Field  string `json:"field"`
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// Unmapped is a field with no GAIA meaning. It stays in the output as it
// was written.
type Unmapped struct {
	Field  string `json:"field"`
	Value  string `json:"value,omitempty"`
	Reason string `json:"reason"`
}

// SuggestionKind classifies a suggestion.
type SuggestionKind string

// Suggestion kinds.
const (
	// SuggestRelatedSkill is a skill the source names as related: worth
	// installing alongside, not a dependency.
	SuggestRelatedSkill SuggestionKind = "related-skill"
	// SuggestRequiredSkill is a skill the source says it needs; declare it
	// in metadata.gaia.requirements.skills once it is published.
	SuggestRequiredSkill SuggestionKind = "required-skill"
)

// Suggestion is something for a human to consider; migration does not act
// on it.
type Suggestion struct {
	Kind    SuggestionKind `json:"kind"`
	Skill   string         `json:"skill"`
	From    string         `json:"from"`
	Message string         `json:"message"`
}

func newReport() Report {
	return Report{
		Detected: []Format{}, Migrated: []Format{}, Mapped: []Mapping{}, Changes: []Change{},
		Unmapped: []Unmapped{}, Suggestions: []Suggestion{}, Notes: []string{}, Diagnostics: skill.Diagnostics{},
	}
}
