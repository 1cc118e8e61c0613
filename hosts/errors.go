package hosts

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors.
var (
	// ErrUnknownHost means a host id is not in the table.
	ErrUnknownHost = errors.New("unknown host")
	// ErrUnknownScope means a scope is neither user nor project.
	ErrUnknownScope = errors.New("unknown scope")
	// ErrNoProjectRoot means a host reads no project-scope root.
	ErrNoProjectRoot = errors.New("host has no project root")
	// ErrNoHome means a root needs the home directory and there is none.
	ErrNoHome = errors.New("no home directory")
	// ErrNoCwd means a root is relative and there is no working directory.
	ErrNoCwd = errors.New("no working directory")
	// ErrInvalidTable means a hosts file does not describe hosts correctly.
	ErrInvalidTable = errors.New("invalid hosts table")
)

// UnknownHostError names the host asked for and the known ones.
type UnknownHostError struct {
	ID    string
	Known []string
}

func (e *UnknownHostError) Error() string {
	return fmt.Sprintf("unknown host %q: use one of %s, add it to a hosts file, or use --root DIR", e.ID, strings.Join(e.Known, ", "))
}

// Unwrap returns ErrUnknownHost.
func (e *UnknownHostError) Unwrap() error { return ErrUnknownHost }

// NoProjectRootError says why a host has no project root.
type NoProjectRootError struct {
	Host   string
	Reason string
}

func (e *NoProjectRootError) Error() string {
	return fmt.Sprintf("host %s has no project root (%s): install at --scope user, or use --root DIR", e.Host, e.Reason)
}

// Unwrap returns ErrNoProjectRoot.
func (e *NoProjectRootError) Unwrap() error { return ErrNoProjectRoot }
