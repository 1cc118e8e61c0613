package registry

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/pkg/audit/attest"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/tiers"
)

// TrustOptions controls [PolicyTrust].
type TrustOptions struct {
	// PublicGoodRoot is a refreshed public-good trusted_root.json to use
	// instead of the one embedded in skillpm; "" means the embedded one.
	PublicGoodRoot string
	// NoPublicGood leaves the public-good Sigstore out: only the policy's
	// keys and trusted roots (a private Sigstore) are trusted.
	NoPublicGood bool
	// Keys are public keys trusted beyond those the policy names, such as
	// `skillpm verify --key`. A signature by one verifies (its signer is
	// reported), but only the policy decides what tier its signer earns:
	// a policy identity given only as keyFingerprint needs its key here.
	Keys []crypto.PublicKey
}

// PolicyTrust returns the trust material to verify signatures with under
// policy p: the public keys its identities name (`key:` files, in rules
// and requireAudit), its trusted roots, the public-good Sigstore root and
// opts.Keys. A key file that changed since the policy was loaded (another
// fingerprint) is an error, so that a policy is never checked against
// another key than it was read with.
func PolicyTrust(ctx context.Context, p *tiers.Policy, opts TrustOptions) (sign.VerifyOptions, error) {
	var vo sign.VerifyOptions
	seen := map[string]bool{}
	addKey := func(k crypto.PublicKey) {
		if fp := sign.Fingerprint(k); !seen[fp] {
			seen[fp] = true
			vo.PublicKeys = append(vo.PublicKeys, k)
		}
	}
	if p != nil {
		dir := filepath.Dir(p.Source)
		for _, rule := range p.Rules {
			for _, id := range append(append([]tiers.IdentityRule{}, rule.Identities...), rule.RequireAudit...) {
				if id.Key == "" {
					continue
				}
				k, err := policyKey(ctx, dir, p.Source, id)
				if err != nil {
					return sign.VerifyOptions{}, err
				}
				addKey(k)
			}
		}
		for _, path := range p.TrustedRoots {
			tr, err := sign.LoadTrustedRoot(ctx, path)
			if err != nil {
				return sign.VerifyOptions{}, fmt.Errorf("trust policy %s: trusted root: %w", p.Source, err)
			}
			vo.TrustedRoots = append(vo.TrustedRoots, tr)
		}
	}
	for _, k := range opts.Keys {
		if sign.Fingerprint(k) == "" {
			return sign.VerifyOptions{}, fmt.Errorf("%w: a trusted key has no PKIX encoding (%T)", sign.ErrUnsupportedKey, k)
		}
		addKey(k)
	}
	if !opts.NoPublicGood {
		tr, err := sign.LoadPublicGoodTrustedRoot(ctx, opts.PublicGoodRoot)
		if err != nil {
			return sign.VerifyOptions{}, fmt.Errorf("public-good trusted root: %w", err)
		}
		vo.TrustedRoots = append([]root.TrustedMaterial{tr}, vo.TrustedRoots...)
	}
	return vo, nil
}

// policyKey reads the public key file a policy identity names, relative to
// the policy's directory, and checks it is still the key the policy was
// loaded with.
func policyKey(ctx context.Context, dir, source string, id tiers.IdentityRule) (crypto.PublicKey, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path := id.Key
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, filepath.FromSlash(path))
	}
	f, err := boundedfile.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("trust policy %s: key %s: %w", source, id.Key, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	if err == nil && len(data) > maxKeyFileBytes {
		err = errors.New("too large to be a public key")
	}
	if err != nil {
		return nil, fmt.Errorf("trust policy %s: key %s: %w", source, id.Key, err)
	}
	k, err := sign.LoadPublicKey(data)
	if err != nil {
		return nil, fmt.Errorf("trust policy %s: key %s: %w", source, id.Key, err)
	}
	if fp := sign.Fingerprint(k); id.KeyFingerprint != "" && fp != id.KeyFingerprint {
		return nil, fmt.Errorf("trust policy %s: key %s changed since the policy was read (%s, was %s)", source, id.Key, fp, id.KeyFingerprint)
	}
	return k, nil
}

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

