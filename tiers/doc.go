// Package tiers decides trust: which tier a signed skill earns under a trust
// policy, and which of its declared permissions may be granted at that tier.
// It reads the policy file and the public key files the policy names, and
// nothing else: verification (package sign) and prompting (the CLI) happen
// elsewhere and reach this package as data ([sign.Identity] values) and as an
// interface ([Prompter]).
//
// # Repositories and scopes
//
// A policy's scopes are matched against a canonical repository string, made
// by [Repository] from a source and a skill name as "<source>/<name>":
//
//	ghcr.io/acme/skills/web-research        a remote registry namespace
//	oci-layout:/srv/bundle/web-research     a directory of OCI layouts (absolute, cleaned)
//	embedded/web-research                   the embedded default registry ([EmbeddedSource])
//	git:github.com/acme/skills              a git repository a skill was built from, for
//	                                        the SSH signature of its commit (host and path,
//	                                        whatever the protocol; git:file:/DIR for a local one)
//
// A scope is either exact (no glob characters) or a glob matched one
// '/'-separated segment at a time with [path.Match] semantics: '*' and '?'
// never cross a '/', so "ghcr.io/acme/*" does not cover
// "ghcr.io/acme/other-team/x". A segment that is exactly "**" matches zero
// or more whole segments ("ghcr.io/acme/**"), and the scope "*" on its own
// matches every repository. Matching is case-sensitive.
//
// When the same signer is trusted by several policies whose scopes match, the
// most specific scope decides for that signer: an exact scope beats any
// glob, a longer glob (by length in bytes) beats a shorter one, and any glob
// beats "*". Policies at the same specificity give the highest of their
// tiers. The attested tier is then the highest tier any verified signer
// earns, so a countersignature by an auditor that a policy trusts raises the
// tier, and an exact scope can lower what a broad policy would give the same
// signer.
//
// # Identities
//
// A key identity matches a signature whose key fingerprint is equal
// ("sha256:" + hex of the PKIX DER public key, as in package sign). A
// certificate identity needs an issuer (issuer or issuerRegExp) and a
// subject (subject or subjectRegExp). Regular expressions use Go's RE2
// syntax and must match the whole value: they are anchored as if written
// "^(?:…)$", so "github\.com/acme/.*" cannot match a subject that merely
// contains it.
//
// # Claims
//
// The effective tier is the lower of the attested tier and the tier the
// skill claims in metadata.gaia.security_tier: a claim never raises a
// tier. A skill that claims none is decided by the policy alone (its
// attested tier), since most published skills claim nothing; [DecidedBy]
// says whether the claim, a missing signature or the policy made a skill
// experimental, and every refusal of one says which.
//
// # Audit attestations
//
// A policy with requireAudit grants its tier only when one of the identities
// that signed a passing audit attestation for the same digest matches one of
// its requireAudit identities. The caller verifies attestations and passes
// their signers in [EvalOptions.AuditSigners]. A policy whose requirement is
// not met is skipped as if its identities had not matched, so a broader
// policy may still apply; the [Decision] says which requirement failed.
//
// # Ceilings and grants
//
// [Policy.CheckSet] decides a whole set of skills before anything is
// written: either every permission of every skill is granted, with what
// granted it recorded per permission, or the install is refused with every
// refusal listed. It asks the [Prompter] only when nothing in the set is
// refused outright.
package tiers
