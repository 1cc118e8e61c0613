package tiers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
)

// GrantedBy says what granted a permission; receipts store it.
type GrantedBy string

// What can grant a permission.
const (
	// GrantedByTier: the skill's tier allows it without asking.
	GrantedByTier GrantedBy = "tier"
	// GrantedByFlag: named on the command line with --grant (or in an API
	// request's grants).
	GrantedByFlag GrantedBy = "grant"
	// GrantedByYes: consented to with --yes.
	GrantedByYes GrantedBy = "yes"
	// GrantedByPrompt: the user answered yes at a prompt.
	GrantedByPrompt GrantedBy = "prompt"
)

// Prompter asks the user to consent to one dangerous permission. The CLI
// implements it on a terminal; a nil Prompter means there is no terminal,
// so consent must come from --grant or --yes.
type Prompter interface {
	// Confirm returns true when the user consents. An error (such as a
	// cancelled ctx or a closed input) aborts the whole check.
	Confirm(ctx context.Context, c Consent) (bool, error)
}

// Consent is the question put to the user: one per skill, covering
// everything about it that needs consent (installing it at all when it is
// experimental and named by the user, its dangerous permissions, its
// allowed-tools skillpm cannot map).
type Consent struct {
	// Skill is "name@version", "" when the caller named none.
	Skill string `json:"skill,omitempty"`
	// Tier is the skill's effective tier.
	Tier Tier `json:"tier"`
	// Permission is the first dangerous permission asked for (zero when
	// none is); Permissions all of them.
	Permission  skill.Permission   `json:"permission"`
	Permissions []skill.Permission `json:"permissions,omitempty"`
	// Experimental says the question is whether to install an
	// experimental skill at all (what allowing experimental skills
	// answers in a script).
	Experimental bool `json:"experimental,omitempty"`
	// Question is a sentence to show, without the answer choices.
	Question string `json:"question"`
}

// GrantOptions are the user's answers given up front.
type GrantOptions struct {
	// Grants are the permissions named with --grant. A grant without a
	// scope covers every scope of its domain and level.
	Grants []skill.Permission
	// Yes consents to every dangerous permission within the ceiling
	// (--yes); it never reaches beyond the experimental ceiling.
	Yes bool
	// AllowExperimental permits installing experimental skills.
	AllowExperimental bool
	// Prompter asks on a terminal; nil when there is none. With one, an
	// experimental skill the user named (no Via) is asked about instead
	// of refused.
	Prompter Prompter
}

// Request is one skill to check: its name@version, effective tier and
// declared permissions.
type Request struct {
	// Skill is "name@version", used in messages and plans.
	Skill string
	// Tier is the effective tier from [Evaluate].
	Tier Tier
	// Permissions are the skill's declared permissions.
	Permissions []skill.Permission
	// Claimed and Attested are the two sides of Tier ([Decision]), when
	// known: a refusal then says which one held the skill down and how to
	// raise it.
	Claimed, Attested Tier
	// Grants are permissions granted to this skill alone (--grant PERM for
	// a skill named on the command line, --grant NAME:PERM for any).
	Grants []skill.Permission
	// Via is the dependency path from a skill asked for by name, for a
	// dependency ("fix@1.0.0", "notes@1.2.0"); it is shown in refusals.
	Via []string
	// UnknownTools are allowed-tools entries that map to no known
	// permission: hosts pre-approve them, so outside the verified tier each
	// needs consent (--yes or a prompt).
	UnknownTools []string
	// Signers are the verified signer identities as text, copied into
	// refusals.
	Signers []string
}

// Plan is what a skill is granted and by what.
type Plan struct {
	// Skill and Tier echo the request.
	Skill string `json:"skill,omitempty"`
	Tier  Tier   `json:"tier"`
	// Grants has one entry per declared permission, in declared order.
	Grants []Grant `json:"grants"`
}

// Grant is one granted permission and what granted it.
type Grant struct {
	// Permission is the declared permission granted.
	Permission skill.Permission `json:"-"`
	// By is what granted it.
	By GrantedBy `json:"by"`
}

// MarshalJSON renders the permission as its string.
func (g Grant) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Permission string    `json:"permission"`
		By         GrantedBy `json:"by"`
	}{g.Permission.String(), g.By})
}

// Check decides one skill's permissions at tier. It is CheckSet for a set
// of one.
func (p *Policy) Check(ctx context.Context, tier Tier, permissions []skill.Permission, opts GrantOptions) (Plan, error) {
	plans, err := p.CheckSet(ctx, []Request{{Tier: tier, Permissions: permissions}}, opts)
	if err != nil {
		return Plan{}, err
	}
	return plans[0], nil
}

// pending is a skill waiting for its one prompt.
type pending struct {
	req     int
	consent Consent
}

