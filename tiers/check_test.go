package tiers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/skill"
)

func perms(t testing.TB, ss ...string) []skill.Permission {
	t.Helper()
	out := make([]skill.Permission, len(ss))
	for i, s := range ss {
		p, err := skill.ParsePermission(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = p
	}
	return out
}

// fakePrompter answers from a script and records the questions.
type fakePrompter struct {
	answer bool
	err    error
	asked  []string
}

func (f *fakePrompter) Confirm(ctx context.Context, c Consent) (bool, error) {
	f.asked = append(f.asked, c.Permission.String())
	return f.answer, f.err
}

func grantsOf(p Plan) []string {
	var out []string
	for _, g := range p.Grants {
		out = append(out, g.Permission.String()+"="+string(g.By))
	}
	return out
}

// TestCheck covers every ceiling and grant path of trust.md.
func TestCheck(t *testing.T) {
	yes, no := &fakePrompter{answer: true}, &fakePrompter{answer: false}
	tests := []struct {
		name   string
		tier   Tier
		perms  []string
		opts   GrantOptions
		grants []string // on success
		kind   error    // on refusal
		fix    string   // on refusal, in the error
		asked  bool
	}{
		{name: "verified: everything by tier, no prompt", tier: verified, perms: []string{"shell:execute", "desktop:control", "network:write"},
			opts: GrantOptions{Prompter: yes}, grants: []string{"shell:execute=tier", "desktop:control=tier", "network:write=tier"}},
		{name: "community: safe permission by tier", tier: community, perms: []string{"filesystem:write", "network:read:*.brave.com"},
			grants: []string{"filesystem:write=tier", "network:read:*.brave.com=tier"}},
		{name: "community dangerous: prompt yes", tier: community, perms: []string{"network:read", "shell:execute:git"},
			opts: GrantOptions{Prompter: yes}, grants: []string{"network:read=tier", "shell:execute:git=prompt"}, asked: true},
		{name: "community dangerous: prompt no", tier: community, perms: []string{"shell:execute"},
			opts: GrantOptions{Prompter: &fakePrompter{}}, kind: ErrDeclined, fix: "you declined shell:execute", asked: true},
		{name: "community dangerous: --grant", tier: community, perms: []string{"shell:execute:git"},
			opts: GrantOptions{Grants: perms(t, "shell:execute"), Prompter: no}, grants: []string{"shell:execute:git=grant"}},
		{name: "community dangerous: --grant with another scope does not cover", tier: community, perms: []string{"shell:execute:rm"},
			opts: GrantOptions{Grants: perms(t, "shell:execute:git")}, kind: ErrNeedsConsent, fix: "grant shell:execute, or consent to it"},
		{name: "community dangerous: --yes", tier: community, perms: []string{"desktop:control", "database:write"},
			opts: GrantOptions{Yes: true, Prompter: no}, grants: []string{"desktop:control=yes", "database:write=yes"}},
		{name: "community dangerous: no terminal, no flag", tier: community, perms: []string{"shell:execute"},
			kind: ErrNeedsConsent, fix: "grant shell:execute, or consent to it"},
		{name: "community: none levels need nothing", tier: community, perms: []string{"shell:none"}, grants: []string{"shell:none=tier"}},
		{name: "experimental without --allow-experimental", tier: experimental, perms: []string{"filesystem:read"},
			kind: ErrExperimental, fix: "install it on purpose, allowing experimental skills"},
		{name: "experimental within ceiling", tier: experimental, perms: []string{"filesystem:read", "network:read:api.example.com", "env:read", "database:read"},
			opts: GrantOptions{AllowExperimental: true}, grants: []string{"filesystem:read=tier", "network:read:api.example.com=tier", "env:read=tier", "database:read=tier"}},
		{name: "experimental beyond ceiling with --grant", tier: experimental, perms: []string{"filesystem:read", "shell:execute"},
			opts: GrantOptions{AllowExperimental: true, Grants: perms(t, "shell:execute")}, grants: []string{"filesystem:read=tier", "shell:execute=grant"}},
		{name: "experimental beyond ceiling without --grant", tier: experimental, perms: []string{"filesystem:write"},
			opts: GrantOptions{AllowExperimental: true}, kind: ErrNeedsGrant, fix: "grant filesystem:write explicitly (a consent to everything does not cover it)"},
		{name: "experimental beyond ceiling: --yes and a prompt are not enough", tier: experimental, perms: []string{"shell:execute"},
			opts: GrantOptions{AllowExperimental: true, Yes: true, Prompter: yes}, kind: ErrNeedsGrant, fix: "grant shell:execute explicitly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if f, ok := tt.opts.Prompter.(*fakePrompter); ok {
				f.asked = nil
			}
			plan, err := Default().Check(context.Background(), tt.tier, perms(t, tt.perms...), tt.opts)
			if tt.kind == nil {
				if err != nil {
					t.Fatal(err)
				}
				if got := grantsOf(plan); !slices.Equal(got, tt.grants) {
					t.Errorf("grants = %v, want %v", got, tt.grants)
				}
			} else {
				if !errors.Is(err, ErrRefused) || !errors.Is(err, tt.kind) {
					t.Fatalf("err = %v, want %v", err, tt.kind)
				}
				if !strings.Contains(err.Error(), tt.fix) {
					t.Errorf("err = %q, want it to contain %q", err, tt.fix)
				}
				// Flags are the front end's: the refusal carries the grant
				// that would allow it instead.
				if strings.Contains(err.Error(), "--") {
					t.Errorf("err = %q names a CLI flag", err)
				}
				if re, ok := errors.AsType[*RefusedError](err); ok && (tt.kind == ErrNeedsGrant || tt.kind == ErrNeedsConsent) {
					for _, r := range re.Refusals {
						if r.Permission != "" && r.Grant == "" {
							t.Errorf("refusal %+v has no Grant", r)
						}
					}
				}
				if plan.Grants != nil {
					t.Errorf("refused but plan = %+v", plan)
				}
			}
			if f, ok := tt.opts.Prompter.(*fakePrompter); ok && (len(f.asked) > 0) != tt.asked {
				t.Errorf("asked = %v, want asked %v", f.asked, tt.asked)
			}
		})
	}
}

