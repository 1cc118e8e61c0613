package install

import (
	"errors"
	"testing"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

func TestVersionChange(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"1.0.0", "1.1.0", ChangeUpgrade},
		{"1.2.0-rc.1", "1.1.0", ChangeDowngrade},
		{"1.1.0", "1.1.0", ChangeReplace},
		{"junk", "1.0.0", ChangeReplace},
	} {
		if got := versionChange(tc.from, tc.to); got != tc.want {
			t.Errorf("versionChange(%s, %s) = %s, want %s", tc.from, tc.to, got, tc.want)
		}
	}
}

func TestUpdateRequest(t *testing.T) {
	rec := &Receipts{Skills: []Record{
		{Name: "fix", Version: "1.0.0", Source: "embedded/fix", Requested: "^1"},
		{Name: "code", Version: "1.2.0", Source: "embedded/code"},
		{Name: "lint", Version: "2.0.0", Source: "ghcr.io/acme/skills/lint", Requested: "~2.0"},
		{Name: "mine", Version: "0.1.0", LocalPath: "/src/mine", Requested: "0.1.0"},
	}}
	for _, tc := range []struct {
		name      string
		names     []string
		wantReqs  []string
		wantPrev  []string
		wantFound []string
	}{
		{"all", nil, []string{"fix ^1", "ghcr.io/acme/skills/lint ~2.0"}, nil, []string{"code", "fix", "lint"}},
		{"one", []string{"code"}, []string{"fix ^1", "ghcr.io/acme/skills/lint ~2.0"}, []string{"fix", "lint"}, []string{"code"}},
		{"elsewhere", []string{"other"}, nil, []string{"code", "fix", "lint"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found := map[string]bool{}
			m, prev := updateRequest(rec, tc.names, found)
			var reqs, locked []string
			for _, r := range m.Skills {
				reqs = append(reqs, r.Name+" "+r.Range)
			}
			for _, s := range prev.Skills {
				locked = append(locked, s.Name)
			}
			if !equal(reqs, tc.wantReqs) || !equal(locked, tc.wantPrev) || len(found) != len(tc.wantFound) {
				t.Errorf("got reqs %v prev %v found %v", reqs, locked, found)
			}
			for _, n := range tc.wantFound {
				if !found[n] {
					t.Errorf("%s not found", n)
				}
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func planned(name, version string, tier skill.Tier, perms []string, signers ...sign.Identity) *Planned {
	return &Planned{Lock: resolve.LockedSkill{Name: name, Version: version, Tier: tier, Digest: "sha256:" + version},
		Permissions: perms, Verification: &policycheck.Verification{SignatureVerification: registry.SignatureVerification{Signers: signers}}}
}

func TestJobPinsAndCarriedConsent(t *testing.T) {
	alice := sign.Identity{KeyFingerprint: "sha256:aa"}
	bob := sign.Identity{KeyFingerprint: "sha256:bb"}
	old := Record{Name: "code", Version: "1.0.0", Digest: "sha256:1.0.0", Tier: "community", Signers: []sign.Identity{alice},
		Grants: []Grant{{Permission: "shell:execute:git", By: "grant"}, {Permission: "network:fetch", By: "tier"}}}
	newJob := func(p *Planned) *job {
		j := &job{plan: []*Planned{p}, roots: []Root{{Dir: "/r"}}, receipts: []*Receipts{{Skills: []Record{old}}}}
		j.changes = j.diff()
		return j
	}

	j := newJob(planned("code", "1.1.0", "community", []string{"shell:execute:git", "filesystem:write"}, bob))
	if len(j.changes) != 1 || j.changes[0].Kind != ChangeUpgrade || !j.changes[0].SignersChanged ||
		!equal(j.changes[0].NewPermissions, []string{"filesystem:write"}) {
		t.Fatalf("changes = %+v", j.changes)
	}
	err := j.checkPins(Options{}, true)
	var sce *tiers.SignerChangeError
	if !errors.As(err, &sce) || !errors.Is(err, tiers.ErrRefused) {
		t.Fatalf("checkPins = %v, want a signer change", err)
	}
	if err := j.checkPins(Options{AllowSignerChange: true}, true); err != nil {
		t.Fatalf("checkPins with AllowSignerChange = %v", err)
	}
	if c := j.carried()["code"]; len(c) != 1 || c["shell:execute:git"] != "grant" {
		t.Errorf("carried = %v, want only the flag grant", c)
	}

	// A lower tier carries nothing; a lower version is a downgrade.
	j = newJob(planned("code", "0.9.0", "experimental", []string{"shell:execute:git"}, alice))
	if c := j.carried(); len(c) != 0 {
		t.Errorf("carried across a tier drop: %v", c)
	}
	if err := j.checkPins(Options{}, true); !errors.Is(err, ErrDowngrade) {
		t.Errorf("checkPins = %v, want ErrDowngrade", err)
	}
	if err := j.checkPins(Options{}, false); err != nil {
		t.Errorf("install refused a downgrade: %v", err)
	}
}
