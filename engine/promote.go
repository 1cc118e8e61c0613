package engine

import (
	"context"
	"errors"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/tiers"
)

// PromoteResult is a countersignature and the tier the policy now gives.
type PromoteResult struct {
	// Signed is the countersignature (Unchanged when the key had signed
	// the version already).
	Signed *registry.VersionSignature
	// VerifyResult is the version verified after the countersignature;
	// its Policy says whether a rule names the countersigner
	// (tiers.Policy.NamesSigner): without one the countersignature raises
	// no tier.
	*VerifyResult
}

// Promote countersigns the version r.Ref names, verifies it again and
// refreshes the namespace's sparse index, as `skillpm promote` does: a
// marketplace promotion is a countersignature, asked for as Sign asks for
// a signature (r.Sign is the auditor's key or keyless identity). The
// trust policy is loaded first, so an invalid one stops the promotion
// before anything is signed.
func (e *Engine) Promote(ctx context.Context, r SignRequest) (*PromoteResult, error) {
	if _, _, err := e.trustPolicy(ctx); err != nil {
		return nil, err
	}
	repo, m, err := e.resolveRef(ctx, r.Ref)
	if err != nil {
		return nil, err
	}
	signed, err := e.signDigest(ctx, repo, m.Descriptor, m.Metadata.Version, r.Sign)
	if err != nil {
		return nil, err
	}
	// Verified as Verify does (audit attestations included); a version
	// below a tier is not an error here: the promotion is what it is.
	v, err := e.verifyManifest(ctx, repo, m, "")
	if v == nil {
		return nil, err
	}
	if err != nil && !errors.Is(err, tiers.ErrRefused) {
		return nil, err
	}
	out := &PromoteResult{Signed: signed, VerifyResult: v}
	if !signed.Unchanged {
		e.refreshSparse(ctx, repo.Source(), []string{repo.Name()}, false, &r.Sign)
	}
	return out, nil
}
