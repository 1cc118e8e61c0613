package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/internal/jsonkeys"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/tiers"
)

var (
	// ErrBadAddr means a listen address is not host:port.
	ErrBadAddr = errdef.New(errdef.Usage, "not a host:port address")
	// ErrNotLoopback means a listen address is not loopback and remote
	// access was not allowed: anyone who reaches it could install skills.
	ErrNotLoopback = errdef.New(errdef.Usage, "not a loopback address")
)

// ListenError is a listen address the server could not listen on.
type ListenError struct {
	// Addr is the address; Err the failure.
	Addr string
	Err  error
}

func (e *ListenError) Error() string { return "listening on " + e.Addr + ": " + e.Err.Error() }

// Unwrap returns the failure.
func (e *ListenError) Unwrap() error { return e.Err }

// Class is errdef.Conflict: the address is taken or not this machine's.
func (e *ListenError) Class() errdef.Class { return errdef.Conflict }

// Error is the JSON body of every failed request: {"error": Error}. It
// is the CLI's error envelope (class, code, message, hint: docs/json.md)
// with what an HTTP client needs besides.
type Error struct {
	// ClassName is the failure's errdef class by name ("usage", "trust",
	// "conflict", ...): the same name the CLI's JSON error carries.
	ClassName string `json:"class"`
	// Code is the exit code the CLI gives a failure of that class.
	Code int `json:"code"`
	// Message is the first paragraph of the error: what failed, on what.
	Message string `json:"message"`
	// Hint is the rest (a solver's explanation, what to try); omitted
	// when empty.
	Hint string `json:"hint,omitempty"`
	// Status is the HTTP status, repeated for streamed results.
	Status int `json:"status"`
	// Refusals are the trust refusals (class "trust").
	Refusals []Refusal `json:"refusals,omitempty"`
	// Needs is what a retried install must name to pass (class "trust").
	Needs *Needs `json:"needs,omitempty"`
	// Dependents are the installed skills that need the one to remove.
	Dependents []string `json:"dependents,omitempty"`
	// Path is the dependency path to an experimental skill.
	Path []string `json:"path,omitempty"`

	class errdef.Class
}

// Refusal is one tiers.Refusal with its kind as a string.
type Refusal struct {
	tiers.Refusal
	// Kind is above_ceiling, needs_grant, needs_consent, declined,
	// experimental or refused.
	Kind string `json:"kind"`
}

// Needs lists the grants and flags a refused install would need. A
// permission above its tier's ceiling cannot be granted and is not listed.
type Needs struct {
	Grants            []string `json:"grants"`
	AllowExperimental bool     `json:"allow_experimental"`
}

func (e *Error) Error() string { return e.Message }

// Class is the errdef class the response was made from, so an *Error
// passed back through a library keeps its meaning.
func (e *Error) Class() errdef.Class { return e.class }

// newError is a failure of class c: its name, exit code and HTTP status
// are errdef's, as the CLI's are; msg is split as the CLI splits it,
// first paragraph and hint.
func newError(c errdef.Class, msg string) *Error {
	e := &Error{ClassName: c.String(), Code: c.ExitCode(), Status: c.HTTPStatus(), class: c}
	m, hint, _ := strings.Cut(msg, "\n\n")
	e.Message, e.Hint = m, strings.TrimSpace(hint)
	return e
}

// withStatus is a failure whose HTTP status is fixed by the protocol
// rather than by its class (401 for a missing token, 403 for a foreign
// Host or Origin, 413, 415, 405, 501); its class and code stay errdef's.
func withStatus(c errdef.Class, status int, msg string) *Error {
	e := newError(c, msg)
	e.Status = status
	return e
}

// writeJSON writes v with skillpm's key style (snake_case, as the CLI's
// --output json; internal/jsonkeys).
func writeJSON(w http.ResponseWriter, status int, v any) {
	norm, err := jsonkeys.Snake(v)
	if err != nil {
		norm = map[string]any{"error": newError(errdef.Internal, "encoding the response: "+err.Error())}
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(norm)
}

func writeError(w http.ResponseWriter, e *Error) {
	writeJSON(w, e.Status, map[string]*Error{"error": e})
}

func badRequest(msg string) *Error { return newError(errdef.Usage, msg) }

// toError makes the response of an error of the install library: its
// errdef class gives the class, code and status, as the CLI's exit code
// is; trust refusals and dependents carry their details.
func toError(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	if e, ok := tooLarge(err); ok {
		return e
	}
	// An unclassified error is "failure" with exit code 1, as the CLI
	// reports it, and 500 (errdef's status for it).
	class := errdef.ClassOf(err)
	msg := err.Error()
	var nse *resolve.NoSolutionError
	if errors.As(err, &nse) {
		msg = "no set of versions satisfies the request:\n\n" + nse.Explanation
	}
	e := newError(class, msg)
	var refused *tiers.RefusedError
	var expDep *tiers.ExperimentalDependencyError
	var dep *install.DependedUponError
	switch {
	case errors.As(err, &refused):
		e.Needs = &Needs{Grants: []string{}}
		for _, r := range refused.Refusals {
			e.Refusals = append(e.Refusals, Refusal{Refusal: r, Kind: refusalKind(r.Kind)})
			switch {
			case errors.Is(r.Kind, tiers.ErrNeedsGrant), errors.Is(r.Kind, tiers.ErrNeedsConsent), errors.Is(r.Kind, tiers.ErrDeclined):
				if r.Permission != "" && !slices.Contains(e.Needs.Grants, r.Permission) {
					e.Needs.Grants = append(e.Needs.Grants, r.Permission)
				}
			case errors.Is(r.Kind, tiers.ErrExperimental):
				e.Needs.AllowExperimental = true
			}
		}
	case errors.As(err, &expDep):
		e.Path = expDep.Path
	case errors.As(err, &dep):
		e.Dependents = dep.Dependents
	}
	return e
}

func refusalKind(k error) string {
	for _, c := range []struct {
		err  error
		kind string
	}{
		{tiers.ErrAboveCeiling, "above_ceiling"}, {tiers.ErrNeedsGrant, "needs_grant"},
		{tiers.ErrNeedsConsent, "needs_consent"}, {tiers.ErrDeclined, "declined"},
		{tiers.ErrExperimental, "experimental"},
	} {
		if k != nil && errors.Is(k, c.err) {
			return c.kind
		}
	}
	return "refused"
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