// VerifyOptions controls [Repository.VerifySkill].
type VerifyOptions struct {
	// Trust is the trust material ([PolicyTrust]).
	Trust sign.VerifyOptions
	// Policy decides the tier; nil means the built-in default (everything
	// experimental).
	Policy *tiers.Policy
	// AuditSigners are the verified signers of passing audit attestations
	// for the same digest, for policies with requireAudit.
	AuditSigners []sign.Identity
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

// Verification is what [Repository.VerifySkill] found: every signature
// with its outcome, the verified signers, and the tier the policy gives.
type Verification struct {
	// Repository is the canonical repository policies were matched
	// against ([Repository.TrustRepository]).
	Repository string
	// Manifest is the skill manifest verified.
	Manifest ocispec.Descriptor
	// Checks has one entry per signature referrer: the readable bundles in
	// order, then the unreadable referrers.
	Checks []SignatureCheck
	// Signers are the distinct verified identities, in first-seen order:
	// what the lockfile pins (tiers.CheckSigners).
	Signers []sign.Identity
	// Decision is the policy's tier decision over Signers.
	Decision tiers.Decision
}

// Verified returns the number of signatures that verified.
func (v *Verification) Verified() int { return len(v.Checks) - len(v.Failures()) }

// Failures returns the signatures that did not verify, with why. They
// never raise a tier.
func (v *Verification) Failures() []SignatureCheck {
	var out []SignatureCheck
	for _, c := range v.Checks {
		if c.Err != nil {
			out = append(out, c)
		}
	}
	return out
}

// VerifySkill reads the signatures attached to m, verifies each against
// opts.Trust for m's digest, and evaluates the verified signers under
// opts.Policy with the tier m claims. A signature that fails (another
// digest, an untrusted key, a tampered bundle, an unreadable referrer) is
// in Checks with why and never counts. The error is for a registry that
// cannot be read or unusable trust options, never for a bad signature.
func (r *Repository) VerifySkill(ctx context.Context, m *Manifest, opts VerifyOptions) (*Verification, error) {
	set, err := r.Signatures(ctx, m.Descriptor)
	if err != nil {
		return nil, err
	}
	return r.verifySignatures(ctx, m, set, opts)
}

// VerifyWithAudits is [Repository.VerifyAudits] then
// [Repository.VerifySkill] over one listing of m's referrers: the signers
// of passing audit attestations are added to opts.AuditSigners, so they
// count for a policy's requireAudit.
func (r *Repository) VerifyWithAudits(ctx context.Context, m *Manifest, opts VerifyOptions) (*Verification, *AuditVerification, error) {
	refs, err := r.Referrers(ctx, m.Descriptor, "")
	if err != nil {
		return nil, nil, err
	}
	return r.VerifyWithAuditsFrom(ctx, m, refs, opts)
}

// VerifyWithAuditsFrom is [Repository.VerifyWithAudits] over refs, a
// listing of m's referrers obtained elsewhere (a signed sparse index)
// instead of asking the registry for one. Every referrer and bundle is
// still read by digest and every signature verified over m's digest: a
// listing can leave a signature out, never add one that does not verify.
func (r *Repository) VerifyWithAuditsFrom(ctx context.Context, m *Manifest, refs []ocispec.Descriptor, opts VerifyOptions) (*Verification, *AuditVerification, error) {
	audits, err := r.bundles(ctx, m.Descriptor, refs, attest.PredicateType)
	if err != nil {
		return nil, nil, err
	}
	av, err := r.verifyAudits(ctx, m, audits, opts.Trust)
	if err != nil {
		return nil, nil, fmt.Errorf("verifying audit attestations: %w", err)
	}
	sigs, err := r.bundles(ctx, m.Descriptor, refs, sign.PredicateType)
	if err != nil {
		return nil, nil, err
	}
	opts.AuditSigners = append(slices.Clip(opts.AuditSigners), av.Signers()...)
	v, err := r.verifySignatures(ctx, m, sigs, opts)
	if err != nil {
		return nil, nil, err
	}
	return v, av, nil
}

// verifySignatures verifies set, the signature bundles of m, and
// evaluates the policy.
func (r *Repository) verifySignatures(ctx context.Context, m *Manifest, set *BundleSet, opts VerifyOptions) (*Verification, error) {
	v := &Verification{Repository: r.TrustRepository(), Manifest: m.Descriptor}
	if len(set.Bundles) > 0 {
		res, err := sign.VerifyAll(ctx, set.Raw(), m.Descriptor.Digest, opts.Trust)
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
	v.Decision = tiers.Evaluate(opts.Policy, v.Repository, v.Signers, m.Metadata.Tier, tiers.EvalOptions{AuditSigners: opts.AuditSigners})
	return v, nil
}
