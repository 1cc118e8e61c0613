package tiers

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
)

// EvalOptions carries what [Evaluate] needs beyond the signatures.
type EvalOptions struct {
	// AuditSigners are the verified identities that signed a passing audit
	// attestation for the same digest. Rules with requireAudit grant their
	// tier only when one of these matches.
	AuditSigners []sign.Identity
}

// Decision is the tier a skill earns and why, for `skillpm verify`,
// `skillpm info` and receipts.
type Decision struct {
	// Repository is the canonical repository evaluated.
	Repository string `json:"repository"`
	// Claimed is the tier the skill claims: "" when it claims none (the
	// policy alone decides), experimental for an unknown one.
	Claimed Tier `json:"claimed"`
	// Attested is the highest tier a trusted signer earns.
	Attested Tier `json:"attested"`
	// Effective is the lower of Attested and Claimed (Attested when the
	// skill claims none): the tier that counts.
	Effective Tier `json:"effective"`
	// Policy is the rule that gave the attested tier, "" when none did.
	Policy string `json:"policy,omitempty"`
	// Scope is the scope of Policy that matched the repository.
	Scope string `json:"scope,omitempty"`
	// Signer is the verified identity that earned the attested tier.
	Signer *sign.Identity `json:"signer,omitempty"`
	// Identity is the rule identity that Signer matched.
	Identity string `json:"identity,omitempty"`
	// Audits reports every requireAudit rule that trusted a signer and
	// whether its audit requirement was met.
	Audits []AuditCheck `json:"audits,omitempty"`
	// Warnings are shown to the user (a claim above the attested tier).
	Warnings []string `json:"warnings,omitempty"`
	// Why explains the decision in sentences, in the order it was made.
	Why []string `json:"why"`
}

// AuditCheck is the outcome of one rule's requireAudit.
type AuditCheck struct {
	// Policy is the rule's name.
	Policy string `json:"policy"`
	// Met is true when an audit signer matched the rule's requireAudit.
	Met bool `json:"met"`
	// Signer is the audit attestation signer that met it.
	Signer *sign.Identity `json:"signer,omitempty"`
}

// candidate is a rule whose scope matches the repository.
type candidate struct {
	rule  *Rule
	scope string
	rank  scopeRank
}

// trust is what one signer earns under one rule.
type trust struct {
	cand     candidate
	identity IdentityRule
}

