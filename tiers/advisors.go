package tiers

import (
	"gopkg.in/yaml.v3"

	"github.com/skillpm/skillpm/sign"
)

// AdvisorRule is one entry of the policy's "advisors" list: whose signed
// advisory feeds are obeyed for which repositories (a marketplace's key
// for its namespace, the user's organisation for everything). A feed
// signed by nobody an advisor rule names is reported and never obeyed,
// and an advisory about a repository outside the signer's scopes is
// ignored.
type AdvisorRule struct {
	// Name identifies the rule in messages; unique among advisors.
	Name string `json:"name"`
	// Scopes are the repositories the advisors may advise on: exact,
	// globs, or "*".
	Scopes []string `json:"scopes"`
	// Identities are the advisors.
	Identities []IdentityRule `json:"identities"`
}

// Advisor returns the advisor rule that lets id advise on repository,
// and whether there is one.
func (p *Policy) Advisor(id sign.Identity, repository string) (AdvisorRule, bool) {
	if p == nil {
		return AdvisorRule{}, false
	}
	for _, r := range p.Advisors {
		for _, ir := range r.Identities {
			if !ir.Matches(id) {
				continue
			}
			for _, s := range r.Scopes {
				if MatchScope(s, repository) {
					return r, true
				}
			}
		}
	}
	return AdvisorRule{}, false
}

// NamesAdvisor reports whether any advisor rule names id, whatever its
// scopes.
func (p *Policy) NamesAdvisor(id sign.Identity) bool {
	if p == nil {
		return false
	}
	for _, r := range p.Advisors {
		for _, ir := range r.Identities {
			if ir.Matches(id) {
				return true
			}
		}
	}
	return false
}

func (p *parser) advisors(n *yaml.Node) []AdvisorRule {
	items, ok := p.sequence(n, "advisors", "write advisors: followed by - name: … entries")
	if !ok {
		return nil
	}
	var out []AdvisorRule
	names := map[string]bool{}
	for _, item := range items {
		if !p.mapping(item, "an advisor") {
			continue
		}
		var r AdvisorRule
		before := len(p.problems)
		seen := p.fields(item, "an advisor", []string{"name", "scopes", "identities"}, func(key, val *yaml.Node) {
			switch key.Value {
			case "name":
				r.Name, _ = p.str(val, "advisor name", "name the advisor, e.g. name: acme-marketplace")
			case "scopes":
				r.Scopes = p.scopes(val)
			case "identities":
				mark := len(p.problems)
				r.Identities = p.identities(val, "identities")
				if len(r.Identities) == 0 && len(p.problems) == mark {
					p.errorf(val, "list whose feeds are obeyed: key: FILE, keyFingerprint: sha256:…, or issuer and subject", "advisor names no identity")
				}
			}
		})
		for _, k := range []struct{ key, hint string }{
			{"name", "add name: followed by a short name for the advisor"},
			{"scopes", `add scopes: ["ghcr.io/acme/skills/*"] (or ["*"] for every repository)`},
			{"identities", "add identities: with a key or an issuer and subject"},
		} {
			if !seen[k.key] {
				p.errorf(item, k.hint, "advisor %s has no %s", orUnnamed(r.Name), k.key)
			}
		}
		if r.Name != "" && names[r.Name] {
			p.errorf(item, "give each advisor its own name", "advisor name %s is used twice", quote(r.Name))
		}
		names[r.Name] = true
		if len(p.problems) == before {
			out = append(out, r)
		}
	}
	return out
}
