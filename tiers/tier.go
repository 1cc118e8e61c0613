package tiers

import "github.com/skillpm/skillpm/pkg/skill"

// Tier is a security tier; it is skill.Tier, named here for the trust
// policy's API (and defined with the skill model so that packages below
// the policy, such as the registry client, share the one type).
type Tier = skill.Tier

// The tiers, lowest first.
const (
	Experimental = skill.Experimental
	Community    = skill.Community
	Verified     = skill.Verified
)

// Rank orders tier names: experimental 0, community 1, verified 2, and -1
// for anything else. It takes a plain string, as flags give it.
func Rank(tier string) int { return Tier(tier).Rank() }

// ValidTier reports whether tier is one of the three tier names.
func ValidTier(tier string) bool { return Tier(tier).Valid() }

// Lower returns the lower of two valid tiers.
func Lower(a, b Tier) Tier { return a.Lower(b) }

func checkTier(tier Tier) error {
	_, err := skill.ParseTier(string(tier))
	return err
}
