package registry

import (
	"context"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
)

// TrustRepository returns the canonical repository string trust policy
// scopes match (tiers.Repository): "embedded/<name>" for the embedded
// registry, "oci-layout:DIR/<name>" for a directory of layouts, and
// "host/namespace/<name>" for a registry.
func (r *Repository) TrustRepository() string {
	switch s := r.src.(type) {
	case *layoutSource:
		if s.dir == r.c.opts.EmbeddedDir {
			return source.Spec{}.Repository(r.name)
		}
		return source.Spec{Kind: source.KindLayout, Location: s.dir}.Repository(r.name)
	case *remoteSource:
		return source.Spec{Kind: source.KindRemote, Location: s.spec}.Repository(r.name)
	}
	if repo, err := source.Repository(r.src.String(), r.name); err == nil {
		return repo
	}
	return r.src.String() + "/" + r.name
}

// SignatureCheck is the outcome of one signature attached to a skill.
type SignatureCheck struct {
	// Referrer is the referrer manifest carrying the bundle.
	Referrer ocispec.Descriptor
	// Created is the referrer's (unauthenticated) created annotation.
	Created string
	// Signer is who signed it, nil when it failed.
	Signer *sign.Identity
	// Err says why it failed, nil when it verified. It wraps one of sign's
	// sentinel errors (a forged or foreign bundle) or one of this
	// package's (a referrer that could not be read).
	Err error
}

// SignatureVerification is what [Repository.VerifySignatures] found: every
// signature with its outcome and the verified signers. What tier they earn
// is the trust policy's to say (package registry/policycheck), not the
// transport's.
type SignatureVerification struct {
	// Location is the repository read; Repository its canonical name,
	// which policies are matched against ([Repository.TrustRepository]).
	Location   Location
	Repository string
	// Manifest is the skill manifest verified.
	Manifest ocispec.Descriptor
	// Checks has one entry per signature referrer: the readable bundles in
	// order, then the unreadable referrers.
	Checks []SignatureCheck
	// Signers are the distinct verified identities, in first-seen order:
	// what the lockfile pins (tiers.CheckSigners).
	Signers []sign.Identity
}

// Verified returns the number of signatures that verified.
func (v *SignatureVerification) Verified() int { return len(v.Checks) - len(v.Failures()) }

// Failures returns the signatures that did not verify, with why. They
// never raise a tier.
func (v *SignatureVerification) Failures() []SignatureCheck {
	var out []SignatureCheck
	for _, c := range v.Checks {
		if c.Err != nil {
			out = append(out, c)
		}
	}
	return out
}

// VerifySignatures reads the signatures attached to m and verifies each
// against trust for m's digest. A signature that fails (another digest, an
// untrusted key, a tampered bundle, an unreadable referrer) is in Checks
// with why and never counts. The error is for a registry that cannot be
// read or unusable trust options, never for a bad signature.
func (r *Repository) VerifySignatures(ctx context.Context, m *SkillVersion, trust sign.VerifyOptions) (*SignatureVerification, error) {
	set, err := r.Signatures(ctx, m.Descriptor)
	if err != nil {
		return nil, err
	}
	return r.verifySignatures(ctx, m, set, trust)
}

// VerifySignaturesFrom is [Repository.VerifySignatures] over refs, a
// listing of m's referrers obtained elsewhere (a signed sparse index)
// instead of asking the registry for one. Every referrer and bundle is
// still read by digest and every signature verified over m's digest: a
// listing can leave a signature out, never add one that does not verify.
func (r *Repository) VerifySignaturesFrom(ctx context.Context, m *SkillVersion, refs []ocispec.Descriptor, trust sign.VerifyOptions) (*SignatureVerification, error) {
	set, err := r.bundles(ctx, m.Descriptor, refs, sign.PredicateType)
	if err != nil {
		return nil, err
	}
	return r.verifySignatures(ctx, m, set, trust)
}

// verifySignatures verifies set, the signature bundles of m.
func (r *Repository) verifySignatures(ctx context.Context, m *SkillVersion, set *BundleSet, trust sign.VerifyOptions) (*SignatureVerification, error) {
	v := &SignatureVerification{Location: r.loc, Repository: r.TrustRepository(), Manifest: m.Descriptor}
	if len(set.Bundles) > 0 {
		res, err := sign.VerifyAll(ctx, set.Raw(), m.Descriptor.Digest, trust)
		if err != nil {
			return nil, err
		}
		for _, b := range set.Bundles {
			v.Checks = append(v.Checks, SignatureCheck{Referrer: b.Referrer, Created: b.Created})
		}
		for _, ok := range res.Verified {
			id := ok.Identity
			v.Checks[ok.Index].Signer = &id
		}
		for _, f := range res.Failures {
			v.Checks[f.Index].Err = f.Err
		}
		v.Signers = res.Identities()
	}
	for _, u := range set.Unreadable {
		v.Checks = append(v.Checks, SignatureCheck{Referrer: u.Referrer, Err: u.Err})
	}
	return v, nil
}
