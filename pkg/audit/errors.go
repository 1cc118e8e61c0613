package audit

import "github.com/skillpm/skillpm/pkg/errdef"

// Sentinel errors. Findings carry everything about the skill's content;
// these classify failures that stop an audit from producing a report.
var (
	// ErrNotDir means the path to audit is not a directory.
	ErrNotDir = errdef.New(errdef.Usage, "not a skill directory")
	// ErrTier is returned for a tier other than experimental, community or verified.
	ErrTier = errdef.New(errdef.Usage, "unknown tier")
	// ErrSeverity is returned by ParseSeverity for an unknown name.
	ErrSeverity = errdef.New(errdef.Usage, "unknown severity")
	// ErrOptions is returned by New for options that cannot work.
	ErrOptions = errdef.New(errdef.Usage, "invalid audit options")
)
