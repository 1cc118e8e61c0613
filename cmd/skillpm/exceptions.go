package main

import (
	"errors"

	"github.com/skillpm/skillpm/asf"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
)

// This file is the command line's one table of deliberate exceptions to
// errdef's map from error to exit code. Everywhere else a command returns
// the library's error and the process exits with the code of its class
// (errdef.Class.ExitCode); internal/depcheck fails on an exit-code
// mapping anywhere but here and in pkg/errdef.

// exception gives a library error another class on some commands.
type exception struct {
	// where names the commands that apply it (an exceptionsFor key).
	where string
	// err is the library's sentinel; class is what the command reports.
	err   error
	class errdef.Class
}

// exceptions lists every exception, with why.
func exceptions() []exception {
	return []exception{
		// A file that tools run implicitly is a validation error to the
		// archive library (3); an install refuses it as it refuses an
		// untrusted skill (5).
		{"install", archive.ErrImplicitExec, errdef.Trust},
		// The project's skills.yaml is the command's input on install,
		// update and lock: a broken one is a usage error (2), not an
		// invalid artifact (3).
		{"install", resolve.ErrInvalidManifest, errdef.Usage},
		// The ASF commands that agent hosts run as hooks exit as the ASF
		// reference runtime does: to a host, exit 2 means "block", so only
		// the names, sessions and hosts a user mistyped are usage errors
		// and a workflow that does not expand is a validation error; every
		// other failure, a hook payload that does not parse included, is
		// a plain failure (1) so that the hook fails open.
		// These three keep their class; the last entry is the fallback.
		{"asf", asf.ErrInvalidSkillName, errdef.Usage},
		{"asf", asf.ErrInvalidSession, errdef.Usage},
		{"asf", asf.ErrUnknownHost, errdef.Usage},
		{"asf", nil, errdef.Internal},
	}
}

// except gives err the class the exceptions of the commands named where
// give it; an entry with no err is the fallback for those commands. A
// class the command chose itself (cliClass) is kept.
func except(where string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*cliClass](err); ok {
		return err
	}
	if pe, ok := errors.AsType[*asf.PlanError](err); ok && where == "asf" {
		// A workflow that does not expand keeps its class (3).
		return classed(pe.Class(), err)
	}
	for _, x := range exceptions() {
		if x.where == where && (x.err == nil || errors.Is(err, x.err)) {
			return classed(x.class, err)
		}
	}
	return err
}

// cliClass is a class a command chose for an error of its own making,
// which no exception overrides.
type cliClass struct {
	class errdef.Class
	err   error
}

func (e *cliClass) Error() string { return e.err.Error() }
func (e *cliClass) Unwrap() error { return e.err }

// Class is the class the command chose.
func (e *cliClass) Class() errdef.Class { return e.class }

// classed returns err with class c, chosen by the command line.
func classed(c errdef.Class, err error) error {
	if err == nil {
		return nil
	}
	return &cliClass{class: c, err: err}
}
