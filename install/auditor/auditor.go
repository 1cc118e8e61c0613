// Package auditor adapts pkg/audit's static audit to install.Auditor. It is
// a package of its own so that the install library builds without the
// audit's parsers; the CLI and the HTTP API pass it.
package auditor

import (
	"context"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/skill"
)

// Options controls the auditor.
type Options struct {
	// Tool names the auditing program and version for the reports
	// ("skillpm 0.4.0"); the library does not know its own version.
	Tool string
	// Limits bound each audit; zero means audit.DefaultLimits.
	Limits audit.Limits
	// CacheDir keeps the audit's reports by content (audit.Options);
	// "" means none. Verdicts are judged from the report at the tier
	// passed to Audit every time, never taken from the cache.
	CacheDir string
}

// Static is pkg/audit's scanner as an install.Auditor.
type Static struct {
	sc *audit.Scanner
}

var _ install.Auditor = (*Static)(nil)

// New returns the static auditor.
func New(opts Options) (*Static, error) {
	sc, err := audit.New(audit.Options{Tool: opts.Tool, Limits: opts.Limits, CacheDir: opts.CacheDir})
	if err != nil {
		return nil, err
	}
	return &Static{sc: sc}, nil
}

// Prepare starts, in the background, what an Audit of a copy of dir
// will need (audit.Scanner.Prepare): installs call it with the directory
// a skill is built from, before they stage and audit it.
func (s *Static) Prepare(ctx context.Context, dir string) { s.sc.Prepare(ctx, dir) }

// Audit scans dir and judges the report at tier (the claimed tier when
// tier is "").
func (s *Static) Audit(ctx context.Context, dir string, tier skill.Tier) (install.AuditVerdict, error) {
	rep, err := s.sc.Scan(ctx, dir)
	if err != nil {
		return install.AuditVerdict{}, err
	}
	v, err := rep.Verdict(string(tier))
	if err != nil {
		return install.AuditVerdict{}, err
	}
	d, err := rep.Digest()
	if err != nil {
		return install.AuditVerdict{}, err
	}
	return install.AuditVerdict{
		Decision: string(v.Decision), Tier: skill.Tier(v.Tier), Reasons: v.Reasons,
		Version: rep.Version, Findings: len(rep.Findings), Digest: d, Report: rep,
	}, nil
}
