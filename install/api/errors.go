package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/skillpm/skillpm/install"
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

// Codes more specific than an errdef class name, for failures a client
// tells apart (exceptions.go gives each its class and status).
const (
	CodeUnauthorized         = "unauthorized"
	CodeBadHost              = "bad_host"
	CodeBadOrigin            = "bad_origin"
	CodeTooLarge             = "too_large"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeDependedUpon         = "depended_upon"
	CodeLocked               = "locked"
	CodeEdited               = "edited"
	CodeNotImplemented       = "not_implemented"
)

// Error is the JSON body of every failed request: {"error": Error}.
type Error struct {
	// Status is the HTTP status code, repeated for streamed results.
	Status int `json:"status"`
	// Code is the name of the failure's errdef class (as the CLI's JSON
	// errors give it), or one of the Code constants.
	Code string `json:"code"`
	// Message says what failed, on what, and what to do.
	Message string `json:"message"`
	// Refusals are the trust refusals (code "refused").
	Refusals []Refusal `json:"refusals,omitempty"`
	// Needs is what a retried install must name to pass (code "refused").
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
	AllowExperimental bool     `json:"allowExperimental"`
}

func (e *Error) Error() string { return e.Message }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, e *Error) {
	writeJSON(w, e.Status, map[string]*Error{"error": e})
}

func badRequest(msg string) *Error { return classError(errdef.Usage, msg) }

// classError is a failure of class c: its status and code are errdef's.
func classError(c errdef.Class, msg string) *Error {
	return &Error{Status: c.HTTPStatus(), Code: c.String(), Message: msg, class: c}
}

// toError gives an error of the install library its status and code:
// its errdef class's, as the CLI's exit code is, or the specific ones of
// exceptions.go a client acts on. Trust refusals and dependents carry
// their details.
func toError(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	e := classError(errdef.ClassOf(err), err.Error())
	var refused *tiers.RefusedError
	var expDep *tiers.ExperimentalDependencyError
	var dep *install.DependedUponError
	var nse *resolve.NoSolutionError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		e = exception(CodeTooLarge, "request body is larger than the server accepts")
	case errors.As(err, &refused):
		e.Needs = &Needs{Grants: []string{}}
		for _, r := range refused.Refusals {
			e.Refusals = append(e.Refusals, Refusal{Refusal: r, Kind: refusalKind(r.Kind)})
			switch {
			case errors.Is(r.Kind, tiers.ErrNeedsGrant), errors.Is(r.Kind, tiers.ErrNeedsConsent), errors.Is(r.Kind, tiers.ErrDeclined):
				if r.Permission != "" && !contains(e.Needs.Grants, r.Permission) {
					e.Needs.Grants = append(e.Needs.Grants, r.Permission)
				}
			case errors.Is(r.Kind, tiers.ErrExperimental):
				e.Needs.AllowExperimental = true
			}
		}
	case errors.As(err, &expDep):
		e.Path = expDep.Path
	case errors.As(err, &dep):
		e = exception(CodeDependedUpon, e.Message)
		e.Dependents = dep.Dependents
	case errors.Is(err, install.ErrLocked):
		e = exception(CodeLocked, e.Message)
	case errors.Is(err, install.ErrEdited):
		e = exception(CodeEdited, e.Message)
	case errors.As(err, &nse):
		e.Message = "no set of versions satisfies the request:\n\n" + nse.Explanation
	}
	return e
}

// Class is the errdef class of the failure, so an *Error passed back
// through a library keeps its meaning.
func (e *Error) Class() errdef.Class { return e.class }

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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
