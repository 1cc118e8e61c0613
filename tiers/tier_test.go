package tiers

import (
	"errors"
	"testing"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
)

// TestCheckMinTier: a tier below the minimum is a trust refusal
// (ErrRefused) and skill.ErrBelowMinTier, in the one wording; at or above
// it, or with no minimum, nothing is refused.
func TestCheckMinTier(t *testing.T) {
	err := CheckMinTier("notes@1.0.0", Community, Verified)
	if !errors.Is(err, ErrRefused) || !errors.Is(err, skill.ErrBelowMinTier) || errdef.ClassOf(err) != errdef.Trust {
		t.Errorf("community below verified: %v, want ErrRefused and ErrBelowMinTier of class Trust", err)
	}
	if want := "notes@1.0.0 is community, below the minimum tier verified"; err == nil || err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	for _, min := range []Tier{"", Experimental, Community} {
		if err := CheckMinTier("notes@1.0.0", Community, min); err != nil {
			t.Errorf("community with minimum %q: %v", min, err)
		}
	}
}
