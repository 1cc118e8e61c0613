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

// Consent is the question put to the user.
type Consent struct {
	// Skill is "name@version", "" when the caller named none.
	Skill string `json:"skill,omitempty"`
	// Tier is the skill's effective tier.
	Tier Tier `json:"tier"`
	// Permission is the dangerous permission asked for.
	Permission skill.Permission `json:"permission"`
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
	// Prompter asks on a terminal; nil when there is none.
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

// pending is a permission waiting for a prompt.
type pending struct {
	req, grant int
	consent    Consent
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
		if r.Tier == skill.TierExperimental && !opts.AllowExperimental {
			reason, fix := experimentalWhy(name, r)
			refuse("", "", reason, fix, ErrExperimental)
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
				asks = append(asks, pending{req: i, grant: len(plan.Grants), consent: Consent{
					Skill: r.Skill, Tier: r.Tier, Permission: perm,
					Question: fmt.Sprintf("%s (%s) asks for %s, a dangerous permission. Allow it?", name, r.Tier, perm),
				}})
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
				asks = append(asks, pending{req: i, grant: -1, consent: Consent{
					Skill: r.Skill, Tier: r.Tier,
					Question: fmt.Sprintf("%s (%s) lists allowed-tools skillpm cannot map to a permission: %s. Hosts pre-approve them. Allow them?", name, r.Tier, list),
				}})
			default:
				refuse("", "", fmt.Sprintf("%s (%s) lists allowed-tools skillpm cannot map to a permission (%s), which hosts pre-approve, and there is no terminal to ask", name, r.Tier, list),
					"review them, then consent to them", ErrNeedsConsent)
			}
		}
		plans[i] = plan
	}
	if len(refusals) > 0 {
		return nil, &RefusedError{Refusals: refusals}
	}
	for _, a := range asks {
		ok, err := opts.Prompter.Confirm(ctx, a.consent)
		if err != nil {
			return nil, fmt.Errorf("asking consent for %s of %s: %w", a.consent.Permission, skillName(a.consent.Skill), err)
		}
		if !ok {
			r := reqs[a.req]
			what, perm := a.consent.Permission.String(), a.consent.Permission.String()
			if a.grant < 0 {
				what, perm = "allowed-tools "+strings.Join(r.UnknownTools, ", "), ""
			}
			return nil, &RefusedError{Refusals: []Refusal{{
				Skill: r.Skill, Tier: r.Tier, Permission: perm,
				Reason: fmt.Sprintf("you declined %s for %s", what, skillName(r.Skill)),
				Fix:    "install without that skill, or answer yes",
				Kind:   ErrDeclined,
			}}}
		}
	}
	return plans, nil
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
