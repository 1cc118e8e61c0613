package advisory

import "github.com/skillpm/skillpm/pkg/errdef"

var (
	// ErrInvalidFeed reports an advisory feed document that does not
	// parse or breaks its schema.
	ErrInvalidFeed = errdef.New(errdef.Validation, "invalid advisory feed")
	// ErrUntrustedFeed reports a feed that is not obeyed: unsigned, no
	// signature verifies, or signed by nobody the policy names as an
	// advisor.
	ErrUntrustedFeed = errdef.New(errdef.Trust, "untrusted advisory feed")
	// ErrStaleFeed reports a feed past its expiry: a mirror must not
	// freeze a user on an old feed silently.
	ErrStaleFeed = errdef.New(errdef.Trust, "stale advisory feed")
	// ErrRevoked means a version an obeyed advisory withdraws (malicious
	// or revoked) was about to be installed or locked: a lock does not
	// make a revoked digest safe.
	ErrRevoked = errdef.New(errdef.Trust, "withdrawn by an advisory")
)
