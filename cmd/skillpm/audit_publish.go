package main

import (
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/registry"
)

// printAuditGate prints the audit of a skill about to be published:
// findings on stderr, and for a verdict other than pass the verdict and
// its reasons. A block verdict refuses the publish (exit 5, nothing
// pushed) unless allow is set, when it is only a warning: a false
// positive at critical would otherwise keep a skill from every tier, and
// install audits again on the user's side.
func printAuditGate(g *globals, a *registry.Artifact, out *engine.AuditedSkill, allow bool) error {
	rep, v := out.Report, out.Verdict
	at := a.Skill.Name + "@" + a.Skill.Version
	if len(rep.Findings) > 0 {
		printFindings(g.stderr, at, rep.Findings, g.quiet)
	}
	if v.Decision == audit.Pass {
		return nil
	}
	fmt.Fprintf(g.stderr, "audit: %s: %s at tier %s (%s)\n", at, v.Decision, v.Tier, countText(rep))
	for _, r := range v.Reasons {
		fmt.Fprintf(g.stderr, "  %s\n", r)
	}
	if v.Decision != audit.Block {
		return nil
	}
	if allow {
		g.o().Warn(fmt.Sprintf("publishing %s although the audit blocks it at tier %s (--allow-audit-findings)", at, v.Tier))
		return nil
	}
	return classed(errdef.Trust, fmt.Errorf("%s not published: the audit blocks it at tier %s (%s); fix the findings, claim a lower tier, or pass --allow-audit-findings", at, v.Tier, countText(rep)))
}
