package resolve

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
)

// Sentinel errors. Callers match them with errors.Is; every one comes
// wrapped with the skill, version or range it concerns.
var (
	// ErrNotFound is what a [Provider] wraps when it does not know a skill at
	// all. The solver then treats the skill as having no versions, so the
	// explanation says so, instead of aborting.
	ErrNotFound = errdef.New(errdef.NotFound, "skill not found")

	// ErrNoSolution is the sentinel behind every [*NoSolutionError]: no set
	// of versions satisfies the requirements.
	ErrNoSolution = errdef.New(errdef.Resolution, "no solution")

	// ErrInvalidRange reports a version range Masterminds/semver rejects.
	ErrInvalidRange = errdef.New(errdef.Usage, "invalid version range")

	// ErrUnsupportedRange reports a range Masterminds accepts but whose set
	// of versions cannot be represented exactly (see [ParseRange]).
	ErrUnsupportedRange = errdef.New(errdef.Usage, "unsupported version range")

	// ErrInvalidName reports an empty skill name in the requirements.
	ErrInvalidName = errdef.New(errdef.Usage, "invalid skill name")

	// ErrStepLimit reports a solve that needed more than Options.MaxSteps
	// decisions and conflict resolutions.
	ErrStepLimit = errdef.New(errdef.Resolution, "version solving step limit exceeded")

	// ErrInvalidOptions reports [Options] that fail their own validation.
	ErrInvalidOptions = errdef.New(errdef.Usage, "invalid options")
)

// NoSolutionError reports that the requirements cannot be satisfied, with
// the solver's proof of it written out in English, one sentence per line,
// in the style of Dart pub and uv: each line derives a fact from external
// facts ("fix 1.0.0 depends on code ^2") and earlier lines, a fact reused
// far from where it is derived is numbered "(1)" and cited as such, and the
// last lines say why version solving failed and what could be changed.
//
// The text depends only on the requirements and on what the [Provider]
// returned, never on map iteration order, so it is stable for golden tests.
type NoSolutionError struct {
	// Explanation is the full multi-line text, without a trailing newline.
	Explanation string
	// Requirements lists, sorted, the skills whose requirement by the
	// project takes part in the conflict: loosening one of those is one way
	// out.
	Requirements []string
}

// Error returns the explanation.
func (e *NoSolutionError) Error() string { return e.Explanation }

// Unwrap returns ErrNoSolution.
func (e *NoSolutionError) Unwrap() error { return ErrNoSolution }

// Sentinels of the project files and the lock.
var (
	// ErrInvalidManifest reports a skills.yaml or gaia-agent.yaml that does
	// not parse or breaks its schema; see [*FileError] for the position.
	ErrInvalidManifest = errdef.New(errdef.Validation, "invalid project manifest")

	// ErrNoManifest reports a project manifest that does not exist where
	// a project operation looked ([ReadManifest]); it comes with
	// fs.ErrNotExist.
	ErrNoManifest = errdef.New(errdef.Usage, "no project manifest")

	// ErrInvalidLock reports a skills.lock that does not parse or breaks
	// its schema; see [*FileError] for the position.
	ErrInvalidLock = errdef.New(errdef.Validation, "invalid lockfile")

	// ErrLockStale reports a lock that does not satisfy the manifest, or
	// that resolving again would change, when it must not (--frozen). See
	// [*StaleError].
	ErrLockStale = errdef.New(errdef.Resolution, "the lock is out of date")

	// ErrLockMismatch reports a frozen install that found the lock
	// disagreeing with what a git reference holds (no entry, another
	// commit or tree).
	ErrLockMismatch = errdef.New(errdef.Conflict, "lock mismatch")

	// ErrNameConflict reports a solution holding two skills with the same
	// name from different repositories: an install root holds one skill per
	// name.
	ErrNameConflict = errdef.New(errdef.Resolution, "two skills with the same name")
)

// FileError is a problem at a position in a project file. Error renders it
// compiler-style: "skills.yaml:4:3: message (hint)".
type FileError struct {
	// File is the path as given to the parser.
	File string
	// Line and Column are 1-based; 0 when the problem is the whole file.
	Line, Column int
	// Message says what is wrong.
	Message string
	// Hint says what to write instead; "" when there is nothing to add.
	Hint string
	// Err is ErrInvalidManifest or ErrInvalidLock.
	Err error
}

// Error implements error.
func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(skill.Position(e.File, e.Line, e.Column))
	b.WriteString(": " + e.Message)
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

// Unwrap returns the sentinel.
func (e *FileError) Unwrap() error { return e.Err }

// Class is the class of Err, and errdef.Validation when Err has none: a
// project file that does not parse breaks the file's rules.
func (e *FileError) Class() errdef.Class {
	if c := errdef.ClassOf(e.Err); c != errdef.None {
		return c
	}
	return errdef.Validation
}

// StaleError lists how a lock differs from what the manifest needs or
// from what resolving again gives, one difference per line, sorted by
// skill name.
type StaleError struct {
	// Lock is the lockfile's path.
	Lock string
	// Differences are the differences, in words.
	Differences []string
}

// Error implements error.
func (e *StaleError) Error() string {
	return fmt.Sprintf("%s is out of date (run skillpm lock to update it):\n  %s", e.Lock, strings.Join(e.Differences, "\n  "))
}

// Unwrap returns ErrLockStale.
func (e *StaleError) Unwrap() error { return ErrLockStale }

// NotInProjectError is a skill a project operation (a removal, an
// update, a lock upgrade) was asked for that the project does not have
// ([Manifest.CheckSkills], [Manifest.RequirementsNamed]): so that a front
// end can answer a typo with the names it has.
type NotInProjectError struct {
	// Name is the skill asked for; Manifest the project manifest.
	Name, Manifest string
	// Have are the project's skills: the manifest's requirements (for a
	// removal), or its skills' short names and the locked skills'.
	Have []string
}

func (e *NotInProjectError) Error() string { return e.Name + " is not in " + e.Manifest }

// Class is errdef.Usage: the request names a skill the project lacks.
func (e *NotInProjectError) Class() errdef.Class { return errdef.Usage }
