// Package policycheck is what the registry does under a trust policy: the
// trust material a policy names ([PolicyTrust]), a skill's signatures
// verified and judged by the policy ([VerifySkill]), and the search and
// mirror that verify as they go ([Search], [MirrorCheck]). The registry
// client below it reads and verifies signatures; which tier they earn is
// decided here, so the transport does not depend on the policy.
package policycheck

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
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

// maxKeyFileBytes bounds a public key file named in a policy.
const maxKeyFileBytes = 64 << 10

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
// policy p: the public keys its identities name (`key:` files, in rules,
// requireAudit and advisors), its trusted roots, the public-good Sigstore root and
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
		ids := []tiers.IdentityRule{}
		for _, rule := range p.Rules {
			ids = append(append(ids, rule.Identities...), rule.RequireAudit...)
		}
		for _, rule := range p.Advisors {
			ids = append(ids, rule.Identities...)
		}
		for _, id := range ids {
			if id.Key == "" {
				continue
			}
			k, err := policyKey(ctx, dir, p.Source, id)
			if err != nil {
				return sign.VerifyOptions{}, err
			}
			addKey(k)
		}
		for _, path := range p.TrustedRoots {
			var tr *root.TrustedRoot
			var err error
			if data, ok := p.TrustedRoot(path); ok {
				if tr, err = sign.ParseTrustedRoot(data); err != nil {
					err = fmt.Errorf("%s: %w", path, err)
				}
			} else {
				tr, err = sign.LoadTrustedRoot(ctx, path)
			}
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
	f, err := boundedfile.OpenRegular(id.KeyPath(dir))
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

// VerifyOptions controls [VerifySkill].
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

// Verification is what [VerifySkill] found: every signature with its
// outcome, the verified signers, and the tier the policy gives.
type Verification struct {
	registry.SignatureVerification
	// Decision is the policy's tier decision over Signers.
	Decision tiers.Decision
}

// Refused says why the version verified is refused whatever its tier: no
// signature is attached (ErrNotSigned) or none verifies with the trust
// material (ErrNoVerifiedSignature), each also tiers.ErrRefused; nil when
// a signature verified. what names the version (name@version).
func (v *Verification) Refused(what string) error {
	switch {
	case len(v.Checks) == 0:
		return errdef.Mark(tiers.ErrRefused, fmt.Errorf("%s (%s) is %w: no signature is attached", what, v.Manifest.Digest, ErrNotSigned))
	case len(v.Signers) == 0:
		return errdef.Mark(tiers.ErrRefused, fmt.Errorf("%s: %w (%d failed); the trust policy names no key or root that signed it", what, ErrNoVerifiedSignature, len(v.Checks)))
	}
	return nil
}

// VerifySkill reads the signatures attached to m in r, verifies each
// against opts.Trust for m's digest, and evaluates the verified signers
// under opts.Policy with the tier m claims. A signature that fails
// (another digest, an untrusted key, a tampered bundle, an unreadable
// referrer) is in Checks with why and never counts. The error is for a
// registry that cannot be read or unusable trust options, never for a bad
// signature.
func VerifySkill(ctx context.Context, r *registry.Repository, m *registry.SkillVersion, opts VerifyOptions) (*Verification, error) {
	sv, err := r.VerifySignatures(ctx, m, opts.Trust)
	if err != nil {
		return nil, err
	}
	return decide(sv, m, opts), nil
}

// VerifyWithAudits is [registry.Repository.VerifyAudits] then
// [VerifySkill] over one listing of m's referrers: the signers of passing
// audit attestations are added to opts.AuditSigners, so they count for a
// policy's requireAudit.
func VerifyWithAudits(ctx context.Context, r *registry.Repository, m *registry.SkillVersion, opts VerifyOptions) (*Verification, *registry.AuditVerification, error) {
	refs, err := r.Referrers(ctx, m.Descriptor, "")
	if err != nil {
		return nil, nil, err
	}
	return VerifyWithAuditsFrom(ctx, r, m, refs, opts)
}

// VerifyWithAuditsFrom is [VerifyWithAudits] over refs, a listing of m's
// referrers obtained elsewhere (a signed sparse index) instead of asking
// the registry for one. Every referrer and bundle is still read by digest
// and every signature verified over m's digest: a listing can leave a
// signature out, never add one that does not verify.
func VerifyWithAuditsFrom(ctx context.Context, r *registry.Repository, m *registry.SkillVersion, refs []ocispec.Descriptor, opts VerifyOptions) (*Verification, *registry.AuditVerification, error) {
	av, err := r.VerifyAuditsFrom(ctx, m, refs, opts.Trust)
	if err != nil {
		return nil, nil, err
	}
	sv, err := r.VerifySignaturesFrom(ctx, m, refs, opts.Trust)
	if err != nil {
		return nil, nil, err
	}
	opts.AuditSigners = append(slices.Clip(opts.AuditSigners), av.Signers()...)
	return decide(sv, m, opts), av, nil
}

// decide evaluates the policy over the verified signers of m.
func decide(sv *registry.SignatureVerification, m *registry.SkillVersion, opts VerifyOptions) *Verification {
	d := tiers.Evaluate(opts.Policy, sv.Repository, sv.Signers, m.Metadata.Tier, tiers.EvalOptions{AuditSigners: opts.AuditSigners})
	return &Verification{SignatureVerification: *sv, Decision: d}
}
