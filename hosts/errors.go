package hosts

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// Sentinel errors.
var (
	// ErrUnknownHost means a host id is not in the table.
	ErrUnknownHost = errdef.New(errdef.Usage, "unknown host")
	// ErrUnknownScope means a scope is neither user nor project.
	ErrUnknownScope = errdef.New(errdef.Usage, "unknown scope")
	// ErrNoProjectRoot means a host reads no project-scope root.
	ErrNoProjectRoot = errdef.New(errdef.Usage, "host has no project root")
	// ErrNoUserRoot means a host reads no user-scope root.
	ErrNoUserRoot = errdef.New(errdef.Usage, "host has no user root")
	// ErrNoHome means a root needs the home directory and there is none.
	ErrNoHome = errdef.New(errdef.Internal, "no home directory")
	// ErrNoCwd means a root is relative and there is no working directory.
	ErrNoCwd = errdef.New(errdef.Internal, "no working directory")
	// ErrInvalidTable means a hosts file does not describe hosts correctly.
	ErrInvalidTable = errdef.New(errdef.Validation, "invalid hosts table")
)

// UnknownHostError names the host asked for and the known ones.
type UnknownHostError struct {
	ID    string
	Known []string
}

func (e *UnknownHostError) Error() string {
	// A table of 80 hosts is no sentence: past a few, the count and the
	// command that lists them.
	known := strings.Join(e.Known, ", ")
	if len(e.Known) > maxListed {
		known = fmt.Sprintf("%s, … (%d in all: skillpm hosts lists them)", strings.Join(e.Known[:maxListed], ", "), len(e.Known))
	}
	return fmt.Sprintf("unknown host %q: use one of %s, add it to a hosts file, or install into a directory of your choice", e.ID, known)
}

// maxListed is how many known hosts an error names before it counts them.
const maxListed = 8

// Unwrap returns ErrUnknownHost.
func (e *UnknownHostError) Unwrap() error { return ErrUnknownHost }

// NoProjectRootError says why a host has no project root.
type NoProjectRootError struct {
	Host   string
	Reason string
}

func (e *NoProjectRootError) Error() string {
	return fmt.Sprintf("host %s has no project root (%s): install at user scope, or into a directory of your choice", e.Host, e.Reason)
}

// Unwrap returns ErrNoProjectRoot.
func (e *NoProjectRootError) Unwrap() error { return ErrNoProjectRoot }

// NoUserRootError says why a host has no user root.
type NoUserRootError struct {
	Host   string
	Reason string
}

func (e *NoUserRootError) Error() string {
	return fmt.Sprintf("host %s has no user root (%s): install at project scope, or into a directory of your choice", e.Host, e.Reason)
}

// Unwrap returns ErrNoUserRoot.
func (e *NoUserRootError) Unwrap() error { return ErrNoUserRoot }
