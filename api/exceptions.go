package api

import (
	"errors"
	"net/http"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// The API's deliberate exceptions to errdef's map from an error to an
// HTTP status (internal/depcheck's TestOneExitMap allows them here and in
// no other file of the package): failures whose status the HTTP protocol
// fixes rather than their class. Their class and code stay errdef's. The
// others of the kind (401, 403, 405, 415, 501) are answered by withStatus
// where the request is refused, before any error is looked at.

// tooLarge is a request body over the server's bound: 413, class usage.
func tooLarge(err error) (*Error, bool) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return withStatus(errdef.Usage, http.StatusRequestEntityTooLarge, "request body is larger than the server accepts"), true
	}
	return nil, false
}
