package engine

import (
	"errors"

	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/pkg/errdef"
)

var (
	// ErrInvalidRequest means an option or argument of a request is
	// malformed or contradicts another: fix the request.
	ErrInvalidRequest = errdef.New(errdef.Usage, "invalid request")
	// errNoSuchSkill means a source holds no skill of the name asked for.
	errNoSuchSkill = errdef.New(errdef.NotFound, "no such skill")
	// errUntrustedCommit means a git commit's signature could not be
	// turned into a signer identity.
	errUntrustedCommit = errdef.New(errdef.Trust, "untrusted commit signature")
	// errGit marks failures of fetching or exporting a git reference; the
	// gitsource error is wrapped beside it. It only says where a failure
	// happened, so it has no class: the gitsource error's is the mark's.
	errGit = errdef.New(errdef.None, "git source")
	// errNoSuchSource means a directory of layouts named as a source does
	// not exist: reading it would find nothing, and writing beside it
	// would create it.
	errNoSuchSource = errdef.New(errdef.NotFound, "no such source")
)

// BuildError is a skill directory (or a skill of a git reference) that
// does not build. Err wraps the *skill.ValidationError with the
// diagnostics when the skill is invalid.
type BuildError struct {
	// Where is the directory or git origin as the request named it.
	Where string
	// Dir is set for a local directory (not a git reference).
	Dir bool
	// Err is the build failure.
	Err error
}

func (e *BuildError) Error() string { return e.Where + ": " + e.Err.Error() }

// Class is errdef.Validation: what was asked to build is not a skill that
// builds.
func (e *BuildError) Class() errdef.Class { return errdef.Validation }

// Unwrap returns the build failure.
func (e *BuildError) Unwrap() error { return e.Err }

// invalid marks err as ErrInvalidRequest without changing its message:
// the request is to be fixed, whatever the class of what it tripped over.
func invalid(err error) error { return errdef.Mark(ErrInvalidRequest, err) }

// targetErr is err from package roots, with a target the hosts table
// cannot place (roots.ErrInvalidTarget) marked ErrInvalidRequest: the
// Target is one of the Options, and a bad option is ErrInvalidRequest.
func targetErr(err error) error {
	if errors.Is(err, roots.ErrInvalidTarget) {
		return invalid(err)
	}
	return err
}

// errAuditBlocked means the static audit blocks a skill at the tier it
// claims, so it is not published.
var errAuditBlocked = errdef.New(errdef.Trust, "the audit blocks it")

// errUnreadableSkill means a directory holds no skill that can be read,
// even leniently (no SKILL.md, or front matter that does not parse).
var errUnreadableSkill = errdef.New(errdef.Validation, "not a readable skill")

var (
	// ErrAttestVersion means an audit attestation was asked for what is
	// not one published version (a directory, several skills).
	ErrAttestVersion = errdef.New(errdef.Usage, "an audit attestation is about one published version")
)

// ErrNoSkillDirs means no skill directory could be listed below a
// directory (an audit's Recursive): the walk failed, or nothing below it
// holds a SKILL.md. The error's message names the directory; its class
// is errdef.NotFound when nothing was found, else the walk failure's.
var ErrNoSkillDirs = errdef.New(errdef.NotFound, "no skill directory below it")

// skillDirsError is ErrNoSkillDirs for one directory.
type skillDirsError struct {
	// root is the directory walked.
	root string
	// err is the walk's failure; nil when it found no skill.
	err error
}

func (e *skillDirsError) Error() string {
	if e.err == nil {
		return e.root + ": no directory below it holds a SKILL.md"
	}
	return e.root + ": " + e.err.Error()
}

func (e *skillDirsError) Is(target error) bool { return target == ErrNoSkillDirs }

// Class is errdef.NotFound when no skill is below the directory, else
// the walk failure's class.
func (e *skillDirsError) Class() errdef.Class {
	if e.err == nil {
		return errdef.NotFound
	}
	return errdef.ClassOf(e.err)
}

// Unwrap returns the walk's failure.
func (e *skillDirsError) Unwrap() error { return e.err }
