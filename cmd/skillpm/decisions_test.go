package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerboseDecisions: -v adds the engine's decisions (why this
// version, why this tier) to update, add, lock, outdated and the commands
// that pick a published version (info), as to install; the default shows none; -q prints a subset of the default.
// Each form runs on its own root or project, so that each makes the
// same change: a second update keeps what the first moved.
func TestVerboseDecisions(t *testing.T) {
	work := plainOutputWork(t)
	dir := filepath.Join(work, "web-research")
	skillpm(t, 0, "publish", dir, "--no-vcs")
	forms := map[string][]string{"default": nil, "verbose": {"-v"}, "quiet": {"-q"}}
	for form := range forms {
		skillpm(t, 0, "install", "web-research", "--root", filepath.Join(work, "r-"+form), "--allow-experimental")
	}
	md := filepath.Join(dir, "SKILL.md")
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, []byte(strings.Replace(string(data), "version: 1.0.0", "version: 1.1.0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	skillpm(t, 0, "publish", dir, "--no-vcs")

	cases := []struct {
		name string
		args func(form string) []string
		want string
	}{
		{"update", func(form string) []string {
			return []string{"update", "--root", filepath.Join(work, "r-"+form), "--allow-experimental"}
		}, "debug: web-research@1.1.0: from 1.0.0: "},
		{"update again", func(form string) []string {
			return []string{"update", "--root", filepath.Join(work, "r-"+form), "--allow-experimental"}
		}, "debug: web-research@1.1.0: kept, as installed"},
		{"add", func(form string) []string {
			return []string{"add", "web-research", "--manifest", filepath.Join(work, "p-"+form, "skills.yaml"), "--root", filepath.Join(work, "pr-"+form), "--allow-experimental", "--grant", "network:read"}
		}, "debug: web-research@1.1.0: the newest version the requested range"},
		{"lock", func(form string) []string {
			return []string{"lock", "--manifest", filepath.Join(work, "p-"+form, "skills.yaml")}
		}, "debug: web-research@1.1.0: kept, as locked"},
		{"info", func(string) []string {
			return []string{"info", "web-research@^1"}
		}, "debug: web-research@1.1.0: the newest version the range ^1 admits (releases only)"},
		{"outdated", func(form string) []string {
			return []string{"outdated", "--all", "--manifest", filepath.Join(work, "p-"+form, "skills.yaml")}
		}, "debug: web-research: wants 1.1.0, the newest version the range"},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			if err := os.MkdirAll(filepath.Join(work, "p-default"), 0o755); err != nil {
				t.Fatal(err)
			}
			res := map[string]cliResult{}
			for form, extra := range forms {
				if err := os.MkdirAll(filepath.Join(work, "p-"+form), 0o755); err != nil {
					t.Fatal(err)
				}
				res[form] = runCLI(append(tc.args(form), extra...)...)
			}
			def, v, q := res["default"], res["verbose"], res["quiet"]
			if def.code != 0 || v.code != 0 || q.code != 0 {
				t.Fatalf("exit codes: default %d, -v %d, -q %d\ndefault stderr:\n%s\n-v stderr:\n%s", def.code, v.code, q.code, def.stderr, v.stderr)
			}
			if !strings.Contains(v.stderr, tc.want) {
				t.Errorf("-v stderr lacks %q:\n%s", tc.want, v.stderr)
			}
			if strings.Contains(def.stderr, "debug:") || strings.Contains(def.stdout, "debug:") {
				t.Errorf("the default shows decisions:\n%s%s", def.stdout, def.stderr)
			}
			// The forms' folders differ by their names alone.
			same := func(s, form string) string { return strings.ReplaceAll(s, "-"+form, "-FORM") }
			subset(t, "stdout", same(q.stdout, "quiet"), same(def.stdout, "default"))
			subset(t, "stderr", same(q.stderr, "quiet"), same(def.stderr, "default"))
		})
	}
}
