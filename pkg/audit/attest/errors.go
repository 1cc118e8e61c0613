package attest

import "github.com/skillpm/skillpm/pkg/errdef"

// ErrInvalid is returned by Parse for a predicate that is not an audit
// predicate.
var ErrInvalid = errdef.New(errdef.Validation, "invalid audit attestation predicate")
