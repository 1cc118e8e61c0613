package gitsource

import "github.com/skillpm/skillpm/pkg/errdef"

var (
	// ErrInvalidRef is returned for a string that is not a git reference
	// this package understands.
	ErrInvalidRef = errdef.New(errdef.Usage, "invalid git reference")
	// ErrUnknownForge is returned for a shorthand or bare URL naming a forge
	// (a git hostname) that has no known git layout.
	ErrUnknownForge = errdef.New(errdef.Usage, "unknown git host")
	// ErrNoGit is returned when the git command-line tool is not installed.
	ErrNoGit = errdef.New(errdef.Internal, "git is not installed")
	// ErrFetch is returned when a remote cannot be reached or refuses.
	ErrFetch = errdef.New(errdef.Registry, "fetching from git failed")
	// ErrRevNotFound is returned when a revision names nothing in the
	// repository.
	ErrRevNotFound = errdef.New(errdef.Resolution, "revision not found")
	// ErrNoSkill is returned when the named folder holds no skill.
	ErrNoSkill = errdef.New(errdef.Resolution, "no skill found")
	// ErrUnsafeTree is returned for a tree skillpm refuses to install: a
	// symlink leaving its skill folder, or a submodule in a skill.
	ErrUnsafeTree = errdef.New(errdef.Validation, "unsafe repository tree")
	// ErrBadSignature is returned for a commit signature that does not
	// verify.
	ErrBadSignature = errdef.New(errdef.Trust, "bad commit signature")
	// ErrOffline is returned when a reference needs the network and the
	// cache cannot answer it offline.
	ErrOffline = errdef.New(errdef.Registry, "not in the git cache")
)

// Error is a failure about one git reference; its message starts with the
// reference (credentials removed).
type Error struct {
	// Ref is the reference, as [Ref.String] writes it.
	Ref string
	// Err is the cause; errors.Is finds the sentinels through it.
	Err error
}

func (e *Error) Error() string { return e.Ref + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
