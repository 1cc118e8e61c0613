package resolve

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/errdef"
)

func TestEditManifest(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		edit ManifestEdit
		want string
	}{
		{"new file", "", ManifestEdit{Set: map[string]string{"fix": "^1.2.0", "any": "*"}, Registry: "embedded", Scope: "project", Hosts: []string{"claude"}},
			"registry: embedded\nscope: project\nhosts: [claude]\nskills:\n  any: '*'\n  fix: ^1.2.0\n"},
		{"keeps comments and order", "# mine\nskills:\n  zed: ^1 # pinned\n  fix: ^1\n", ManifestEdit{Set: map[string]string{"fix": "^2", "new": "~1.4"}, Scope: "project"},
			"# mine\nscope: project\nskills:\n  zed: ^1 # pinned\n  fix: ^2\n  new: ~1.4\n"},
		{"remove", "host: claude\nskills:\n  zed: ^1\n  fix: ^1\n", ManifestEdit{Remove: []string{"zed"}, Hosts: []string{"agents"}},
			"host: claude\nskills:\n  fix: ^1\n"},
		{"null skills", "skills:\n", ManifestEdit{Set: map[string]string{"fix": "^1"}}, "skills:\n  fix: ^1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EditManifest("skills.yaml", []byte(tc.in), tc.edit)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestEditManifestRefusesBadInput(t *testing.T) {
	if _, err := EditManifest("skills.yaml", []byte("skills: [a]\n"), ManifestEdit{Set: map[string]string{"fix": "^1"}}); err == nil || !strings.Contains(err.Error(), "skills.yaml:1") {
		t.Fatalf("err = %v, want one at skills.yaml:1", err)
	}
	if _, err := EditManifest("skills.yaml", nil, ManifestEdit{Set: map[string]string{"fix": "^^1"}}); err == nil {
		t.Fatal("a bad range was written")
	}
}

func TestManifestScopeHosts(t *testing.T) {
	m, err := ParseManifest("skills.yaml", []byte("scope: user\nhosts: [claude, codex]\nskills:\n  fix: ^1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Scope != "user" || strings.Join(m.Hosts, ",") != "claude,codex" {
		t.Fatalf("scope %q hosts %v", m.Scope, m.Hosts)
	}
	if _, err := ParseManifest("skills.yaml", []byte("scope: global\n")); err == nil || !strings.Contains(err.Error(), "skills.yaml:1:8") {
		t.Fatalf("err = %v", err)
	}
}

func TestLockfileWithout(t *testing.T) {
	l := &Lockfile{Version: 1, Skills: []LockedSkill{{Name: "a"}, {Name: "b"}}}
	if got := l.Without("a"); len(got.Skills) != 1 || got.Skills[0].Name != "b" || len(l.Skills) != 2 {
		t.Fatalf("Without(a) = %+v (original %+v)", got.Skills, l.Skills)
	}
	if got := l.Without(); len(got.Skills) != 0 {
		t.Fatalf("Without() = %+v", got.Skills)
	}
}

// TestNotInProject: a project has a skill by its requirement's full or
// short name or by its lock; a name it lacks is a *NotInProjectError
// listing what it has, and a removal finds requirements as written.
func TestNotInProject(t *testing.T) {
	m := &Manifest{File: "skills.yaml", Skills: []Requirement{{Name: "ghcr.io/acme/skills/fix", Range: "^1"}, {Name: "notes", Range: "*"}}}
	lock := &Lockfile{Skills: []LockedSkill{{Name: "helper"}}}
	if err := m.CheckSkills(lock, []string{"fix", "ghcr.io/acme/skills/fix", "notes", "helper"}); err != nil {
		t.Errorf("names the project has: %v", err)
	}
	err := m.CheckSkills(lock, []string{"notes", "nots"})
	nip, ok := errors.AsType[*NotInProjectError](err)
	if !ok || nip.Name != "nots" || !slices.Equal(nip.Have, []string{"fix", "helper", "notes"}) || err.Error() != "nots is not in skills.yaml" || errdef.ClassOf(err) != errdef.Usage {
		t.Errorf("a name it lacks: %#v", err)
	}
	names, err := m.RequirementsNamed([]string{"notes", "fix"})
	if err != nil || !slices.Equal(names, []string{"notes", "ghcr.io/acme/skills/fix"}) {
		t.Errorf("removal by name: %v, %v", names, err)
	}
	_, err = m.RequirementsNamed([]string{"helper"})
	if nip, ok := errors.AsType[*NotInProjectError](err); !ok || !slices.Equal(nip.Have, []string{"ghcr.io/acme/skills/fix", "notes"}) {
		t.Errorf("a locked skill is not a requirement to remove: %#v", err)
	}
}
