package tiers

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
)

// FuzzPolicy: any bytes parse without panicking into either a policy or a
// *PolicyError whose problems all have a message; a parsed policy can be
// evaluated and checked.
func FuzzPolicy(f *testing.F) {
	f.Add([]byte("version: 1\npolicies:\n  - name: a\n    scopes: ['ghcr.io/**/x', '*']\n    tier: verified\n    identities:\n      - {issuerRegExp: '.*', subjectRegExp: '(a|b)+'}\n"))
	f.Add([]byte("version: 1\nceilings: {experimental: all, community: [shell:execute:git]}\ndangerous: []\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("version: 1\n---\n- x\n"))
	// Keys resolve next to the fuzz name: the shared fixtures.
	name := filepath.Join(fixtures, "fuzz.yaml")
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(ctx, name, data)
		if err != nil {
			var pe *PolicyError
			if !errors.As(err, &pe) || len(pe.Problems) == 0 {
				t.Fatalf("error is not a *PolicyError with problems: %v", err)
			}
			for _, pr := range pe.Problems {
				if pr.Message == "" || pr.Hint == "" || pr.Line < 0 {
					t.Fatalf("problem without message or hint: %+v", pr)
				}
			}
			return
		}
		ids := []sign.Identity{{KeyFingerprint: "sha256:00"}, {Issuer: "https://i", Subject: "a"}}
		for _, repo := range []string{"ghcr.io/acme/skills/x", "embedded/x", "oci-layout:/a/b/x"} {
			d := Evaluate(p, repo, ids, skill.TierVerified, EvalOptions{AuditSigners: ids})
			if !d.Attested.Valid() || d.Effective.Compare(d.Attested) > 0 {
				t.Fatalf("decision %+v", d)
			}
		}
		_, _ = p.Check(ctx, skill.TierCommunity, []skill.Permission{{Domain: "shell", Level: "execute"}}, GrantOptions{Yes: true})
	})
}
