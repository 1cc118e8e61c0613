package skill

import "fmt"

// Tier is a security tier: experimental, community or verified. It is a
// string so that JSON and YAML carry the tier's name unchanged; the zero
// value "" means "none given" and is not Valid.
type Tier string

// Typed names of the tiers, lowest first (TierExperimental and the other
// untyped constants are the same names as plain strings).
const (
	Experimental Tier = TierExperimental
	Community    Tier = TierCommunity
	Verified     Tier = TierVerified
)

// Tiers lists the tiers, lowest first.
func Tiers() []Tier { return []Tier{Experimental, Community, Verified} }

// ParseTier returns s as a Tier, or an error naming the tiers when s is
// none of them.
func ParseTier(s string) (Tier, error) {
	if t := Tier(s); t.Valid() {
		return t, nil
	}
	return "", fmt.Errorf("%w %q: use verified, community or experimental", ErrUnknownTier, s)
}

// Rank orders tiers: experimental 0, community 1, verified 2, and -1 for
// anything else (so an unknown tier is below every tier).
func (t Tier) Rank() int {
	switch t {
	case Experimental:
		return 0
	case Community:
		return 1
	case Verified:
		return 2
	}
	return -1
}

// Valid reports whether t is one of the three tiers.
func (t Tier) Valid() bool { return t.Rank() >= 0 }

// Compare returns -1, 0 or +1 as t is below, equal to or above u, by rank.
func (t Tier) Compare(u Tier) int {
	switch a, b := t.Rank(), u.Rank(); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// AtLeast reports whether t is min or above it; every tier is at least
// the empty tier (no minimum).
func (t Tier) AtLeast(min Tier) bool { return min == "" || t.Compare(min) >= 0 }

// CheckMin refuses t below min: nil when t is at least min (an empty min
// asks for nothing), else an error wrapping ErrBelowMinTier in the one
// wording every minimum tier check uses, "WHAT is T, below the minimum
// tier MIN", what naming the skill (name@version). The sentinel's text is
// the middle of the sentence.
func (t Tier) CheckMin(what string, min Tier) error {
	if t.AtLeast(min) {
		return nil
	}
	return fmt.Errorf("%s is %s, %w %s", what, t, ErrBelowMinTier, min)
}

// Lower returns the lower of t and u (t when they rank the same).
func (t Tier) Lower(u Tier) Tier {
	if u.Compare(t) < 0 {
		return u
	}
	return t
}

// String returns the tier's name.
func (t Tier) String() string { return string(t) }