// TestAboveCeiling: a policy that narrows a ceiling refuses what lies above
// it, and no flag helps.
func TestAboveCeiling(t *testing.T) {
	p := mustParse(t, "version: 1\nceilings:\n  community: [filesystem:read, shell:execute:git]\n  verified: [network:read]\n")
	all := GrantOptions{Yes: true, Grants: perms(t, "desktop:control", "network:write"), AllowExperimental: true, Prompter: &fakePrompter{answer: true}}
	_, err := p.Check(context.Background(), community, perms(t, "filesystem:read", "desktop:control"), all)
	if !errors.Is(err, ErrAboveCeiling) || !strings.Contains(err.Error(), "desktop:control, above the community ceiling (filesystem:read, shell:execute:git)") || !strings.Contains(err.Error(), "no grant allows it") {
		t.Errorf("community: %v", err)
	}
	if _, err := p.Check(context.Background(), verified, perms(t, "network:write"), all); !errors.Is(err, ErrAboveCeiling) {
		t.Errorf("verified: %v", err)
	}
	// The scoped ceiling entry covers only that scope.
	plan, err := p.Check(context.Background(), community, perms(t, "shell:execute:git"), GrantOptions{Yes: true})
	if err != nil || grantsOf(plan)[0] != "shell:execute:git=yes" {
		t.Errorf("scoped ceiling: %v %v", plan, err)
	}
	if _, err := p.Check(context.Background(), community, perms(t, "shell:execute:npm"), all); !errors.Is(err, ErrAboveCeiling) {
		t.Errorf("other scope: %v", err)
	}
}

// TestCheckSetNoPartialEffect: one refused skill refuses the set; every
// refusal is listed; no plan is returned and nobody is asked anything.
func TestCheckSetNoPartialEffect(t *testing.T) {
	pr := &fakePrompter{answer: true}
	reqs := []Request{
		{Skill: "ok@1.0.0", Tier: verified, Permissions: perms(t, "shell:execute")},
		{Skill: "asks@1.0.0", Tier: community, Permissions: perms(t, "desktop:control")},
		// A dependency: a prompt never installs an experimental one.
		{Skill: "exp@0.3.1", Tier: experimental, Permissions: perms(t, "filesystem:read", "shell:execute", "network:write"), Via: []string{"ok@1.0.0", "exp@0.3.1"}},
		{Skill: "narrow@2.0.0", Tier: community, Permissions: perms(t, "env:read")},
	}
	p := mustParse(t, "version: 1\nceilings:\n  community: [desktop:control]\n")
	plans, err := p.CheckSet(context.Background(), reqs, GrantOptions{Prompter: pr})
	if plans != nil {
		t.Errorf("plans = %+v, want none", plans)
	}
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v", err)
	}
	var got []string
	for _, r := range re.Refusals {
		got = append(got, r.Skill+" "+r.Permission)
	}
	want := []string{"exp@0.3.1 ", "exp@0.3.1 shell:execute", "exp@0.3.1 network:write", "narrow@2.0.0 env:read"}
	if !slices.Equal(got, want) {
		t.Errorf("refusals = %q, want %q", got, want)
	}
	for _, kind := range []error{ErrRefused, ErrExperimental, ErrNeedsGrant, ErrAboveCeiling} {
		if !errors.Is(err, kind) {
			t.Errorf("errors.Is(err, %v) = false", kind)
		}
	}
	if len(pr.asked) != 0 {
		t.Errorf("asked %v although the set was refused", pr.asked)
	}
	if !strings.Contains(err.Error(), "4 trust refusals; nothing was installed:\n  - exp@0.3.1 is experimental") {
		t.Errorf("message = %q", err)
	}

	// With the refused skills gone, the rest is granted in order.
	plans, err = p.CheckSet(context.Background(), reqs[:2], GrantOptions{Prompter: pr})
	if err != nil || len(plans) != 2 || plans[0].Skill != "ok@1.0.0" || grantsOf(plans[1])[0] != "desktop:control=prompt" {
		t.Errorf("plans = %+v, %v", plans, err)
	}
}

