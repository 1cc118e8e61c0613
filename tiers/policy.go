package tiers

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
)

// Version is the only policy file version this package reads.
const Version = 1

// Policy is a parsed trust policy. The zero value is not useful; use
// [Default], [Parse] or [Load]. A nil *Policy behaves as [Default] in every
// method.
type Policy struct {
	// Source is the file the policy was read from, "" for the built-in
	// default.
	Source string `json:"source,omitempty"`
	// Digest is "sha256:<hex>" over every byte the load read: the file
	// and the key files and trusted roots it names, "" for the built-in
	// default. It changes when any of them does, so an approval of a
	// project's policy (engine.LoadPolicy) is an approval of exactly
	// these bytes.
	Digest string `json:"digest,omitempty"`
	// Version is the file's version: 1.
	Version int `json:"version"`
	// Rules are the file's policies, in file order.
	Rules []Rule `json:"policies"`
	// Ceilings bound the permissions each tier may be granted.
	Ceilings Ceilings `json:"ceilings"`
	// Dangerous are the permissions that need consent below verified.
	Dangerous PermissionSet `json:"dangerous"`
	// TrustedRoots are Sigstore trusted root files used beside the
	// public-good root, resolved against the policy file's directory.
	TrustedRoots []string `json:"trustedRoots"`
	// Advisors name whose signed advisory feeds are obeyed, and for which
	// repositories.
	Advisors []AdvisorRule `json:"advisors,omitempty"`

	// rootData are the trusted roots' bytes the load read (and Digest
	// covers), by path.
	rootData map[string][]byte
}

// TrustedRoot returns the bytes of the trusted root file at path (one of
// TrustedRoots) as the load read them, which Digest covers, so that the
// trust material is built from what an approval approved rather than from
// a second read of the file; ok is false for a policy not read from a
// file.
func (p *Policy) TrustedRoot(path string) (data []byte, ok bool) {
	if p == nil {
		return nil, false
	}
	data, ok = p.rootData[path]
	return data, ok
}

// Rule is one entry of the policy's "policies" list: the repositories it
// covers, the tier it grants and whose signatures earn it.
type Rule struct {
	// Name identifies the rule in decisions and messages; unique in a file.
	Name string `json:"name"`
	// Scopes are the repositories covered: exact, globs, or "*".
	Scopes []string `json:"scopes"`
	// Tier is what a matching signature earns.
	Tier Tier `json:"tier"`
	// Identities are the signers whose signature earns Tier.
	Identities []IdentityRule `json:"identities"`
	// RequireAudit, when not empty, makes the rule grant its tier only when
	// one of these identities signed a passing audit attestation.
	RequireAudit []IdentityRule `json:"requireAudit,omitempty"`
}

// IdentityRule is one identity of a rule: a public key (Key or
// KeyFingerprint) or a certificate identity (an issuer form and a subject
// form).
type IdentityRule struct {
	// Key is the public key file as written in the policy; KeyFingerprint
	// is then computed from it.
	Key string `json:"key,omitempty"`
	// KeyFingerprint is "sha256:<hex>" of the key's PKIX DER.
	KeyFingerprint string `json:"keyFingerprint,omitempty"`
	// Issuer is the exact OIDC issuer; IssuerRegExp an RE2 pattern that
	// must match all of it.
	Issuer       string `json:"issuer,omitempty"`
	IssuerRegExp string `json:"issuerRegExp,omitempty"`
	// Subject is the exact certificate subject (SAN); SubjectRegExp an RE2
	// pattern that must match all of it.
	Subject       string `json:"subject,omitempty"`
	SubjectRegExp string `json:"subjectRegExp,omitempty"`

	issuerRE, subjectRE *regexp.Regexp
}

// KeyPath is the file Key names, for a policy whose file is in dir: a
// relative Key is relative to the policy file's directory.
func (r IdentityRule) KeyPath(dir string) string {
	if filepath.IsAbs(r.Key) {
		return r.Key
	}
	return filepath.Join(dir, filepath.FromSlash(r.Key))
}

// String renders the identity for people: "key keys/a.pub (sha256:…)",
// "key sha256:…", or "subject S from issuer I" with "~ /re/" for patterns.
func (r IdentityRule) String() string {
	if r.KeyFingerprint != "" || r.Key != "" {
		if r.Key != "" {
			return "key " + r.Key + " (" + r.KeyFingerprint + ")"
		}
		return "key " + r.KeyFingerprint
	}
	part := func(exact, re string) string {
		if re != "" {
			return "~ /" + re + "/"
		}
		return exact
	}
	return "subject " + part(r.Subject, r.SubjectRegExp) + " from issuer " + part(r.Issuer, r.IssuerRegExp)
}

