package gitsource

import "errors"

var (
	// ErrInvalidRef is returned for a string that is not a git reference
	// this package understands.
	ErrInvalidRef = errors.New("invalid git reference")
	// ErrUnknownHost is returned for a shorthand or bare URL naming a host
	// that has no known git layout.
	ErrUnknownHost = errors.New("unknown git host")
	// ErrNoGit is returned when the git command-line tool is not installed.
	ErrNoGit = errors.New("git is not installed")
	// ErrFetch is returned when a remote cannot be reached or refuses.
	ErrFetch = errors.New("fetching from git failed")
	// ErrRevNotFound is returned when a revision names nothing in the
	// repository.
	ErrRevNotFound = errors.New("revision not found")
	// ErrNoSkill is returned when the named folder holds no skill.
	ErrNoSkill = errors.New("no skill found")
	// ErrUnsafeTree is returned for a tree skillpm refuses to install: a
	// symlink leaving its skill folder, or a submodule in a skill.
	ErrUnsafeTree = errors.New("unsafe repository tree")
	// ErrBadSignature is returned for a commit signature that does not
	// verify.
	ErrBadSignature = errors.New("bad commit signature")
	// ErrOffline is returned when a reference needs the network and the
	// cache cannot answer it offline.
	ErrOffline = errors.New("not in the git cache")
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
