package tiers

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/skill"
)

// Rank orders tiers: experimental 0, community 1, verified 2, and -1 for
// anything else.
func Rank(tier string) int {
	switch tier {
	case skill.TierExperimental:
		return 0
	case skill.TierCommunity:
		return 1
	case skill.TierVerified:
		return 2
	}
	return -1
}

// ValidTier reports whether tier is one of the three tier names.
func ValidTier(tier string) bool { return Rank(tier) >= 0 }

// Lower returns the lower of two valid tiers.
func Lower(a, b string) string {
	if Rank(b) < Rank(a) {
		return b
	}
	return a
}

func checkTier(tier string) error {
	if !ValidTier(tier) {
		return fmt.Errorf("%w %q: use verified, community or experimental", ErrUnknownTier, tier)
	}
	return nil
}
