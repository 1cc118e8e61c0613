package engine

import (
	"context"
	"fmt"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/tiers"
)

// VerifyResult is what Verify found: the signatures of a published
// version and the tier the trust policy gives it.
type VerifyResult struct {
	// Manifest is the version verified.
	Manifest *registry.SkillVersion
	// Verification has the repository read (Location), every signature
	// check, the verified signers and the tier decision.
	*policycheck.Verification
	// Audits are the audit attestations, verified with the same trust
	// material; those that count feed the decision.
	Audits *registry.AuditVerification
	// Policy is the trust policy that decided.
	Policy *tiers.Policy
}

// VerifyRequest is one verification.
type VerifyRequest struct {
	// Ref names the published version, as for Sign (a directory is
	// refused: it is not published).
	Ref string
	// MinTier refuses a version whose effective tier is below it.
	MinTier string
}

// resolveRef opens the repository ref names (a bare name in Source, else
// FallbackSource, else the embedded registry) and fetches the manifest it
// selects. A local directory is refused (ErrInvalidRequest): it is not
// published.
func (e *Engine) resolveRef(ctx context.Context, ref string) (*registry.Repository, *registry.SkillVersion, error) {
	r, err := source.ParseRef(ref)
	if err != nil {
		return nil, nil, err
	}
	if r.Kind == source.RefDir {
		return nil, nil, invalid(fmt.Errorf("%s is a directory, not a published skill (NAME[@VERSION], REGISTRY/NAMESPACE/NAME or oci-layout:DIR/NAME): publish it first (skillpm publish %s)", ref, ref))
	}
	def, err := e.openSource(e.opts.Source)
	if err != nil {
		return nil, nil, err
	}
	repo, err := e.client.OpenRef(r, def)
	if err != nil {
		return nil, nil, err
	}
	m, err := repo.Get(ctx, r.Selector, e.opts.Prerelease)
	if err != nil {
		return nil, nil, err
	}
	e.decideRef(r.Selector, e.opts.Prerelease, m)
	return repo, m, nil
}

// Verify verifies every signature attached to the version r.Ref names
// against the trust policy and returns the tier it gets, as `skillpm
// verify` does. The VerifyResult is returned also when the version is
// refused: not signed or no signature verifies (policycheck.ErrNotSigned,
// ErrNoVerifiedSignature: [policycheck.Verification.Refused]), or below
// r.MinTier (skill.ErrBelowMinTier: tiers.CheckMinTier); each wraps
// tiers.ErrRefused.
func (e *Engine) Verify(ctx context.Context, r VerifyRequest) (*VerifyResult, error) {
	if r.MinTier != "" && !tiers.ValidTier(r.MinTier) {
		return nil, invalid(fmt.Errorf("minimum tier %q: use experimental, community or verified", r.MinTier))
	}
	repo, m, err := e.resolveRef(ctx, r.Ref)
	if err != nil {
		return nil, err
	}
	return e.verifyManifest(ctx, repo, m, r.MinTier)
}

// verifyManifest is Verify for a version already fetched.
func (e *Engine) verifyManifest(ctx context.Context, repo *registry.Repository, m *registry.SkillVersion, minTier string) (*VerifyResult, error) {
	policy, trust, err := e.trustPolicy(ctx)
	if err != nil {
		return nil, err
	}
	opts := policycheck.VerifyOptions{Trust: trust, Policy: policy}
	av, err := repo.VerifyAudits(ctx, m, opts.Trust)
	if err != nil {
		return nil, err
	}
	opts.AuditSigners = av.Signers()
	v, err := policycheck.VerifySkill(ctx, repo, m, opts)
	if err != nil {
		return nil, err
	}
	out := &VerifyResult{Manifest: m, Verification: v, Audits: av, Policy: policy}
	at := m.Metadata.Name + "@" + m.Metadata.Version
	if e.decides() {
		for _, why := range v.Decision.Why {
			e.decide(fmt.Sprintf("%s: tier %s: %s", at, v.Decision.Effective, why))
		}
	}
	if err := v.Refused(at); err != nil {
		return out, err
	}
	return out, tiers.CheckMinTier(at, v.Decision.Effective, tiers.Tier(minTier))
}
