package resolve

import (
	"strings"
	"testing"

	"github.com/skillpm/skillpm/source"
)

func TestManifestGitNames(t *testing.T) {
	m, err := ParseManifest("skills.yaml", []byte("skills:\n  \"git+https://example.com/acme/skills#skills/pdf\": ^1\n  github:acme/skills/docx@main: \"*\"\n  fix: ^1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Skills) != 3 || !source.IsGitName(m.Skills[2].Name) || m.Skills[1].Name != "git+https://example.com/acme/skills#skills/pdf" || m.Skills[1].Range != "^1" {
		t.Errorf("%+v", m.Skills)
	}
	if source.IsGitName("fix") || source.IsGitName("ghcr.io/acme/skills/fix") || source.IsGitName("https://github.com/a/b") {
		t.Error("IsGitName accepts a registry name")
	}
}

func TestLockGitRoundTrip(t *testing.T) {
	l := &Lockfile{Version: LockVersion, Skills: []LockedSkill{{Name: "pdf", Version: "1.2.0", Source: "embedded/pdf",
		Digest: "sha256:" + strings.Repeat("a", 64), Tree: "sha256:" + strings.Repeat("b", 64),
		Git: "git+https://example.com/acme/skills@" + strings.Repeat("c", 40) + "#skills/pdf"}}}
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseLockfile("skills.lock", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if back.Skills[0].Git != l.Skills[0].Git {
		t.Errorf("git %q after a round trip", back.Skills[0].Git)
	}
	bad := strings.Replace(string(data), "git: git+https", "git: https", 1)
	if _, err := ParseLockfile("skills.lock", []byte(bad)); err == nil || !strings.Contains(err.Error(), "not a git reference") {
		t.Errorf("bad git field: %v", err)
	}
}
