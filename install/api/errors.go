package api

import (
	"encoding/json"
	"errors"
	"net/http"

	spm "github.com/skillpm/skillpm"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/tiers"
)

// Error codes: the stable "code" of an error response.
const (
	CodeBadRequest     = "bad_request"
	CodeUnauthorized   = "unauthorized"
	CodeBadHost        = "bad_host"
	CodeBadOrigin      = "bad_origin"
	CodeNotFound       = "not_found"
	CodeTooLarge       = "too_large"
	CodeRefused        = "refused"
	CodeInvalid        = "invalid"
	CodeNoResolution   = "no_resolution"
	CodeDependedUpon   = "depended_upon"
	CodeLocked         = "locked"
	CodeEdited         = "edited"
	CodeRegistry       = "registry"
	CodeNotImplemented = "not_implemented"
	CodeInternal       = "internal"
)

// Error is the JSON body of every failed request: {"error": Error}.
type Error struct {
	// Status is the HTTP status code, repeated for streamed results.
	Status int `json:"status"`
	// Code is one of the Code constants.
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

func badRequest(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: msg}
}

// toError maps an error of the install library to a status and code, as
// the CLI maps it to an exit code.
func toError(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	e := &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: err.Error()}
	var refused *tiers.RefusedError
	var expDep *tiers.ExperimentalDependencyError
	var dep *install.DependedUponError
	var nse *resolve.NoSolutionError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		e.Status, e.Code = http.StatusRequestEntityTooLarge, CodeTooLarge
		e.Message = "request body is larger than the server accepts"
	case errors.As(err, &refused):
		e.Status, e.Code = http.StatusUnprocessableEntity, CodeRefused
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
		e.Status, e.Code, e.Path = http.StatusUnprocessableEntity, CodeRefused, expDep.Path
	case errors.Is(err, tiers.ErrRefused):
		e.Status, e.Code = http.StatusUnprocessableEntity, CodeRefused
	case errors.As(err, &dep):
		e.Status, e.Code, e.Dependents = http.StatusConflict, CodeDependedUpon, dep.Dependents
	case errors.Is(err, install.ErrLocked):
		e.Status, e.Code = http.StatusConflict, CodeLocked
	case errors.Is(err, install.ErrEdited):
		e.Status, e.Code = http.StatusConflict, CodeEdited
	case errors.Is(err, install.ErrNotInstalled):
		e.Status, e.Code = http.StatusNotFound, CodeNotFound
	case errors.As(err, &nse):
		e.Status, e.Code = http.StatusUnprocessableEntity, CodeNoResolution
		e.Message = "no set of versions satisfies the request:\n\n" + nse.Explanation
	case errors.As(err, new(*resolve.StaleError)), errors.Is(err, resolve.ErrNameConflict):
		e.Status, e.Code = http.StatusUnprocessableEntity, CodeNoResolution
	case errors.Is(err, registry.ErrInvalidRef), errors.Is(err, install.ErrUnsupportedRef), errors.Is(err, spm.ErrInvalidRequest),
		errors.Is(err, resolve.ErrInvalidManifest), errors.Is(err, resolve.ErrInvalidName):
		e.Status, e.Code = http.StatusBadRequest, CodeBadRequest
	case errors.Is(err, skill.ErrInvalid):
		e.Status, e.Code = http.StatusUnprocessableEntity, CodeInvalid
	case errors.Is(err, registry.ErrNotFound):
		e.Status, e.Code = http.StatusNotFound, CodeNotFound
	case errors.Is(err, registry.ErrRegistry), errors.Is(err, registry.ErrDigestMismatch), errors.Is(err, registry.ErrTreeMismatch):
		e.Status, e.Code = http.StatusBadGateway, CodeRegistry
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
