package tiers

import (
	"context"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
)

const (
	verified     = skill.TierVerified
	community    = skill.TierCommunity
	experimental = skill.TierExperimental
)

func mustParse(t testing.TB, src string) *Policy {
	t.Helper()
	p, err := Parse(context.Background(), "policy.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func fpRule(id sign.Identity) string { return "{keyFingerprint: " + id.KeyFingerprint + "}" }

func TestMatchScope(t *testing.T) {
	tests := []struct {
		scope, repo string
		want        bool
	}{
		{"*", "ghcr.io/acme/skills/web-research", true},
		{"*", "embedded/web-research", true},
		{"**", "oci-layout:/srv/b/x", true},
		{"ghcr.io/acme/skills/*", "ghcr.io/acme/skills/web-research", true},
		{"ghcr.io/acme/skills/*", "ghcr.io/acme/skills/web/research", false},
		{"ghcr.io/acme/*", "ghcr.io/acme/other-team/x", false},
		{"ghcr.io/acme/**", "ghcr.io/acme/other-team/x", true},
		{"ghcr.io/acme/**", "ghcr.io/acme", true},
		{"ghcr.io/**/web-research", "ghcr.io/acme/skills/web-research", true},
		{"ghcr.io/**/web-research", "ghcr.io/web-research", true},
		{"ghcr.io/**/web-research", "ghcr.io/acme/skills/web-search", false},
		{"ghcr.io/acme/skills/web-*", "ghcr.io/acme/skills/web-research", true},
		{"ghcr.io/acme/skills/web-?esearch", "ghcr.io/acme/skills/web-research", true},
		{"ghcr.io/acme/skills/web-research", "ghcr.io/acme/skills/web-research", true},
		{"ghcr.io/acme/skills/web-research", "ghcr.io/acme/skills/web-research2", false},
		{"ghcr.io/acme/skills", "ghcr.io/acme/skills/web-research", false},
		{"oci-layout:/srv/bundle/*", "oci-layout:/srv/bundle/web-research", true},
		{"embedded/*", "embedded/web-research", true},
		{"embedded/*", "ghcr.io/web-research", false},
		{"ghcr.io/acme/[", "ghcr.io/acme/[", false},
		{"ghcr.io/ACME/*", "ghcr.io/acme/x", false},
	}
	for _, tt := range tests {
		if got := MatchScope(tt.scope, tt.repo); got != tt.want {
			t.Errorf("MatchScope(%q, %q) = %v, want %v", tt.scope, tt.repo, got, tt.want)
		}
	}
}

func TestRepository(t *testing.T) {
	tests := []struct{ source, name, want string }{
		{"", "web-research", "embedded/web-research"},
		{"ghcr.io/acme/skills", "web-research", "ghcr.io/acme/skills/web-research"},
		{"ghcr.io/acme/skills/", "web-research", "ghcr.io/acme/skills/web-research"},
		{"oci-layout:/srv/bundle/../bundle/", "web-research", "oci-layout:/srv/bundle/web-research"},
	}
	for _, tt := range tests {
		if got, err := Repository(tt.source, tt.name); err != nil || got != tt.want {
			t.Errorf("Repository(%q, %q) = %q, %v, want %q", tt.source, tt.name, got, err, tt.want)
		}
	}
	// The one source grammar: what the registry and the resolver refuse,
	// the trust policy refuses too.
	for _, bad := range []string{"not a host", "skills", "oci-layout:", "ghcr.io//x"} {
		if got, err := Repository(bad, "x"); err == nil {
			t.Errorf("Repository(%q) = %q, want an error", bad, got)
		}
	}
}

// TestScopePrecedence: for the same signer, an exact scope beats a glob, a
// longer glob beats a shorter one, and a glob beats "*", whichever tier is
// higher and whatever the file order.
func TestScopePrecedence(t *testing.T) {
	pub := keyID(t, "publisher")
	id := fpRule(pub)
	rule := func(name, scope, tier string) string {
		return "  - name: " + name + "\n    scopes: [\"" + scope + "\"]\n    tier: " + tier + "\n    identities: [" + id + "]\n"
	}
	src := "version: 1\npolicies:\n" +
		rule("everything", "*", verified) +
		rule("acme-glob", "ghcr.io/acme/*", experimental) +
		rule("acme-skills-glob", "ghcr.io/acme/skills/*", community) +
		rule("web-research", "ghcr.io/acme/skills/web-research", experimental) +
		rule("deep-glob", "ghcr.io/acme/**", verified)
	p := mustParse(t, src)
	tests := []struct {
		repo   string
		tier   Tier
		policy string
	}{
		{"ghcr.io/acme/skills/web-research", experimental, "web-research"},     // exact beats every glob
		{"ghcr.io/acme/skills/web-search", community, "acme-skills-glob"},      // longer glob beats shorter ones and *
		{"ghcr.io/acme/tools", verified, "deep-glob"},                          // ghcr.io/acme/** (15) beats ghcr.io/acme/* (14)
		{"ghcr.io/other/x", verified, "everything"},                            // only * matches
		{"embedded/web-research", verified, "everything"},                      //
		{"ghcr.io/acme/skills/web-research/sub", verified, "deep-glob"},        // only ** crosses segments
		{"oci-layout:/srv/bundle/web-research", verified, "everything"},        //
		{"ghcr.io/acme/skills/web-research-v2", community, "acme-skills-glob"}, // not exact
	}
	for _, tt := range tests {
		d := Evaluate(p, tt.repo, []sign.Identity{pub}, verified, EvalOptions{})
		if d.Attested != tt.tier || d.Policy != tt.policy {
			t.Errorf("%s: attested %s by %s, want %s by %s\nwhy: %s", tt.repo, d.Attested, d.Policy, tt.tier, tt.policy, strings.Join(d.Why, "\n"))
		}
	}
	d := Evaluate(p, "ghcr.io/acme/skills/web-research", []sign.Identity{pub}, verified, EvalOptions{})
	if !whyContains(d, "more specific") {
		t.Errorf("why does not explain the precedence: %q", d.Why)
	}
}

// TestSameRankHighestTier: policies at the same specificity give the
// highest of their tiers.
func TestSameRankHighestTier(t *testing.T) {
	pub := keyID(t, "publisher")
	p := mustParse(t, "version: 1\npolicies:\n"+
		"  - {name: a, scopes: ['*'], tier: community, identities: ["+fpRule(pub)+"]}\n"+
		"  - {name: b, scopes: ['*'], tier: verified, identities: ["+fpRule(pub)+"]}\n")
	if d := Evaluate(p, "embedded/x", []sign.Identity{pub}, verified, EvalOptions{}); d.Attested != verified || d.Policy != "b" {
		t.Errorf("attested %s by %s", d.Attested, d.Policy)
	}
}

func whyContains(d Decision, s string) bool {
	for _, w := range d.Why {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

// TestClaimCapped: a claim above the attested tier is capped with a
// warning; a claim below it lowers the effective tier; with none the
// policy decides (the attested tier), and an unknown one is experimental.
func TestClaimCapped(t *testing.T) {
	p := loadDemo(t)
	pub := []sign.Identity{keyID(t, "publisher")}
	tests := []struct {
		claimed, effective Tier
		warn               bool
	}{
		{verified, community, true},
		{community, community, false},
		{experimental, experimental, false},
		{"", community, false},
		{"gold", experimental, true},
	}
	for _, tt := range tests {
		d := Evaluate(p, "ghcr.io/someone/x", pub, tt.claimed, EvalOptions{})
		if d.Attested != community || d.Effective != tt.effective || (len(d.Warnings) > 0) != tt.warn {
			t.Errorf("claim %q: attested %s effective %s warnings %q", tt.claimed, d.Attested, d.Effective, d.Warnings)
		}
	}
	d := Evaluate(p, "ghcr.io/someone/x", pub, verified, EvalOptions{})
	if !strings.Contains(d.Warnings[0], "claims verified but the trust policy attests only community") {
		t.Errorf("warning = %q", d.Warnings)
	}
	// No claim and no trusted signer: experimental, as before.
	if d := Evaluate(p, "ghcr.io/someone/x", nil, "", EvalOptions{}); d.Effective != experimental || d.Claimed != "" {
		t.Errorf("unsigned, no claim: claimed %q effective %s", d.Claimed, d.Effective)
	}
}

// TestDecidedBy: a refusal names what made the skill experimental.
func TestDecidedBy(t *testing.T) {
	for _, tt := range []struct {
		claimed, attested Tier
		signers           []string
		want              string
	}{
		{experimental, community, []string{"k"}, DecidedByClaim},
		{"", experimental, nil, DecidedBySignature},
		{community, experimental, nil, DecidedBySignature},
		{"", experimental, []string{"k"}, DecidedByPolicy},
	} {
		if by, why := DecidedBy(tt.claimed, tt.attested, tt.signers); by != tt.want || why == "" {
			t.Errorf("DecidedBy(%q, %q, %q) = %s, %q; want %s", tt.claimed, tt.attested, tt.signers, by, why, tt.want)
		}
	}
}

// TestCountersignature: the publisher alone earns community; the auditor's
// countersignature on the same digest promotes to verified; a new version
// (a new digest, no signature yet) is experimental.
func TestCountersignature(t *testing.T) {
	p := loadDemo(t)
	pub, aud := keyID(t, "publisher"), keyID(t, "auditor")
	repo := "ghcr.io/someone/skills/web-research"
	tests := []struct {
		name   string
		ids    []sign.Identity
		tier   Tier
		policy string
	}{
		{"publisher only", []sign.Identity{pub}, community, "publishers"},
		{"publisher and auditor", []sign.Identity{pub, aud}, verified, "marketplace-audit"},
		{"auditor first", []sign.Identity{aud, pub}, verified, "marketplace-audit"},
		{"new version, unsigned", nil, experimental, ""},
		{"untrusted key", []sign.Identity{{KeyFingerprint: "sha256:" + strings.Repeat("ab", 32)}}, experimental, ""},
	}
	for _, tt := range tests {
		d := Evaluate(p, repo, tt.ids, verified, EvalOptions{})
		if d.Attested != tt.tier || d.Effective != tt.tier || d.Policy != tt.policy {
			t.Errorf("%s: attested %s effective %s policy %q\nwhy: %q", tt.name, d.Attested, d.Effective, d.Policy, d.Why)
		}
	}
	d := Evaluate(p, repo, []sign.Identity{pub, aud}, verified, EvalOptions{})
	if d.Signer == nil || *d.Signer != aud || !strings.Contains(d.Identity, "keys/auditor.pub") {
		t.Errorf("signer %v identity %q", d.Signer, d.Identity)
	}
	if d := Evaluate(p, repo, nil, verified, EvalOptions{}); !whyContains(d, "no verified signature") {
		t.Errorf("why = %q", d.Why)
	}
}

// TestKeylessIdentities: issuer and subject, exact or anchored patterns.
func TestKeylessIdentities(t *testing.T) {
	p := loadDemo(t)
	gha := "https://token.actions.githubusercontent.com"
	release := sign.Identity{Issuer: gha, Subject: "https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.2.0"}
	audit := []sign.Identity{keyID(t, "acme-audit")}
	tests := []struct {
		name  string
		id    sign.Identity
		audit []sign.Identity
		tier  Tier
	}{
		{"release workflow, audited", release, audit, verified},
		{"release workflow, not audited: falls back to any-publisher", release, nil, community},
		{"other workflow", sign.Identity{Issuer: gha, Subject: "https://github.com/acme/skills/.github/workflows/ci.yml@refs/heads/main"}, audit, community},
		{"pattern is anchored", sign.Identity{Issuer: gha, Subject: "https://evil.example/https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1"}, audit, community},
		{"wrong issuer", sign.Identity{Issuer: "https://evil.example", Subject: release.Subject}, audit, community},
	}
	for _, tt := range tests {
		d := Evaluate(p, "ghcr.io/acme/skills/web-research", []sign.Identity{tt.id}, verified, EvalOptions{AuditSigners: tt.audit})
		if d.Attested != tt.tier {
			t.Errorf("%s: attested %s\nwhy: %q", tt.name, d.Attested, d.Why)
		}
	}
	// The exact acme-legacy scope keeps Acme's release key experimental there.
	d := Evaluate(p, "ghcr.io/acme/skills/legacy", []sign.Identity{keyID(t, "acme-release")}, verified, EvalOptions{AuditSigners: audit})
	if d.Attested != experimental || d.Policy != "acme-legacy" {
		t.Errorf("legacy: attested %s by %s", d.Attested, d.Policy)
	}
}

// TestRequireAudit: a rule with requireAudit grants its tier only with a
// passing audit attestation signed by a listed identity, and says so.
func TestRequireAudit(t *testing.T) {
	p := loadDemo(t)
	rel := keyID(t, "acme-release")
	repo := "ghcr.io/acme/skills/web-research"
	tests := []struct {
		name   string
		audit  []sign.Identity
		tier   Tier
		met    bool
		policy string
	}{
		{"met", []sign.Identity{keyID(t, "acme-audit")}, verified, true, "acme-release"},
		{"no attestation", nil, experimental, false, ""},
		{"attestation by someone else", []sign.Identity{keyID(t, "publisher")}, experimental, false, ""},
	}
	for _, tt := range tests {
		d := Evaluate(p, repo, []sign.Identity{rel}, verified, EvalOptions{AuditSigners: tt.audit})
		if d.Attested != tt.tier || d.Policy != tt.policy || len(d.Audits) != 1 || d.Audits[0].Met != tt.met || d.Audits[0].Policy != "acme-release" {
			t.Errorf("%s: attested %s policy %q audits %+v\nwhy: %q", tt.name, d.Attested, d.Policy, d.Audits, d.Why)
		}
		if !tt.met && !whyContains(d, "does not grant verified") {
			t.Errorf("%s: why does not say the audit is missing: %q", tt.name, d.Why)
		}
	}
}

func TestEvaluateDefaultPolicy(t *testing.T) {
	for _, p := range []*Policy{nil, Default()} {
		d := Evaluate(p, "embedded/x", []sign.Identity{keyID(t, "publisher")}, verified, EvalOptions{})
		if d.Attested != experimental || d.Effective != experimental || !whyContains(d, "no policy covers") {
			t.Errorf("default policy: %+v", d)
		}
	}
}

// TestRuleBuiltInCode: rules made without Parse still match (patterns are
// compiled on use, anchored).
func TestRuleBuiltInCode(t *testing.T) {
	r := IdentityRule{Issuer: "https://i", SubjectRegExp: `.*@acme\.example`}
	if !r.Matches(sign.Identity{Issuer: "https://i", Subject: "a@acme.example"}) {
		t.Error("no match")
	}
	if r.Matches(sign.Identity{Issuer: "https://i", Subject: "a@acme.example.evil"}) {
		t.Error("pattern not anchored")
	}
	if (IdentityRule{Issuer: "https://i", SubjectRegExp: "("}).Matches(sign.Identity{Issuer: "https://i", Subject: "("}) {
		t.Error("bad pattern matched")
	}
	if (IdentityRule{}).Matches(sign.Identity{}) {
		t.Error("empty rule matched")
	}
}