// Evaluate decides the tier of a skill in repository (a canonical string,
// see [Repository]) signed by identities (the verified signers; failed
// signatures are never passed in), claiming the tier claimed ("" when it
// claims none: then the attested tier, the policy's, is the effective
// one). See the package documentation for the precedence rules.
func Evaluate(p *Policy, repository string, identities []sign.Identity, claimed Tier, opts EvalOptions) Decision {
	p = p.orDefault()
	d := Decision{Repository: repository, Claimed: claimed, Attested: skill.TierExperimental}
	if claimed != "" && !claimed.Valid() {
		d.Claimed = skill.TierExperimental
		d.Warnings = append(d.Warnings, fmt.Sprintf("claimed tier %s is not a tier: treated as experimental", quote(string(claimed))))
	}

	var cands []candidate
	for i := range p.Rules {
		r := &p.Rules[i]
		best := candidate{rank: rankNone}
		for _, s := range r.Scopes {
			if rk := rankOf(s); rk > best.rank && MatchScope(s, repository) {
				best = candidate{rule: r, scope: s, rank: rk}
			}
		}
		if best.rule != nil {
			cands = append(cands, best)
		}
	}

	audits := map[*Rule]int{} // rule -> index in d.Audits
	auditMet := func(c candidate) bool {
		r := c.rule
		if len(r.RequireAudit) == 0 {
			return true
		}
		if i, ok := audits[r]; ok {
			return d.Audits[i].Met
		}
		ac := AuditCheck{Policy: r.Name}
		if _, id, ok := anyMatch(r.RequireAudit, opts.AuditSigners); ok {
			ac.Met, ac.Signer = true, &id
			d.Why = append(d.Why, fmt.Sprintf("policy %s requires an audit attestation: met, signed by %s", r.Name, id))
		} else {
			d.Why = append(d.Why, fmt.Sprintf("policy %s requires a passing audit attestation signed by %s; none was found, so it does not grant %s",
				r.Name, rulesList(r.RequireAudit), r.Tier))
		}
		audits[r] = len(d.Audits)
		d.Audits = append(d.Audits, ac)
		return ac.Met
	}

	switch {
	case len(identities) == 0:
		d.Why = append(d.Why, "no verified signature (a new version has a new digest and is unverified until it is signed): experimental")
	case len(cands) == 0:
		d.Why = append(d.Why, fmt.Sprintf("no policy covers %s: experimental", repository))
	}

	var win *trust
	var winSigner sign.Identity
	seen := map[string]bool{}
	for _, id := range identities {
		if seen[id.String()] || len(cands) == 0 {
			continue
		}
		seen[id.String()] = true
		var all []trust
		for _, c := range cands {
			for _, ir := range c.rule.Identities {
				if ir.Matches(id) {
					all = append(all, trust{cand: c, identity: ir})
					break
				}
			}
		}
		var granting []trust
		for _, t := range all {
			if auditMet(t.cand) {
				granting = append(granting, t)
			}
		}
		if len(all) == 0 {
			d.Why = append(d.Why, fmt.Sprintf("signer %s is trusted by no policy covering %s", id, repository))
			continue
		}
		if len(granting) == 0 {
			continue
		}
		best := granting[0]
		for _, t := range granting[1:] {
			if t.cand.rank > best.cand.rank || (t.cand.rank == best.cand.rank && t.cand.rule.Tier.Rank() > best.cand.rule.Tier.Rank()) {
				best = t
			}
		}
		d.Why = append(d.Why, fmt.Sprintf("signer %s matches %s in policy %s (scope %s): %s",
			id, best.identity, best.cand.rule.Name, best.cand.scope, best.cand.rule.Tier))
		for _, t := range granting {
			if t.cand.rank < best.cand.rank && t.cand.rule.Tier != best.cand.rule.Tier {
				d.Why = append(d.Why, fmt.Sprintf("policy %s (scope %s) would give the same signer %s, but scope %s is more specific",
					t.cand.rule.Name, t.cand.scope, t.cand.rule.Tier, best.cand.scope))
			}
		}
		if win == nil || best.cand.rule.Tier.Rank() > win.cand.rule.Tier.Rank() {
			b := best
			win, winSigner = &b, id
		}
	}
	if win != nil {
		d.Attested = win.cand.rule.Tier
		d.Policy = win.cand.rule.Name
		d.Scope = win.cand.scope
		d.Signer = &winSigner
		d.Identity = win.identity.String()
	}

	if d.Claimed == "" {
		d.Effective = d.Attested
		d.Why = append(d.Why, fmt.Sprintf("the skill claims no tier (metadata.gaia.security_tier), so the policy decides: effective %s", d.Effective))
		return d
	}
	d.Effective = d.Attested.Lower(d.Claimed)
	switch {
	case d.Claimed.Compare(d.Attested) > 0:
		d.Warnings = append(d.Warnings, fmt.Sprintf("the skill claims %s but the trust policy attests only %s: treated as %s", d.Claimed, d.Attested, d.Effective))
		d.Why = append(d.Why, fmt.Sprintf("attested %s; a claim never raises a tier: effective %s", d.Attested, d.Effective))
	case d.Claimed.Compare(d.Attested) < 0:
		d.Why = append(d.Why, fmt.Sprintf("attested %s, but the skill claims only %s: effective %s", d.Attested, d.Claimed, d.Effective))
	default:
		d.Why = append(d.Why, fmt.Sprintf("attested and claimed %s: effective %s", d.Attested, d.Effective))
	}
	return d
}

func rulesList(rs []IdentityRule) string {
	s := ""
	for i, r := range rs {
		if i > 0 {
			s += " or "
		}
		s += r.String()
	}
	return s
}
