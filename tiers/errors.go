package tiers

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
)

// Sentinel errors. Every refusal wraps ErrRefused so that a command can map
// the whole family to one exit status; the more specific sentinels say why.
var (
	// ErrInvalidPolicy is wrapped by *PolicyError: the policy file does not
	// parse or does not validate.
	ErrInvalidPolicy = errdef.New(errdef.Validation, "invalid trust policy")
	// ErrUnknownTier reports a tier name that is not verified, community or
	// experimental where a caller passed one.
	ErrUnknownTier = skill.ErrUnknownTier

	// ErrRefused is wrapped by every trust refusal.
	ErrRefused = errdef.New(errdef.Trust, "refused by trust policy")
	// ErrAboveCeiling: a permission is above its tier's ceiling and no flag
	// can grant it.
	ErrAboveCeiling = errdef.New(errdef.Trust, "permission above the tier's ceiling")
	// ErrNeedsGrant: a permission beyond the experimental ceiling was not
	// named with --grant.
	ErrNeedsGrant = errdef.New(errdef.Trust, "permission needs an explicit grant")
	// ErrNeedsConsent: a dangerous permission needs consent and there was no
	// terminal to ask and no --grant or --yes.
	ErrNeedsConsent = errdef.New(errdef.Trust, "dangerous permission needs consent")
	// ErrDeclined: the user answered no to a consent prompt.
	ErrDeclined = errdef.New(errdef.Trust, "permission declined")
	// ErrExperimental: an experimental skill without --allow-experimental.
	ErrExperimental = errdef.New(errdef.Trust, "experimental skill not allowed")
	// ErrExperimentalDependency: an experimental skill reached as a
	// dependency.
	ErrExperimentalDependency = errdef.New(errdef.Trust, "experimental skill as a dependency")
	// ErrSignerChanged: an update is signed by none of the recorded signers.
	ErrSignerChanged = errdef.New(errdef.Trust, "signer changed")
)

// Problem is one thing wrong in a policy file, positioned like a compiler
// message. Line and Column are 1-based; 0 means unknown.
type Problem struct {
	// File is the policy file's path as it was given.
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Message says what is wrong; Hint how to fix it.
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// String renders "file:line:col: message — hint".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(skill.Position(p.File, p.Line, p.Column))
	b.WriteString(": " + p.Message)
	if p.Hint != "" {
		b.WriteString(" — " + p.Hint)
	}
	return b.String()
}

// PolicyError lists every problem found in a policy file, in file order.
type PolicyError struct {
	Problems []Problem
}

// Error reports the first problem and how many more there are.
func (e *PolicyError) Error() string {
	switch len(e.Problems) {
	case 0:
		return ErrInvalidPolicy.Error()
	case 1:
		return e.Problems[0].String()
	default:
		return fmt.Sprintf("%s (and %d more problems)", e.Problems[0], len(e.Problems)-1)
	}
}

// Unwrap makes errors.Is(err, ErrInvalidPolicy) true.
func (e *PolicyError) Unwrap() error { return ErrInvalidPolicy }

// Refusal is one reason a skill may not be installed.
type Refusal struct {
	// Skill is "name@version" as the caller named it; "" for an unnamed one.
	Skill string `json:"skill,omitempty"`
	// Tier is the skill's effective tier.
	Tier Tier `json:"tier"`
	// Permission is the refused permission, "" when the whole skill is
	// refused (experimental without --allow-experimental).
	Permission string `json:"permission,omitempty"`
	// Reason is a sentence saying what is wrong.
	Reason string `json:"reason"`
	// Fix says what to do, in the library's terms: front ends name their
	// own flags (see Grant).
	Fix string `json:"fix,omitempty"`
	// Grant is the grant that would allow Permission: "perm" for a skill
	// asked for by name, "name:perm" for a dependency; "" when no grant
	// can (above the ceiling) or nothing is a permission.
	Grant string `json:"grant,omitempty"`
	// Via is the dependency path to the skill, root first; empty for a
	// skill asked for by name.
	Via []string `json:"via,omitempty"`
	// Signers are the skill's verified signers ([Request.Signers]), so
	// that a consent question can say who vouches for it.
	Signers []string `json:"signers,omitempty"`
	// Kind is the specific sentinel (ErrAboveCeiling, ErrNeedsConsent, …).
	Kind error `json:"-"`
}

