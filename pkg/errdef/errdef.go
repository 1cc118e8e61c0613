// Package errdef is skillpm's error taxonomy: a few classes that every
// sentinel and typed error of the module belongs to, and the one mapping
// from a class to a process exit code and to an HTTP status.
//
// Libraries decide the class where they define an error (New for a
// sentinel, a Class method for a typed error); front ends (the CLI, the
// HTTP API) ask ClassOf and the Class methods and keep no table of their
// own but one of deliberate exceptions each (cmd/skillpm/exceptions.go,
// api/exceptions.go). internal/depcheck fails on an exit-code or
// status mapping anywhere else. In the
// spirit of oras-go's errdef, the classes say what kind of failure it was,
// not which package raised it.
package errdef

import "net/http"

// Class is the kind of a failure.
type Class uint8

// The classes. None is the zero value: an error that no library classified
// (a bare I/O error, a cancelled context), reported as a plain failure.
const (
	// None means unclassified.
	None Class = iota
	// Usage is a request that is malformed: a bad reference, a flag or
	// option that does not parse, a combination of options that conflict.
	Usage
	// Validation is input that parses but breaks a rule: an invalid skill,
	// policy, manifest, lock or artifact.
	Validation
	// Resolution is a set of requirements that no versions satisfy.
	Resolution
	// Trust is a refusal by verification or the trust policy: no signature
	// verifies, a tier is too low, a permission needs a grant or consent.
	Trust
	// Registry is a registry, git remote or network failure, after
	// retries, or content a registry served that does not match its digest.
	Registry
	// Conflict is a request that clashes with the current state: a lock
	// held by another process, a skill edited by hand, a skill other
	// skills depend on, a workflow step out of order.
	Conflict
	// NotFound is a skill, version, file or step that does not exist.
	NotFound
	// Internal is a failure of the environment or of skillpm itself (a
	// missing tool, an unreadable receipt) that the request cannot fix.
	Internal
)

// Classes lists every class but None, in order.
func Classes() []Class {
	return []Class{Usage, Validation, Resolution, Trust, Registry, Conflict, NotFound, Internal}
}

// String returns the class's name in snake case, as the CLI's and the
// HTTP API's JSON errors report it; None, unclassified, is "failure".
func (c Class) String() string {
	switch c {
	case Usage:
		return "usage"
	case Validation:
		return "validation"
	case Resolution:
		return "resolution"
	case Trust:
		return "trust"
	case Registry:
		return "registry"
	case Conflict:
		return "conflict"
	case NotFound:
		return "not_found"
	case Internal:
		return "internal"
	}
	return "failure"
}

// Process exit codes, documented in the CLI's help. Front ends use these
// names instead of numbers.
const (
	ExitOK         = 0
	ExitFailure    = 1
	ExitUsage      = 2
	ExitValidation = 3
	ExitResolution = 4
	ExitTrust      = 5
	ExitRegistry   = 6
)

// ExitCode is the process exit code for a failure of class c. A missing
// thing is "no resolution" (4), as a registry lookup of a skill that does
// not exist always was; conflicts, internal and unclassified failures are
// plain failures (1).
func (c Class) ExitCode() int {
	switch c {
	case Usage:
		return ExitUsage
	case Validation:
		return ExitValidation
	case Resolution, NotFound:
		return ExitResolution
	case Trust:
		return ExitTrust
	case Registry:
		return ExitRegistry
	}
	return ExitFailure
}

// HTTPStatus is the HTTP status for a failure of class c. Refusals by trust
// and unresolvable or invalid requests are 422: the request was understood
// and cannot be carried out as it is.
func (c Class) HTTPStatus() int {
	switch c {
	case Usage:
		return http.StatusBadRequest
	case Validation, Resolution, Trust:
		return http.StatusUnprocessableEntity
	case Registry:
		return http.StatusBadGateway
	case Conflict:
		return http.StatusConflict
	case NotFound:
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}

// Classer is implemented by errors that know their class. A typed error
// whose class depends on its cause may return None to defer to it.
type Classer interface {
	Class() Class
}

// classed is a sentinel error with a class.
type classed struct {
	class Class
	msg   string
}

func (e *classed) Error() string { return e.msg }
func (e *classed) Class() Class  { return e.class }

// New returns a sentinel error with message msg and class c. Each call
// returns a distinct error, as errors.New does, so errors.Is tells
// sentinels apart.
func New(c Class, msg string) error {
	return &classed{class: c, msg: msg}
}

// wrapped gives an error from outside the module a class.
type wrapped struct {
	class Class
	err   error
}

func (e *wrapped) Error() string { return e.err.Error() }
func (e *wrapped) Unwrap() error { return e.err }
func (e *wrapped) Class() Class  { return e.class }

// WithClass returns err with class c, keeping its message and what
// errors.Is and errors.As find in it. WithClass(c, nil) is nil.
func WithClass(c Class, err error) error {
	if err == nil {
		return nil
	}
	return &wrapped{class: c, err: err}
}

// marked is an error with a sentinel added to what errors.Is finds in it.
type marked struct{ err, mark error }

func (e *marked) Error() string        { return e.err.Error() }
func (e *marked) Unwrap() error        { return e.err }
func (e *marked) Is(target error) bool { return target == e.mark }

// Class is the mark's; a mark of class None defers to the error marked.
func (e *marked) Class() Class { return ClassOf(e.mark) }

// Mark returns err with sentinel added to what errors.Is finds in it,
// keeping err's message and what errors.As finds. Its class is the
// sentinel's, so the decision the mark records gives the exit code and
// the status, whatever err tripped over; a sentinel of class None leaves
// err's. Mark(sentinel, nil) is nil.
func Mark(sentinel, err error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, mark: sentinel}
}

// ClassOf returns the class of err: that of the first error in its tree
// (walked depth first, as errors.As does) that has one, so the outermost
// decision wins. It returns None for nil and for unclassified errors.
func ClassOf(err error) Class {
	for err != nil {
		if c, ok := err.(Classer); ok {
			if cl := c.Class(); cl != None {
				return cl
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if cl := ClassOf(e); cl != None {
					return cl
				}
			}
			return None
		default:
			return None
		}
	}
	return None
}

// Is reports whether err is of class c.
func Is(err error, c Class) bool {
	return err != nil && ClassOf(err) == c
}
