package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/gittest"
)

// skillpmErr runs the CLI in-process and returns its exit code and
// stderr.
func skillpmErr(args ...string) (int, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, errb.String()
}

// gitSkillsRepo makes a repository with skills/pdf and skills/docx,
// tagged v1.0.0 and v1.2.0, then moves main on to pdf 2.0.0.
func gitSkillsRepo(t *testing.T, dir string) *gittest.Repo {
	r := gittest.NewRepo(t, dir, "skills")
	r.Write(map[string]string{"README.md": "repo", "skills/pdf/SKILL.md": gittest.Skill("pdf", "1.0.0"), "skills/pdf/forms.md": "forms", "skills/docx/SKILL.md": gittest.Skill("docx", "1.0.0")})
	r.Commit("one")
	r.Git("tag", "v1.0.0")
	r.Write(map[string]string{"skills/pdf/SKILL.md": gittest.Skill("pdf", "1.2.0")})
	r.Commit("two")
	r.Git("tag", "v1.2.0")
	r.Write(map[string]string{"skills/pdf/SKILL.md": gittest.Skill("pdf", "2.0.0")})
	r.Commit("three")
	return r
}

type installedJSON struct {
	Skills []struct{ Name, Version, Digest, Tree, Tier string }
}

func installedVersions(t *testing.T, out string) map[string]string {
	t.Helper()
	var doc installedJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := map[string]string{}
	for _, s := range doc.Skills {
		m[s.Name] = s.Version + " " + s.Tier
	}
	return m
}

// TestGitInstall installs from a repository served over file:// and over
// smart HTTP (git http-backend on loopback): many skills, one with
// --skill, a tag range, and again from the cache once the remote is gone.
func TestGitInstall(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	for _, kv := range gittest.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	served := filepath.Join(work, "served")
	repo := gitSkillsRepo(t, served)
	base := gittest.ServeHTTP(t, served)
	for _, tc := range []struct{ name, ref string }{{"file", repo.FileURL()}, {"http", "git+" + base + "/skills"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", filepath.Join(work, tc.name, "cache"))
			root := func(n string) string { return filepath.Join(work, tc.name, n) }
			all := installedVersions(t, skillpm(t, 0, "install", tc.ref, "--root", root("all"), "--allow-experimental", "--output", "json"))
			if all["pdf"] != "2.0.0 experimental" || all["docx"] != "1.0.0 experimental" || len(all) != 2 {
				t.Errorf("install all: %v", all)
			}
			if _, err := os.Stat(filepath.Join(root("all"), "pdf", "forms.md")); err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(filepath.Join(root("all"), "README.md")); err == nil {
				t.Error("installed a file outside the skills")
			}
			rec, err := os.ReadFile(filepath.Join(root("all"), ".skillpm", "installed.json"))
			if err != nil {
				rec, _ = json.Marshal(err.Error())
			}
			head := repo.Git("rev-parse", "HEAD")
			if !strings.Contains(string(rec), "@"+head+"#skills/pdf") {
				t.Errorf("receipts do not record the commit %s:\n%s", head, rec)
			}
			one := installedVersions(t, skillpm(t, 0, "install", tc.ref, "--skill", "docx", "--root", root("one"), "--allow-experimental", "--output", "json"))
			if len(one) != 1 || one["docx"] == "" {
				t.Errorf("--skill docx: %v", one)
			}
			ranged := installedVersions(t, skillpm(t, 0, "install", tc.ref+"@^1#skills/pdf", "--root", root("range"), "--allow-experimental", "--output", "json"))
			if ranged["pdf"] != "1.2.0 experimental" {
				t.Errorf("@^1: %v", ranged)
			}
			// Experimental without consent: refused, nothing written.
			if code, msg := skillpmErr("install", tc.ref, "--root", root("refused")); code != exitTrust {
				t.Errorf("without --allow-experimental: exit %d\n%s", code, msg)
			}
			if _, err := os.Stat(filepath.Join(root("refused"), "pdf")); err == nil {
				t.Error("a refused install wrote pdf")
			}
		})
	}
	// The remote is gone; what the cache holds installs again, online
	// (with a warning) and --offline.
	t.Setenv("XDG_CACHE_HOME", filepath.Join(work, "file", "cache"))
	gone := repo.Dir + ".gone"
	if err := os.Rename(repo.Dir, gone); err != nil {
		t.Fatal(err)
	}
	for i, extra := range [][]string{nil, {"--offline"}} {
		args := append([]string{"install", repo.FileURL() + "@^1#skills/pdf", "--root", filepath.Join(work, "offline", string(rune('a'+i))), "--allow-experimental", "--output", "json"}, extra...)
		if v := installedVersions(t, skillpm(t, 0, args...)); v["pdf"] != "1.2.0 experimental" {
			t.Errorf("%v: %v", extra, v)
		}
	}
	if err := os.Rename(gone, repo.Dir); err != nil {
		t.Fatal(err)
	}
}

// TestGitInstallBadInput: each bad reference exits with its code, names
// the reference, and writes nothing into the root.
func TestGitInstallBadInput(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	repo := gitSkillsRepo(t, work)
	esc := gittest.NewRepo(t, work, "escape")
	esc.Write(map[string]string{"s/SKILL.md": gittest.Skill("s", "1.0.0")})
	if err := os.Symlink("../../etc/passwd", filepath.Join(esc.Dir, "s", "pw")); err != nil {
		t.Fatal(err)
	}
	esc.Commit("escape")
	root := filepath.Join(work, "root")
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"https://example.com/acme/skills"}, exitUsage, "not a forge skillpm knows"},
		{[]string{"git+ftp://example.com/acme/skills"}, exitUsage, "scheme"},
		{[]string{"git+http://127.0.0.1:1/acme/skills"}, exitRegistry, "git+http://127.0.0.1:1/acme/skills"},
		{[]string{repo.FileURL() + "@nope"}, exitResolution, "no branch or tag \"nope\""},
		{[]string{repo.FileURL() + "#README.md"}, exitResolution, "no SKILL.md"},
		{[]string{repo.FileURL(), "--skill", "xlsx"}, exitResolution, "no skill xlsx (it has docx, pdf)"},
		{[]string{esc.FileURL()}, exitValidation, "outside the skill folder"},
		{[]string{"git+https://u:s3cret@127.0.0.1:1/a/b"}, exitRegistry, "git+https://127.0.0.1:1/a/b"},
	} {
		code, msg := skillpmErr(append(append([]string{"install"}, tt.args...), "--root", root, "--allow-experimental")...)
		if code != tt.code || !strings.Contains(msg, tt.msg) || strings.Contains(msg, "s3cret") {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", tt.args, code, tt.code, tt.msg, msg)
		}
		if _, err := os.Stat(root); err == nil {
			t.Errorf("%v: wrote %s", tt.args, root)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if code, msg := skillpmErr("install", repo.FileURL(), "--root", root, "--allow-experimental"); code != exitFailure || !strings.Contains(msg, "git is not installed") || !strings.Contains(msg, repo.FileURL()) {
		t.Errorf("without git: exit %d\n%s", code, msg)
	}
}
