package skill

import "github.com/skillpm/skillpm/pkg/errdef"

// Sentinel errors. Diagnostics carry the detail; these classify failures that
// stop loading before any diagnostic can be attached to a file position.
var (
	// ErrNoSkillFile means the directory holds neither SKILL.md nor skill.md.
	ErrNoSkillFile = errdef.New(errdef.Validation, "no SKILL.md in skill directory")
	// ErrInvalid is wrapped by *ValidationError.
	ErrInvalid = errdef.New(errdef.Validation, "skill is invalid")
	// ErrPermission is returned by ParsePermission for malformed permissions.
	ErrPermission = errdef.New(errdef.Validation, "invalid permission")
	// ErrUnknownTier reports a tier name that is not verified, community or
	// experimental.
	ErrUnknownTier = errdef.New(errdef.Usage, "unknown tier")
	// ErrBelowMinTier means a skill's effective tier is below the minimum
	// asked for (an install's, a mirror's, a verification's); see
	// [Tier.CheckMin].
	ErrBelowMinTier = errdef.New(errdef.Trust, "below the minimum tier")
	// ErrBadName means a name given for a new skill is not a valid skill
	// name: the request is to be fixed, so it is a usage error.
	ErrBadName = errdef.New(errdef.Usage, "not a valid skill name")
	// ErrKnownTools is returned when a known-tools file cannot be read.
	ErrKnownTools = errdef.New(errdef.Validation, "invalid known-tools file")
)

// ValidationError is returned when a skill has error diagnostics. It keeps
// the full list so callers can print every problem, not only the first.
type ValidationError struct {
	Diagnostics Diagnostics
}

func (e *ValidationError) Error() string {
	errs := e.Diagnostics.Errors()
	switch len(errs) {
	case 0:
		return "skill is invalid"
	case 1:
		return errs[0].String()
	default:
		return errs[0].String() + " (and " + itoa(len(errs)-1) + " more errors)"
	}
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Unwrap() error { return ErrInvalid }

// ErrExists is returned by Scaffold when the target directory is not empty.
var ErrExists = errdef.New(errdef.Conflict, "directory already exists and is not empty")