// CheckSet decides the permissions of a whole set of skills before anything
// is written. It returns one plan per request, in order, or no plans and a
// *RefusedError listing every refusal in the set. Prompts are put only when
// nothing is refused outright, one per dangerous permission that --grant
// and --yes did not cover; after the first "no" it stops asking, since the
// set is refused anyway.
func (p *Policy) CheckSet(ctx context.Context, reqs []Request, opts GrantOptions) ([]Plan, error) {
	p = p.orDefault()
	for _, r := range reqs {
		if err := checkTier(r.Tier); err != nil {
			return nil, fmt.Errorf("%s: %w", skillName(r.Skill), err)
		}
	}
	plans := make([]Plan, len(reqs))
	var refusals []Refusal
	var asks []pending
	for i, r := range reqs {
		plan := Plan{Skill: r.Skill, Tier: r.Tier, Grants: make([]Grant, 0, len(r.Permissions))}
		refuse := func(perm, grant, reason, fix string, kind error) {
			refusals = append(refusals, Refusal{Skill: r.Skill, Tier: r.Tier, Permission: perm, Grant: grant, Via: slices.Clone(r.Via), Reason: reason, Fix: fix, Kind: kind, Signers: r.Signers})
		}
		name := skillName(r.Skill)
		// What this skill's one question asks.
		var askPerms []skill.Permission
		askExperimental, askTools := false, false
		if r.Tier == skill.TierExperimental && !opts.AllowExperimental {
			if opts.Prompter != nil && len(r.Via) == 0 {
				askExperimental = true
			} else {
				reason, fix := experimentalWhy(name, r)
				refuse("", "", reason, fix, ErrExperimental)
			}
		}
		ceiling := p.Ceilings.For(r.Tier)
		for _, perm := range r.Permissions {
			granted := func(by GrantedBy) { plan.Grants = append(plan.Grants, Grant{Permission: perm, By: by}) }
			grant, what := perm.Key(), perm.Key()
			if len(r.Via) > 0 {
				grant = shortName(r.Skill) + ":" + perm.Key()
				what = grant + " (it is a dependency: " + strings.Join(r.Via, " -> ") + ")"
			}
			byFlag := GrantOptions{Grants: append(slices.Clip(opts.Grants), r.Grants...)}.granted(perm)
			switch {
			case perm.Level == "none":
				granted(GrantedByTier)
			case !ceiling.Allows(perm) && r.Tier == skill.TierExperimental:
				if byFlag {
					granted(GrantedByFlag)
					continue
				}
				refuse(perm.String(), grant, fmt.Sprintf("%s (experimental) declares %s, beyond the experimental ceiling (%s)", name, perm, ceiling),
					"grant "+what+" explicitly (a consent to everything does not cover it)", ErrNeedsGrant)
			case !ceiling.Allows(perm):
				refuse(perm.String(), "", fmt.Sprintf("%s (%s) declares %s, above the %s ceiling (%s)", name, r.Tier, perm, r.Tier, ceiling),
					"no grant allows it: the skill needs a higher tier (a countersignature the policy trusts) or a policy whose "+string(r.Tier)+" ceiling includes it", ErrAboveCeiling)
			case r.Tier == skill.TierVerified || !p.Dangerous.Covers(perm):
				granted(GrantedByTier)
			case byFlag:
				granted(GrantedByFlag)
			case opts.Yes:
				granted(GrantedByYes)
			case opts.Prompter != nil:
				askPerms = append(askPerms, perm)
				granted(GrantedByPrompt)
			default:
				refuse(perm.String(), grant, fmt.Sprintf("%s (%s) declares the dangerous permission %s, which needs consent, and there is no terminal to ask", name, r.Tier, perm),
					"grant "+what+", or consent to it", ErrNeedsConsent)
			}
		}
		if r.Tier != skill.TierVerified && len(r.UnknownTools) > 0 {
			list := strings.Join(r.UnknownTools, ", ")
			switch {
			case opts.Yes:
			case opts.Prompter != nil:
				askTools = true
			default:
				refuse("", "", fmt.Sprintf("%s (%s) lists allowed-tools skillpm cannot map to a permission (%s), which hosts pre-approve, and there is no terminal to ask", name, r.Tier, list),
					"review them, then consent to them", ErrNeedsConsent)
			}
		}
		if askExperimental || len(askPerms) > 0 || askTools {
			c := Consent{Skill: r.Skill, Tier: r.Tier, Permissions: askPerms, Experimental: askExperimental,
				Question: question(name, r, askPerms, askExperimental, askTools)}
			if len(askPerms) > 0 {
				c.Permission = askPerms[0]
			}
			asks = append(asks, pending{req: i, consent: c})
		}
		plans[i] = plan
	}
	if len(refusals) > 0 {
		return nil, &RefusedError{Refusals: refusals}
	}
	for _, a := range asks {
		ok, err := opts.Prompter.Confirm(ctx, a.consent)
		if err != nil {
			return nil, fmt.Errorf("asking consent for %s: %w", skillName(a.consent.Skill), err)
		}
		if !ok {
			r := reqs[a.req]
			var what []string
			if a.consent.Experimental {
				what = append(what, "installing the experimental skill")
			}
			for _, p := range a.consent.Permissions {
				what = append(what, p.String())
			}
			if a.consent.Permission.Domain == "" && !a.consent.Experimental {
				what = append(what, "allowed-tools "+strings.Join(r.UnknownTools, ", "))
			}
			return nil, &RefusedError{Refusals: []Refusal{{
				Skill: r.Skill, Tier: r.Tier, Permission: a.consent.Permission.String(),
				Reason: fmt.Sprintf("you declined %s for %s", strings.Join(what, ", "), skillName(r.Skill)),
				Fix:    "install without that skill, or answer yes",
				Kind:   ErrDeclined,
			}}}
		}
	}
	return plans, nil
}

