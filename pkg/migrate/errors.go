package migrate

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
)

// Sentinel errors.
var (
	// ErrNotMigratable is wrapped by *NotMigratableError.
	ErrNotMigratable = errdef.New(errdef.Validation, "skill cannot be migrated")
	// ErrOutputExists means the output directory exists and
	// Options.OverwriteUnsafe was not set.
	ErrOutputExists = errdef.New(errdef.Conflict, "output directory already exists")
	// ErrOutputOverlaps means the output directory is the input directory,
	// inside it, or contains it.
	ErrOutputOverlaps = errdef.New(errdef.Usage, "output directory overlaps the input skill")
	// ErrOptions is returned for options that do not make sense together.
	ErrOptions = errdef.New(errdef.Usage, "invalid migrate options")
)

// Reason classifies why a skill cannot be migrated. The values are stable:
// scripts and the corpus test count them.
type Reason string

// Reasons a skill cannot be migrated.
const (
	ReasonNoSkillFile          Reason = "no-skill-file"
	ReasonUnreadable           Reason = "unreadable"
	ReasonNoFrontmatter        Reason = "no-frontmatter"
	ReasonFrontmatterUnclosed  Reason = "frontmatter-unclosed"
	ReasonContentBeforeFront   Reason = "content-before-frontmatter"
	ReasonFrontmatterTooLarge  Reason = "frontmatter-too-large"
	ReasonYAMLSyntax           Reason = "yaml-syntax"
	ReasonYAMLRefused          Reason = "yaml-refused"
	ReasonNotMapping           Reason = "frontmatter-not-mapping"
	ReasonNoDescription        Reason = "no-description"
	ReasonDescriptionTooLong   Reason = "description-too-long"
	ReasonCompatibilityInvalid Reason = "compatibility-invalid"
	ReasonMetadataInvalid      Reason = "metadata-invalid"
	ReasonGaiaConflict         Reason = "gaia-conflict"
	ReasonWrongFormat          Reason = "wrong-format"
	ReasonUnsupportedFile      Reason = "unsupported-file"
)

// NotMigratableError says exactly why a skill cannot be migrated and what
// to do about it.
type NotMigratableError struct {
	// File is the SKILL.md (or the offending file), Line its line when known.
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Reason Reason `json:"reason"`
	// Detail is the precise problem, Hint how to fix it.
	Detail string `json:"detail"`
	Hint   string `json:"hint,omitempty"`
}

// Error renders "file:line: cannot migrate (reason): detail".
func (e *NotMigratableError) Error() string {
	return fmt.Sprintf("%s: cannot migrate (%s): %s", skill.Position(e.File, e.Line, 0), e.Reason, e.Detail)
}

// Unwrap makes errors.Is(err, ErrNotMigratable) true.
func (e *NotMigratableError) Unwrap() error { return ErrNotMigratable }

func notMigratable(file string, line int, r Reason, detail, hint string) *NotMigratableError {
	return &NotMigratableError{File: file, Line: line, Reason: r, Detail: detail, Hint: hint}
}
