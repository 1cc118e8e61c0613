package policycheck

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
)

// MirrorCheck returns the check [registry.Client.Mirror] runs on each
// version before copying it (registry.MirrorOptions.Verify): the version's
// signatures are verified under opts and its layer checked against what
// the manifest states, and it is refused when no signature verifies or the
// layer does not match. The tier it vouches for is the policy's effective
// tier.
func MirrorCheck(opts VerifyOptions) registry.VersionCheck {
	return func(ctx context.Context, repo *registry.Repository, version string, m *registry.SkillVersion) (skill.Tier, error) {
		v, err := VerifySkill(ctx, repo, m, opts)
		if err != nil {
			return "", err
		}
		// The tier and permissions a mirror vouches for are the layer's.
		if err := repo.CheckLayer(ctx, m); err != nil {
			if errors.Is(err, registry.ErrContentMismatch) {
				return "", fmt.Errorf("%w: %w", registry.ErrUnverified, err)
			}
			return "", err
		}
		if len(v.Signers) == 0 {
			return v.Decision.Effective, fmt.Errorf("%s@%s (%s): %w: no signature verifies (%d attached)", repo.Location(), version, m.Descriptor.Digest, registry.ErrUnverified, len(v.Checks))
		}
		return v.Decision.Effective, nil
	}
}