// question is the one consent question about a skill: its tier and what
// decided it, its declared permissions, and what needs consent.
func question(name string, r Request, perms []skill.Permission, experimental, tools bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is %s", name, r.Tier)
	switch {
	case r.Tier == skill.TierExperimental:
		by, why := DecidedBy(r.Claimed, r.Attested, r.Signers)
		fmt.Fprintf(&b, " (decided by its %s: %s)", by, why)
	case len(r.Signers) > 0:
		fmt.Fprintf(&b, " (the trust policy gives its signer %s that tier)", strings.Join(r.Signers, ", "))
	}
	declared := make([]string, len(r.Permissions))
	for i, p := range r.Permissions {
		declared[i] = p.String()
	}
	if len(declared) == 0 {
		b.WriteString("; it declares no permissions")
	} else {
		b.WriteString("; it declares " + strings.Join(declared, ", "))
	}
	if len(perms) > 0 {
		asked := make([]string, len(perms))
		for i, p := range perms {
			asked[i] = p.String()
		}
		b.WriteString("; dangerous, needing your consent: " + strings.Join(asked, ", "))
	}
	if tools {
		b.WriteString("; it lists allowed-tools skillpm cannot map to a permission, which hosts pre-approve: " + strings.Join(r.UnknownTools, ", "))
	}
	if experimental {
		b.WriteString(". Install it?")
	} else {
		b.WriteString(". Allow it?")
	}
	return b.String()
}

// granted reports whether --grant covers perm.
func (o GrantOptions) granted(perm skill.Permission) bool {
	for _, g := range o.Grants {
		if perm.Within(g) {
			return true
		}
	}
	return false
}

// shortName is the name of "name@version".
func shortName(s string) string {
	n, _, _ := strings.Cut(s, "@")
	return n
}

func skillName(s string) string {
	if s == "" {
		return "the skill"
	}
	return s
}

// What decided a skill's tier, as refusals name it.
const (
	// DecidedByClaim: the skill's own security_tier held it down.
	DecidedByClaim = "claim"
	// DecidedBySignature: it has no verified signature.
	DecidedBySignature = "signature"
	// DecidedByPolicy: it is signed, but the trust policy gives its
	// signers no higher tier.
	DecidedByPolicy = "policy"
)

// DecidedBy says which of claim, signature or policy made a skill
// experimental, with a sentence saying so: claimed and attested are the
// two sides of its [Decision] ("" claimed: none), signers its verified
// signers.
func DecidedBy(claimed, attested Tier, signers []string) (by, why string) {
	switch {
	case claimed == skill.TierExperimental && attested != "" && attested != skill.TierExperimental:
		return DecidedByClaim, fmt.Sprintf("it claims experimental (metadata.gaia.security_tier), although the trust policy attests %s for its signer", attested)
	case len(signers) == 0:
		return DecidedBySignature, "it has no signature that verifies with the keys and roots the trust policy names, so no policy rule can vouch for it"
	}
	return DecidedByPolicy, fmt.Sprintf("the trust policy gives its signer (%s) no tier above experimental", strings.Join(signers, ", "))
}

// experimentalWhy says which side made a skill experimental (the tier it
// claims, its missing signature, or the policy over its signers) and how
// to raise that side.
func experimentalWhy(name string, r Request) (reason, fix string) {
	const onPurpose = "or review it and install it on purpose, allowing experimental skills"
	by, why := DecidedBy(r.Claimed, r.Attested, r.Signers)
	reason = fmt.Sprintf("%s is experimental (decided by its %s): %s", name, by, why)
	switch by {
	case DecidedByClaim:
		return reason, fmt.Sprintf("the publisher raises security_tier to %s (or removes it, so the policy decides) and publishes a new version, %s", r.Attested, onPurpose)
	case DecidedBySignature:
		return reason, "sign it with a key your trust policy trusts (skillpm trust add KEY.pub trusts one), " + onPurpose
	}
	return reason, "trust its signer (skillpm trust add KEY.pub for a key; skillpm verify shows its signers), " + onPurpose
}
