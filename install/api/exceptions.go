package api

import (
	"net/http"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// This file is the HTTP API's one table of deliberate exceptions to
// errdef's map from class to status and code: failures a client tells
// apart by a code of their own, some with a status of HTTP's own. Every
// other failure has its class's status (errdef.Class.HTTPStatus) and name
// (errdef.Class.String); internal/depcheck fails on a status mapping
// anywhere but here and in pkg/errdef.

// exceptionalCode is one code of the table.
type exceptionalCode struct {
	code  string
	class errdef.Class
	// status is HTTP's own status for it; 0 keeps the class's.
	status int
}

// exceptionalCodes lists the codes, with why.
func exceptionalCodes() []exceptionalCode {
	return []exceptionalCode{
		// HTTP has statuses of its own for a request the server refuses
		// before reading it: no token (401), a Host or Origin that is not
		// this server's (403, against DNS rebinding and cross-site
		// requests), a body too large (413), a method the panel does not
		// serve (405), a body that is not JSON (415).
		{CodeUnauthorized, errdef.Trust, http.StatusUnauthorized},
		{CodeBadHost, errdef.Usage, http.StatusForbidden},
		{CodeBadOrigin, errdef.Usage, http.StatusForbidden},
		{CodeTooLarge, errdef.Usage, http.StatusRequestEntityTooLarge},
		{CodeMethodNotAllowed, errdef.Usage, http.StatusMethodNotAllowed},
		{CodeUnsupportedMediaType, errdef.Usage, http.StatusUnsupportedMediaType},
		// A build without the search index reader lacks the endpoint, which
		// a client must not retry (501, not 500).
		{CodeNotImplemented, errdef.Internal, http.StatusNotImplemented},
		// The conflicts the panel acts on differently: it lists the
		// dependents, waits for a lock, or offers to overwrite an edit.
		{CodeDependedUpon, errdef.Conflict, 0},
		{CodeLocked, errdef.Conflict, 0},
		{CodeEdited, errdef.Conflict, 0},
	}
}

// exception is the failure with the table's code; a code not in the table
// is a bug, reported as an internal error.
func exception(code, msg string) *Error {
	for _, x := range exceptionalCodes() {
		if x.code == code {
			e := classError(x.class, msg)
			e.Code = code
			if x.status != 0 {
				e.Status = x.status
			}
			return e
		}
	}
	return classError(errdef.Internal, msg)
}
