package install

import (
	"runtime"

	"context"
	"fmt"
	"golang.org/x/sync/errgroup"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/tiers"
)

// Auditor audits one staged skill directory without executing anything
// and judges it at tier (the skill's claimed tier when tier is ""). The
// install library reaches the audit only through this interface, so a
// program can build it without the audit's parsers; package
// install/auditor adapts pkg/audit's static audit.
type Auditor interface {
	Audit(ctx context.Context, dir string, tier skill.Tier) (AuditVerdict, error)
}

// The decisions of an [AuditVerdict].
const (
	AuditPass   = "pass"
	AuditReview = "review"
	AuditBlock  = "block"
)

// AuditVerdict is an auditor's decision on one skill.
type AuditVerdict struct {
	// Decision is AuditPass, AuditReview or AuditBlock.
	Decision string
	// Tier is the tier the skill was judged at.
	Tier skill.Tier
	// Reasons say why the decision is not a pass.
	Reasons []string
	// Version is the skill's version as the audit read it.
	Version string
	// Findings is how many findings the report has; Digest is the
	// report's canonical digest.
	Findings int
	Digest   string
	// Report is the auditor's full report (pkg/audit's *audit.Report for
	// install/auditor), for callers that show it.
	Report any
}

// AuditOptions controls [AuditStaged].
type AuditOptions struct {
	// Auditor audits each skill; it must not be nil.
	Auditor Auditor
	// AllowFindings installs skills whose verdict blocks; their outcomes
	// are marked Allowed and no error is returned for them.
	AllowFindings bool
}

// AuditOutcome is the static audit of one staged skill.
type AuditOutcome struct {
	// Name is the skill, as the staged map keys it.
	Name string
	// Dir is the staged directory that was audited.
	Dir string
	// Verdict is the decision at the skill's effective tier (its claimed
	// tier when the caller gave none), with the report.
	Verdict AuditVerdict
	// Allowed is true when the verdict blocks and AllowFindings let the
	// skill through anyway.
	Allowed bool
}

// Blocks reports whether the verdict blocks the skill.
func (o AuditOutcome) Blocks() bool { return o.Verdict.Decision == AuditBlock }

// AuditRefusedError is returned by [AuditStaged] when any verdict blocks
// and findings were not allowed. It wraps tiers.ErrRefused, so commands map
// it to the trust exit status.
type AuditRefusedError struct {
	// Blocked are the outcomes that block, by name.
	Blocked []AuditOutcome
}

func (e *AuditRefusedError) Error() string {
	parts := make([]string, 0, len(e.Blocked))
	for _, o := range e.Blocked {
		at := o.Name
		if v := o.Verdict.Version; v != "" {
			at += "@" + v
		}
		parts = append(parts, fmt.Sprintf("the audit blocks %s at tier %s: %s", at, o.Verdict.Tier, strings.Join(o.Verdict.Reasons, "; ")))
	}
	return fmt.Sprintf("%s; audit it to see every finding, or allow the findings to install it anyway", strings.Join(parts, "; "))
}

// Unwrap makes errors.Is(err, tiers.ErrRefused) true.
func (e *AuditRefusedError) Unwrap() error { return tiers.ErrRefused }

// AuditStaged audits every staged skill directory (name -> dir) without
// executing anything, at its effective tier (name -> tier; a missing or
// empty tier means the tier the skill claims), and returns the outcomes
// sorted by name. When a verdict blocks and opts.AllowFindings is off, the
// outcomes come with an *AuditRefusedError naming every blocked skill, its
// blocking findings and the flag. Call it after staging and before
// anything is committed to the root. Other errors (a directory that cannot
// be read, an unknown tier, a cancelled ctx) name the skill.
func AuditStaged(ctx context.Context, staged map[string]string, effective map[string]skill.Tier, opts AuditOptions) ([]AuditOutcome, error) {
	if opts.Auditor == nil {
		return nil, ErrNoAuditor
	}
	names := make([]string, 0, len(staged))
	for name := range staged {
		names = append(names, name)
	}
	slices.Sort(names)
	// Scans are independent: run them on every core, keep the name order.
	out := make([]AuditOutcome, len(names))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, name := range names {
		g.Go(func() (err error) {
			// A panic in this goroutine would kill the process (a server
			// with it): an auditor that fails on hostile content fails
			// this install, which aborts its transaction.
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("auditing %s: %w (%v); report it with the skill", name, ErrAuditFailed, p)
				}
			}()
			dir := staged[name]
			v, err := opts.Auditor.Audit(gctx, dir, effective[name])
			if err != nil {
				return fmt.Errorf("auditing %s: %w", name, err)
			}
			out[i] = AuditOutcome{Name: name, Dir: dir, Verdict: v}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var refused AuditRefusedError
	for i := range out {
		if out[i].Blocks() {
			if opts.AllowFindings {
				out[i].Allowed = true
			} else {
				refused.Blocked = append(refused.Blocked, out[i])
			}
		}
	}
	if len(refused.Blocked) > 0 {
		return out, &refused
	}
	return out, nil
}
