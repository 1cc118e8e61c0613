package install

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func writeSkill(t *testing.T, dir, name, file string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: " + name + "\ndescription: A skill in " + dir + ".\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(dir, name, file), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestListAsTheHostLoads: list --host shows what each host itself loads,
// following what the real hosts were seen to do (hosts.yaml): Claude Code
// prefers the user copy, Codex offers both, OpenCode keeps one but not
// always the same, every host ignores a lower-case skill.md, a symlinked
// folder loads.
func TestListAsTheHostLoads(t *testing.T) {
	ctx := context.Background()
	home, proj := t.TempDir(), t.TempDir()
	env := Env{Home: home, Cwd: proj}
	for _, d := range []string{".claude/skills", ".agents/skills", ".codex/skills", ".opencode/skills"} {
		writeSkill(t, filepath.Join(proj, d), "dup", "SKILL.md")
		writeSkill(t, filepath.Join(home, d), "dup", "SKILL.md")
	}
	writeSkill(t, filepath.Join(proj, ".agents/skills"), "lower", "skill.md")
	canon := t.TempDir()
	writeSkill(t, canon, "linked", "SKILL.md")
	if err := os.Symlink(filepath.Join(canon, "linked"), filepath.Join(proj, ".agents/skills/linked")); err != nil {
		t.Fatal(err)
	}
	view := func(h HostID) map[string]Listed {
		roots, err := SearchRoots(h, env)
		if err != nil {
			t.Fatal(err)
		}
		got, err := List(ctx, roots)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]Listed{}
		for _, l := range got {
			out[l.Dir] = l
		}
		return out
	}
	c := view(HostClaude)
	if l := c[filepath.Join(home, ".claude/skills/dup")]; l.ShadowedBy != "" || l.Name != "dup" {
		t.Errorf("claude: the user copy should win: %+v", l)
	}
	if l := c[filepath.Join(proj, ".claude/skills/dup")]; l.ShadowedBy != filepath.Join(home, ".claude/skills/dup") {
		t.Errorf("claude: the project copy should be shadowed by the user copy: %+v", l)
	}
	if _, ok := c[filepath.Join(proj, ".agents/skills/dup")]; ok {
		t.Error("claude does not read .agents/skills")
	}
	x := view(HostCodex)
	for _, d := range []string{".codex/skills/dup", ".agents/skills/dup"} {
		for _, base := range []string{home, proj} {
			if l, ok := x[filepath.Join(base, d)]; !ok || l.ShadowedBy != "" || l.ConflictsWith != "" {
				t.Errorf("codex offers every copy; %s: %+v (listed %v)", filepath.Join(base, d), l, ok)
			}
		}
	}
	if l := x[filepath.Join(proj, ".agents/skills/lower")]; l.Ignored == "" {
		t.Errorf("lower-case skill.md should be ignored: %+v", l)
	}
	if l := x[filepath.Join(proj, ".agents/skills/linked")]; l.Ignored != "" || l.Link != filepath.Join(canon, "linked") {
		t.Errorf("a symlinked folder loads in codex: %+v", l)
	}
	o := view(HostOpenCode)
	first := o[filepath.Join(proj, ".opencode/skills/dup")]
	if first.ShadowedBy != "" || first.ConflictsWith != "" {
		t.Errorf("opencode first copy: %+v", first)
	}
	if l := o[filepath.Join(home, ".claude/skills/dup")]; l.ConflictsWith != first.Dir || l.ShadowedBy != "" {
		t.Errorf("opencode: a repeated name is a conflict, not shadowed: %+v", l)
	}
	if _, ok := o[filepath.Join(home, ".codex/skills/dup")]; ok {
		t.Error("opencode does not read Codex's root")
	}
}