// Ceiling is the set of permissions a tier may be granted: all of them, or
// those within the listed ones.
type Ceiling struct {
	// All allows every permission; Permissions is then ignored.
	All bool
	// Permissions are the allowed permissions; an unscoped one covers
	// every scope of its domain and level.
	Permissions PermissionSet
}

// AllPermissions is the ceiling that allows everything.
func AllPermissions() Ceiling { return Ceiling{All: true} }

// Allows reports whether p is within the ceiling.
func (c Ceiling) Allows(p skill.Permission) bool { return c.All || c.Permissions.Covers(p) }

// String renders "all" or the comma-separated list ("none" when empty).
func (c Ceiling) String() string {
	if c.All {
		return "all"
	}
	return c.Permissions.String()
}

// MarshalJSON renders "all" or a list of permission strings, as written in
// the policy file.
func (c Ceiling) MarshalJSON() ([]byte, error) {
	if c.All {
		return json.Marshal("all")
	}
	return json.Marshal(c.Permissions)
}

// Ceilings holds one ceiling per tier.
type Ceilings struct {
	// Experimental is the ceiling of experimental skills; beyond it a
	// permission needs an explicit --grant.
	Experimental Ceiling `json:"experimental"`
	// Community is the ceiling of community skills; above it, refusal.
	Community Ceiling `json:"community"`
	// Verified is the ceiling of verified skills; above it, refusal.
	Verified Ceiling `json:"verified"`
}

// For returns the ceiling of a valid tier; anything else gets the
// experimental ceiling.
func (c Ceilings) For(tier Tier) Ceiling {
	switch tier {
	case skill.TierVerified:
		return c.Verified
	case skill.TierCommunity:
		return c.Community
	}
	return c.Experimental
}

func (c *Ceilings) set(tier Tier, v Ceiling) {
	switch tier {
	case skill.TierVerified:
		c.Verified = v
	case skill.TierCommunity:
		c.Community = v
	default:
		c.Experimental = v
	}
}

// PermissionSet is a list of permissions that renders as strings.
type PermissionSet []skill.Permission

// Covers reports whether p is within any permission of the set.
func (s PermissionSet) Covers(p skill.Permission) bool {
	for _, g := range s {
		if p.Within(g) {
			return true
		}
	}
	return false
}

// Strings returns the permissions in their declared form.
func (s PermissionSet) Strings() []string {
	out := make([]string, len(s))
	for i, p := range s {
		out[i] = p.String()
	}
	return out
}

// String renders the permissions comma-separated, "none" when empty.
func (s PermissionSet) String() string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s.Strings(), ", ")
}

// MarshalJSON renders the permissions as a list of strings.
func (s PermissionSet) MarshalJSON() ([]byte, error) { return json.Marshal(s.Strings()) }

// DefaultCeilings returns the ceilings of trust.md: experimental skills may
// read files, the network, the environment and databases; community and
// verified skills may be granted anything.
func DefaultCeilings() Ceilings {
	return Ceilings{
		Experimental: Ceiling{Permissions: PermissionSet{
			{Domain: "filesystem", Level: "read"},
			{Domain: "network", Level: "read"},
			{Domain: "env", Level: "read"},
			{Domain: "database", Level: "read"},
		}},
		Community: AllPermissions(),
		Verified:  AllPermissions(),
	}
}

// DefaultDangerous returns the permissions that need consent by default:
// running commands, controlling the desktop, and writing to databases and
// the network.
func DefaultDangerous() PermissionSet {
	return PermissionSet{
		{Domain: "shell", Level: "execute"},
		{Domain: "desktop", Level: "control"},
		{Domain: "database", Level: "write"},
		{Domain: "network", Level: "write"},
	}
}

// Default returns the built-in policy used when no policy file exists: no
// rules, so every skill is experimental, with the default ceilings and
// dangerous set.
func Default() *Policy {
	return &Policy{
		Version:      Version,
		Rules:        []Rule{},
		Ceilings:     DefaultCeilings(),
		Dangerous:    DefaultDangerous(),
		TrustedRoots: []string{},
	}
}

func (p *Policy) orDefault() *Policy {
	if p == nil {
		return Default()
	}
	return p
}

// IsDefault reports whether the policy is the built-in default rather than
// one read from a file.
func (p *Policy) IsDefault() bool { return p == nil || p.Source == "" }
