package engine

import (
	"context"
	"errors"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

// PromoteRequest is one marketplace promotion: a countersignature.
type PromoteRequest struct {
	// Sign is the auditor's signing key or keyless identity.
	Sign sign.SignOptions
	// Prerelease lets a range select pre-releases.
	Prerelease bool
}

// Promotion is a countersignature and the tier the policy now gives.
type Promotion struct {
	// Signed is the countersignature (Unchanged when the key had signed
	// the version already).
	Signed *Signed
	// Verification is the version verified after the countersignature.
	*Verification
	// Trusted says a rule of the policy names the countersigner: without
	// one the countersignature raises no tier.
	Trusted bool
}

// Promote countersigns the version ref names and verifies it again, as
// `skillpm promote` does. The trust policy is loaded first, so an invalid
// one stops the promotion before anything is signed.
func (e *Engine) Promote(ctx context.Context, ref string, r PromoteRequest) (*Promotion, error) {
	if _, _, err := e.trustPolicy(ctx); err != nil {
		return nil, err
	}
	repo, m, err := e.resolveRef(ctx, ref, r.Prerelease)
	if err != nil {
		return nil, err
	}
	return e.PromoteManifest(ctx, repo, m, r)
}

// PromoteManifest is Promote for a version already fetched.
func (e *Engine) PromoteManifest(ctx context.Context, repo *registry.Repository, m *registry.Manifest, r PromoteRequest) (*Promotion, error) {
	policy, _, err := e.trustPolicy(ctx)
	if err != nil {
		return nil, err
	}
	signed, err := e.SignDigest(ctx, repo, m.Descriptor, m.Metadata.Version, r.Sign)
	if err != nil {
		return nil, err
	}
	// Verified as Verify does (audit attestations included); a version
	// below a tier is not an error here: the promotion is what it is.
	v, err := e.VerifyManifest(ctx, repo, m, VerifyRequest{})
	if v == nil {
		return nil, err
	}
	if err != nil && !errors.Is(err, tiers.ErrRefused) {
		return nil, err
	}
	return &Promotion{Signed: signed, Verification: v, Trusted: Trusts(policy, signed.Signer)}, nil
}

// Trusts reports whether any identity of any rule of p matches id.
func Trusts(p *tiers.Policy, id sign.Identity) bool {
	if p == nil {
		return false
	}
	for _, r := range p.Rules {
		for _, rid := range r.Identities {
			if rid.Matches(id) {
				return true
			}
		}
	}
	return false
}
