package registry

import (
	"context"
	"fmt"
	"slices"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/pkg/audit/attest"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
)

// Audit attestations are Sigstore bundles of in-toto statements of type
// attest.PredicateType, attached to a skill manifest exactly as signatures
// are (AttachBundle with that predicate type). A trust policy rule with
// requireAudit grants its tier only when one of the signers of a counting
// attestation matches: see AuditVerification.Signers.

// AuditAttestation is an audit attestation attached to a published
// version: which version, who signed it, the referrer carrying it and the
// verdict it states.
type AuditAttestation struct {
	Attached
	Predicate attest.Predicate `json:"predicate"`
}

// Attached names a signed referrer attached to a published version: the
// version (Name, Version, Repository, Digest), who signed it (Signer) and
// the referrer's digest. AuditAttestation and VersionSignature embed it,
// so their JSON objects begin with the same six keys.
type Attached struct {
	Name       string        `json:"name"`
	Version    string        `json:"version"`
	Repository string        `json:"repository"`
	Digest     string        `json:"digest"`
	Signer     sign.Identity `json:"signer"`
	Referrer   string        `json:"referrer"`
}

// AuditAttestationCheck is the outcome of one audit attestation attached
// to a skill.
type AuditAttestationCheck struct {
	// Referrer is the referrer manifest carrying the bundle.
	Referrer ocispec.Descriptor
	// Created is the referrer's (unauthenticated) created annotation.
	Created string
	// Signer is who signed it, nil when it failed to verify.
	Signer *sign.Identity
	// Predicate is the signed predicate, nil when it failed to verify.
	Predicate *attest.Predicate
	// Counts is true when the attestation verified, its verdict passes
	// (pass or review) and it was judged at the tier the skill claims or
	// above: only then may its signer satisfy requireAudit.
	Counts bool
	// Note says why a verified attestation does not count.
	Note string
	// Err says why it failed to verify or could not be read.
	Err error
}

// AuditVerification is what [Repository.VerifyAudits] found.
type AuditVerification struct {
	// Manifest is the skill manifest the attestations are about.
	Manifest ocispec.Descriptor
	// Checks has one entry per audit attestation referrer: the readable
	// bundles oldest first, then the unreadable referrers.
	Checks []AuditAttestationCheck
}

// Signers returns the distinct signers of the attestations that count, in
// first-seen order: what policycheck.VerifyOptions.AuditSigners takes.
func (a *AuditVerification) Signers() []sign.Identity {
	if a == nil {
		return nil
	}
	var out []sign.Identity
	for _, c := range a.Checks {
		if c.Counts && !slices.Contains(out, *c.Signer) {
			out = append(out, *c.Signer)
		}
	}
	return out
}

// VerifyAudits reads the audit attestations attached to m and verifies each
// against trust (the same material as signatures: policycheck.PolicyTrust)
// for m's digest. An attestation counts when it verifies, its verdict is pass or
// review, and its verdict tier is at least the tier m claims (a verdict at
// a lower tier says nothing about the stricter one). A block verdict never
// counts, whoever signed it. The error is for a registry that cannot be
// read or unusable trust options, never for a bad attestation.
func (r *Repository) VerifyAudits(ctx context.Context, m *SkillVersion, trust sign.VerifyOptions) (*AuditVerification, error) {
	set, err := r.Bundles(ctx, m.Descriptor, attest.PredicateType)
	if err != nil {
		return nil, err
	}
	return r.verifyAudits(ctx, m, set, trust)
}

// VerifyAuditsFrom is [Repository.VerifyAudits] over refs, a listing of
// m's referrers obtained elsewhere (a signed sparse index): every referrer
// and bundle is still read by digest and verified over m's digest.
func (r *Repository) VerifyAuditsFrom(ctx context.Context, m *SkillVersion, refs []ocispec.Descriptor, trust sign.VerifyOptions) (*AuditVerification, error) {
	audits, err := r.bundles(ctx, m.Descriptor, refs, attest.PredicateType)
	if err != nil {
		return nil, err
	}
	av, err := r.verifyAudits(ctx, m, audits, trust)
	if err != nil {
		return nil, fmt.Errorf("verifying audit attestations: %w", err)
	}
	return av, nil
}

// verifyAudits verifies set, the audit attestation bundles of m.
func (r *Repository) verifyAudits(ctx context.Context, m *SkillVersion, set *BundleSet, trust sign.VerifyOptions) (*AuditVerification, error) {
	av := &AuditVerification{Manifest: m.Descriptor}
	if len(set.Bundles) > 0 {
		trust.PredicateType = attest.PredicateType
		trust.Accept = nil
		res, err := sign.VerifyAttestations(ctx, set.Raw(), m.Descriptor.Digest, trust)
		if err != nil {
			return nil, err
		}
		for _, b := range set.Bundles {
			av.Checks = append(av.Checks, AuditAttestationCheck{Referrer: b.Referrer, Created: b.Created})
		}
		for _, f := range res.Failures {
			av.Checks[f.Index].Err = f.Err
		}
		claimed := m.Metadata.Tier
		if !claimed.Valid() {
			claimed = skill.TierExperimental
		}
		for _, ok := range res.Verified {
			c := &av.Checks[ok.Index]
			id := ok.Identity
			p, err := attest.Parse(ok.Predicate)
			if err != nil {
				c.Err = fmt.Errorf("signed by %s: %w", id, err)
				continue
			}
			c.Signer, c.Predicate = &id, &p
			switch {
			case !p.Passing():
				c.Note = fmt.Sprintf("verdict %s at %s: a blocking audit never satisfies requireAudit", p.Verdict.Decision, p.Verdict.Tier)
			case skill.Tier(p.Verdict.Tier).Compare(claimed) < 0:
				c.Note = fmt.Sprintf("judged at %s, below the %s the skill claims", p.Verdict.Tier, claimed)
			default:
				c.Counts = true
			}
		}
	}
	for _, u := range set.Unreadable {
		av.Checks = append(av.Checks, AuditAttestationCheck{Referrer: u.Referrer, Err: u.Err})
	}
	return av, nil
}
