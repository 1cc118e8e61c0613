package resolve

import (
	"strings"
	"testing"
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
