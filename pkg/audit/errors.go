package audit

import "errors"

// Sentinel errors. Findings carry everything about the skill's content;
// these classify failures that stop an audit from producing a report.
var (
	// ErrNotDir means the path to audit is not a directory.
	ErrNotDir = errors.New("not a skill directory")
	// ErrTier is returned for a tier other than experimental, community or verified.
	ErrTier = errors.New("unknown tier")
	// ErrSeverity is returned by ParseSeverity for an unknown name.
	ErrSeverity = errors.New("unknown severity")
	// ErrOptions is returned by New for options that cannot work.
	ErrOptions = errors.New("invalid audit options")
)