// String renders "reason — fix".
func (r Refusal) String() string {
	if r.Fix == "" {
		return r.Reason
	}
	return r.Reason + " — " + r.Fix
}

// RefusedError is every refusal found for a set of skills. Nothing of the
// set may be installed when it is returned.
type RefusedError struct {
	Refusals []Refusal
}

// Error lists the refusals, one per line after the first.
func (e *RefusedError) Error() string {
	switch len(e.Refusals) {
	case 0:
		return ErrRefused.Error()
	case 1:
		return e.Refusals[0].String() + "; nothing was installed"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d trust refusals; nothing was installed:", len(e.Refusals))
	for _, r := range e.Refusals {
		b.WriteString("\n  - " + r.String())
	}
	return b.String()
}

// Unwrap makes errors.Is true for ErrRefused and for the kind of every
// refusal.
func (e *RefusedError) Unwrap() []error {
	out := []error{ErrRefused}
	for _, r := range e.Refusals {
		if r.Kind != nil && !containsErr(out, r.Kind) {
			out = append(out, r.Kind)
		}
	}
	return out
}

// Class is errdef.Trust, whatever the kinds of the refusals.
func (e *RefusedError) Class() errdef.Class { return errdef.Trust }

func containsErr(errs []error, err error) bool {
	for _, e := range errs {
		if e == err {
			return true
		}
	}
	return false
}

// ExperimentalDependencyError refuses an experimental skill reached through
// dependencies. Path runs from the root the user asked for to the
// experimental skill, each element "name@version".
type ExperimentalDependencyError struct {
	Path []string
	// DecidedBy and Why say what made it experimental ([DecidedBy]); ""
	// when the caller did not say.
	DecidedBy, Why string
}

// Error names the path, what decided the tier, and says to install the
// skill on purpose.
func (e *ExperimentalDependencyError) Error() string {
	why := ""
	if e.DecidedBy != "" {
		why = fmt.Sprintf(" (decided by its %s: %s)", e.DecidedBy, e.Why)
	}
	return fmt.Sprintf("%s (experimental)%s: an experimental skill is never installed as a dependency — review it, then install it on purpose",
		strings.Join(e.Path, " -> "), why)
}

// Skill is the experimental skill, the last of Path ("" when Path is
// empty).
func (e *ExperimentalDependencyError) Skill() string {
	if len(e.Path) == 0 {
		return ""
	}
	return e.Path[len(e.Path)-1]
}

// Unwrap makes errors.Is true for ErrRefused and ErrExperimentalDependency.
func (e *ExperimentalDependencyError) Unwrap() []error {
	return []error{ErrRefused, ErrExperimentalDependency}
}

// SignerChangeError refuses an update signed by none of the identities
// recorded at first install.
type SignerChangeError struct {
	// Recorded are the signers pinned at first install.
	Recorded []sign.Identity
	// Current are the verified signers of the update.
	Current []sign.Identity
}

// Error names both sets of signers.
func (e *SignerChangeError) Error() string {
	cur := "no verified signature"
	if len(e.Current) > 0 {
		cur = "signed by " + identityList(e.Current)
	}
	return fmt.Sprintf("the update is %s, none of the recorded signers (%s) — if the publisher really changed its signing identity, check why before accepting the change",
		cur, identityList(e.Recorded))
}

// Unwrap makes errors.Is true for ErrRefused and ErrSignerChanged.
func (e *SignerChangeError) Unwrap() []error { return []error{ErrRefused, ErrSignerChanged} }

// CheckMinTier refuses a skill whose effective tier is below min:
// [skill.Tier.CheckMin]'s error (skill.ErrBelowMinTier, naming what), which
// is also ErrRefused, as every trust refusal is; nil when tier is at
// least min or min is "".
func CheckMinTier(what string, tier, min Tier) error {
	return errdef.Mark(ErrRefused, tier.CheckMin(what, min))
}

func identityList(ids []sign.Identity) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return strings.Join(s, ", ")
}
