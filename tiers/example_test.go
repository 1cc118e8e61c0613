package tiers_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

func Example() {
	ctx := context.Background()
	policy, err := tiers.Parse(ctx, "policy.yaml", []byte(`version: 1
policies:
  - name: acme-ci
    scopes: ["ghcr.io/acme/skills/*"]
    tier: community
    identities:
      - issuer: https://token.actions.githubusercontent.com
        subjectRegExp: https://github\.com/acme/skills/\.github/workflows/release\.yml@refs/tags/v.*
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	signer := sign.Identity{
		Issuer:  "https://token.actions.githubusercontent.com",
		Subject: "https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.2.0",
	}
	repo, err := tiers.Repository("ghcr.io/acme/skills", "web-research")
	if err != nil {
		panic(err)
	}
	d := tiers.Evaluate(policy, repo, []sign.Identity{signer}, skill.TierVerified, tiers.EvalOptions{})
	fmt.Println(repo, d.Attested, d.Effective, d.Policy)
	fmt.Println("warning:", d.Warnings[0])

	shell, _ := skill.ParsePermission("shell:execute")
	_, err = policy.Check(ctx, d.Effective, []skill.Permission{shell}, tiers.GrantOptions{})
	fmt.Println(errors.Is(err, tiers.ErrRefused), err)

	plan, _ := policy.Check(ctx, d.Effective, []skill.Permission{shell}, tiers.GrantOptions{Grants: []skill.Permission{shell}})
	fmt.Println(plan.Grants[0].Permission, "granted by", plan.Grants[0].By)
	// Output:
	// ghcr.io/acme/skills/web-research community community acme-ci
	// warning: the skill claims verified but the trust policy attests only community: treated as community
	// true the skill (community) declares the dangerous permission shell:execute, which needs consent, and there is no terminal to ask — grant shell:execute, or consent to it; nothing was installed
	// shell:execute granted by grant
}
