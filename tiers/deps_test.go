package tiers

import (
	"errors"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/sign"
)

func TestExperimentalDependency(t *testing.T) {
	err := ExperimentalDependency([]string{"a@1.2.0", "b@0.3.1"})
	want := "a@1.2.0 -> b@0.3.1 (experimental): an experimental skill is never installed as a dependency — review it, then install it on purpose"
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	if ed, ok := errors.AsType[*ExperimentalDependencyError](err); !ok || ed.Skill() != "b@0.3.1" {
		t.Errorf("Skill() of %v is not b@0.3.1", err)
	}
	if !errors.Is(err, ErrRefused) || !errors.Is(err, ErrExperimentalDependency) {
		t.Error("not a refusal")
	}
	var ed *ExperimentalDependencyError
	if !errors.As(err, &ed) || len(ed.Path) != 2 {
		t.Errorf("path = %v", ed)
	}
}

func TestCheckSigners(t *testing.T) {
	pub, aud := keyID(t, "publisher"), keyID(t, "auditor")
	gha := "https://token.actions.githubusercontent.com"
	wf := func(ref string) sign.Identity {
		return sign.Identity{Issuer: gha, Subject: "https://github.com/acme/skills/.github/workflows/release.yml@" + ref}
	}
	tests := []struct {
		name              string
		recorded, current []sign.Identity
		allow, ok         bool
	}{
		{"same key", []sign.Identity{pub}, []sign.Identity{pub}, false, true},
		{"one of the recorded", []sign.Identity{pub, aud}, []sign.Identity{aud}, false, true},
		{"recorded plus a new one", []sign.Identity{pub}, []sign.Identity{aud, pub}, false, true},
		{"changed key", []sign.Identity{pub}, []sign.Identity{aud}, false, false},
		{"changed key, allowed", []sign.Identity{pub}, []sign.Identity{aud}, true, true},
		{"unsigned update", []sign.Identity{pub}, nil, false, false},
		{"nothing recorded", nil, []sign.Identity{aud}, false, true},
		{"workflow, new tag", []sign.Identity{wf("refs/tags/v1.2.0")}, []sign.Identity{wf("refs/tags/v1.3.0")}, false, true},
		{"other workflow", []sign.Identity{wf("refs/tags/v1.2.0")}, []sign.Identity{{Issuer: gha, Subject: "https://github.com/evil/skills/.github/workflows/release.yml@refs/tags/v1.3.0"}}, false, false},
		{"other issuer", []sign.Identity{{Issuer: gha, Subject: "a@b"}}, []sign.Identity{{Issuer: "https://x", Subject: "a@b"}}, false, false},
		{"email subject", []sign.Identity{{Issuer: gha, Subject: "a@refs/x"}}, []sign.Identity{{Issuer: gha, Subject: "a@refs/y"}}, false, false},
	}
	for _, tt := range tests {
		err := CheckSigners(tt.recorded, tt.current, tt.allow)
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v", tt.name, err)
		}
		if err != nil && (!errors.Is(err, ErrSignerChanged) || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "check why before accepting the change")) {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
}