// TestCheckSetOneConsent: a skill the user named is asked about once,
// whatever needs consent (installing it although experimental, its
// dangerous permissions, its unmapped allowed-tools); the question states
// its tier, what decided it and its permissions.
func TestCheckSetOneConsent(t *testing.T) {
	rec := &recordingPrompter{answer: true}
	reqs := []Request{
		{Skill: "draft@0.1.0", Tier: experimental, Claimed: "", Attested: experimental, Permissions: perms(t, "filesystem:read")},
		{Skill: "web@1.0.0", Tier: community, Attested: community, Signers: []string{"key sha256:ab"}, Permissions: perms(t, "network:read", "shell:execute:git", "desktop:control"), UnknownTools: []string{"Frob"}},
	}
	plans, err := Default().CheckSet(context.Background(), reqs, GrantOptions{Prompter: rec})
	if err != nil || len(plans) != 2 {
		t.Fatalf("plans %v, err %v", plans, err)
	}
	if len(rec.asked) != 2 {
		t.Fatalf("asked %d questions, want one per skill: %+v", len(rec.asked), rec.asked)
	}
	q0, q1 := rec.asked[0], rec.asked[1]
	for _, want := range []string{"draft@0.1.0 is experimental (decided by its signature", "it declares filesystem:read", "Install it?"} {
		if !strings.Contains(q0.Question, want) || !q0.Experimental {
			t.Errorf("question %q lacks %q (experimental %v)", q0.Question, want, q0.Experimental)
		}
	}
	for _, want := range []string{"web@1.0.0 is community (the trust policy gives its signer key sha256:ab that tier)", "dangerous, needing your consent: shell:execute:git, desktop:control", "Frob"} {
		if !strings.Contains(q1.Question, want) {
			t.Errorf("question %q lacks %q", q1.Question, want)
		}
	}
	if got := grantsOf(plans[1]); !slices.Equal(got, []string{"network:read=tier", "shell:execute:git=prompt", "desktop:control=prompt"}) {
		t.Errorf("grants %v", got)
	}
	// No: the skill is refused, saying what was declined.
	_, err = Default().CheckSet(context.Background(), reqs[:1], GrantOptions{Prompter: &recordingPrompter{}})
	if !errors.Is(err, ErrDeclined) || !strings.Contains(err.Error(), "you declined installing the experimental skill for draft@0.1.0") {
		t.Errorf("declined: %v", err)
	}
}

// recordingPrompter answers answer and keeps every question.
type recordingPrompter struct {
	answer bool
	asked  []Consent
}

func (r *recordingPrompter) Confirm(ctx context.Context, c Consent) (bool, error) {
	r.asked = append(r.asked, c)
	return r.answer, nil
}

// TestCheckSetDeclineStops: after a "no" nothing more is asked and nothing
// is granted.
func TestCheckSetDeclineStops(t *testing.T) {
	pr := &fakePrompter{answer: false}
	reqs := []Request{
		{Skill: "a@1.0.0", Tier: community, Permissions: perms(t, "shell:execute", "desktop:control")},
		{Skill: "b@1.0.0", Tier: community, Permissions: perms(t, "network:write")},
	}
	plans, err := Default().CheckSet(context.Background(), reqs, GrantOptions{Prompter: pr})
	if plans != nil || !errors.Is(err, ErrDeclined) || len(pr.asked) != 1 {
		t.Errorf("plans %v err %v asked %v", plans, err, pr.asked)
	}
	// A prompter error aborts too, and is not a trust refusal.
	pe := &fakePrompter{err: context.Canceled}
	if _, err := Default().CheckSet(context.Background(), reqs, GrantOptions{Prompter: pe}); !errors.Is(err, context.Canceled) || errors.Is(err, ErrRefused) {
		t.Errorf("prompter error: %v", err)
	}
}

func TestCheckUnknownTier(t *testing.T) {
	if _, err := Default().Check(context.Background(), "gold", nil, GrantOptions{}); !errors.Is(err, ErrUnknownTier) {
		t.Errorf("err = %v", err)
	}
	var nilPolicy *Policy
	if _, err := nilPolicy.Check(context.Background(), verified, perms(t, "shell:execute"), GrantOptions{}); err != nil {
		t.Errorf("nil policy: %v", err)
	}
}

func TestGrantJSON(t *testing.T) {
	b, err := Grant{Permission: perms(t, "network:read:*.brave.com")[0], By: GrantedByFlag}.MarshalJSON()
	if err != nil || string(b) != `{"permission":"network:read:*.brave.com","by":"grant"}` {
		t.Errorf("%s %v", b, err)
	}
}
