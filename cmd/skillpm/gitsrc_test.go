package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/gittest"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/sign"
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
	// cache clean empties the git cache too: offline, nothing resolves now.
	if out := skillpm(t, 0, "cache", "clean"); !strings.Contains(out, "removed the git cache (1 repositories)") {
		t.Errorf("cache clean:\n%s", out)
	}
	if code, msg := skillpmErr("install", repo.FileURL()+"@^1#skills/pdf", "--root", filepath.Join(work, "offline", "c"), "--allow-experimental", "--offline"); code != exitRegistry || !strings.Contains(msg, "never fetched") {
		t.Errorf("offline after clean: exit %d\n%s", code, msg)
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

// TestGitPublishMany publishes a 50-skill repository to a real registry
// in one command, with its repository and commit recorded, skips them all
// when run again, and installs them from the registry with the tree hashes
// the git install gives.
func TestGitPublishMany(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	repo := gittest.NewRepo(t, work, "many")
	files := map[string]string{}
	var names []string
	for i := range 50 {
		n := fmt.Sprintf("skill-%02d", i)
		names = append(names, n)
		files["skills/"+n+"/SKILL.md"] = gittest.Skill(n, "1.0.0")
		files["skills/"+n+"/notes.md"] = "notes of " + n
	}
	repo.Write(files)
	commit := repo.Commit("fifty")
	reg := registrytest.Start(t, registrytest.Options{})
	ns := reg.Host + "/skills"
	ref := repo.FileURL()
	var pub publishManyJSON
	if err := json.Unmarshal([]byte(skillpm(t, 0, "publish", ref, "--registry", ns, "--plain-http", "--output", "json")), &pub); err != nil {
		t.Fatal(err)
	}
	if len(pub.Published) != 50 || len(pub.Failed) != 0 || pub.Commit != commit {
		t.Fatalf("published %d, failed %v, commit %s", len(pub.Published), pub.Failed, pub.Commit)
	}
	trees := map[string]string{}
	for _, p := range pub.Published {
		if p.Unchanged {
			t.Errorf("%s: unchanged on first publish", p.Name)
		}
		trees[p.Name] = p.Tree
	}
	info := skillpm(t, 0, "info", ns+"/skill-07@1.0.0", "--plain-http", "--output", "json")
	if !strings.Contains(info, commit) || !strings.Contains(info, strings.TrimPrefix(repo.FileURL(), "git+")) {
		t.Errorf("info does not show the source and commit %s:\n%s", commit, info)
	}
	again := skillpm(t, 0, "publish", "-r", ref, "--registry", ns, "--plain-http")
	if !strings.Contains(again, "0 published, 50 already there, 0 failed") {
		t.Errorf("second publish:\n%s", again)
	}
	// Installed from the registry: the same trees as published, and as
	// installed from git.
	fromReg := skillpm(t, 0, append(append([]string{"install"}, names...), "--registry", ns, "--plain-http", "--root", filepath.Join(work, "reg"), "--allow-experimental", "--output", "json")...)
	fromGit := skillpm(t, 0, "install", ref, "--root", filepath.Join(work, "git"), "--allow-experimental", "--output", "json")
	for what, out := range map[string]string{"registry": fromReg, "git": fromGit} {
		var doc installedJSON
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Skills) != 50 {
			t.Errorf("%s: %d skills installed", what, len(doc.Skills))
		}
		for _, s := range doc.Skills {
			if s.Tree == "" || s.Tree != trees[s.Name] {
				t.Errorf("%s: %s tree %s, published %s", what, s.Name, s.Tree, trees[s.Name])
			}
		}
	}
}

// TestPublishRecursiveReportsFailures: publish -r DIR publishes the valid
// skills, reports the invalid one, and exits with its code.
func TestPublishRecursiveReportsFailures(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	dir := filepath.Join(work, "src")
	for p, body := range map[string]string{"a/SKILL.md": gittest.Skill("a", "1.0.0"), "nested/b/SKILL.md": gittest.Skill("b", "2.0.0"), "bad/SKILL.md": "---\nname: Bad Name\n---\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	layout := "oci-layout:" + filepath.Join(work, "layout")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"publish", "-r", dir, "--registry", layout, "--no-vcs"}, strings.NewReader(""), &out, &errb)
	if code != exitValidation || !strings.Contains(out.String(), "published a@1.0.0") || !strings.Contains(out.String(), "published b@2.0.0") ||
		!strings.Contains(errb.String(), "bad: not published") || !strings.Contains(out.String(), "2 published, 0 already there, 1 failed") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}

// TestGitLockFrozen: a project asking for git references locks their
// commits and trees; after the branch moves, install --frozen (with the
// git cache emptied, over smart HTTP) installs the locked commit again,
// and install without --frozen moves to the branch's newest commit.
func TestGitLockFrozen(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	served := filepath.Join(work, "served")
	repo := gitSkillsRepo(t, served)
	url := "git+" + gittest.ServeHTTP(t, served) + "/skills"
	proj := filepath.Join(work, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf("skills:\n  %q: \"*\"\n  %q: ^1\n", url+"@main#skills/pdf", url+"#skills/docx")
	if err := os.WriteFile(filepath.Join(proj, "skills.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(proj, "skills.lock")
	install := func(root string, extra ...string) map[string]string {
		t.Helper()
		wd, _ := os.Getwd()
		if err := os.Chdir(proj); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		return installedVersions(t, skillpm(t, 0, append([]string{"install", "--root", filepath.Join(work, root), "--allow-experimental", "--output", "json"}, extra...)...))
	}
	first := repo.Git("rev-parse", "HEAD")
	v1 := repo.Git("rev-parse", "v1.2.0")
	if got := install("a"); got["pdf"] != "2.0.0 experimental" || got["docx"] != "1.0.0 experimental" {
		t.Fatalf("first install: %v", got)
	}
	lock, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"git: " + url + "@" + first + "#skills/pdf", "git: " + url + "@" + v1 + "#skills/docx", "tree: sha256:"} {
		if !strings.Contains(string(lock), want) {
			t.Errorf("lock lacks %q:\n%s", want, lock)
		}
	}
	// The branch moves on; the cache is emptied.
	repo.Write(map[string]string{"skills/pdf/SKILL.md": gittest.Skill("pdf", "3.0.0")})
	repo.Commit("four")
	if err := os.RemoveAll(filepath.Join(work, "cache")); err != nil {
		t.Fatal(err)
	}
	if got := install("b", "--frozen"); got["pdf"] != "2.0.0 experimental" {
		t.Errorf("--frozen after the branch moved: %v", got)
	}
	if again, _ := os.ReadFile(lockPath); string(again) != string(lock) {
		t.Errorf("--frozen changed the lock:\n%s", again)
	}
	if rec, _ := os.ReadFile(filepath.Join(work, "b", ".skillpm", "installed.json")); !strings.Contains(string(rec), `"git": "`+url+`@main#skills/pdf"`) {
		t.Errorf("receipt does not keep the reference as asked:\n%s", rec)
	}
	if got := install("c"); got["pdf"] != "3.0.0 experimental" || got["docx"] != "1.0.0 experimental" {
		t.Errorf("install after the branch moved: %v", got)
	}
	if moved, _ := os.ReadFile(lockPath); !strings.Contains(string(moved), "@"+repo.Git("rev-parse", "HEAD")+"#skills/pdf") {
		t.Errorf("lock did not move to the new commit:\n%s", moved)
	}
}

// TestGitMigrate migrates the Hermes and OpenClaw skills of a repository
// from its git reference, with the same result as from the folders.
func TestGitMigrate(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	repo := gittest.NewRepo(t, work, "foreign")
	files := map[string]string{}
	for _, s := range []string{"hermes/pdf-extract", "openclaw/git-status"} {
		src := filepath.Join("..", "..", "testdata", "migrate", s)
		err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join("..", "..", "testdata", "migrate"), p)
			data, err := os.ReadFile(p)
			files["skills/"+filepath.ToSlash(rel)] = string(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	repo.Write(files)
	repo.Commit("foreign skills")
	out := filepath.Join(work, "out")
	// git-status runs git, for which GAIA ships no binary policy: it is
	// written, and the migration exits 3 saying GAIA would refuse it.
	got := skillpm(t, exitValidation, "migrate", repo.FileURL()+"#skills", "--output-dir", out)
	for _, want := range []string{"migrated hermes skill pdf-extract: " + repo.FileURL() + "@", "#skills/hermes/pdf-extract -> ", "migrated openclaw skill git-status", "result: invalid (strict, for GAIA)"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, s := range []string{"hermes/pdf-extract", "openclaw/git-status"} {
		golden, err := os.ReadFile(filepath.Join("..", "..", "testdata", "migrate", s+".SKILL.md.golden"))
		if err != nil {
			t.Fatal(err)
		}
		migrated, err := os.ReadFile(filepath.Join(out, filepath.Base(s), "SKILL.md"))
		if err != nil || string(migrated) != string(golden) {
			t.Errorf("%s: migrated SKILL.md differs from the golden file (%v)", s, err)
		}
	}
}

// TestGitUpdate: update moves a skill installed from a branch to the
// branch's newest commit, and one installed from a range to the newest
// tag in it, and leaves a root alone when nothing moved.
func TestGitUpdate(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	served := filepath.Join(work, "served")
	repo := gitSkillsRepo(t, served)
	url := "git+" + gittest.ServeHTTP(t, served) + "/skills"
	branch, ranged := filepath.Join(work, "branch"), filepath.Join(work, "ranged")
	skillpm(t, 0, "install", url+"@main#skills/pdf", "--root", branch, "--allow-experimental")
	skillpm(t, 0, "install", url+"@^1#skills/pdf", "--root", ranged, "--allow-experimental")
	if out := skillpm(t, 0, "update", "--root", branch, "--allow-experimental"); !strings.Contains(out, "up to date") && strings.Contains(out, "updated") {
		t.Errorf("update with nothing new:\n%s", out)
	}
	repo.Write(map[string]string{"skills/pdf/SKILL.md": gittest.Skill("pdf", "3.0.0")})
	repo.Commit("four")
	repo.Git("tag", "v1.3.0")
	skillpm(t, 0, "update", "pdf", "--root", branch, "--allow-experimental")
	skillpm(t, 0, "update", "--root", ranged, "--allow-experimental")
	for root, want := range map[string]string{branch: "3.0.0", ranged: "3.0.0"} {
		data, err := os.ReadFile(filepath.Join(root, "pdf", "SKILL.md"))
		if err != nil || !strings.Contains(string(data), "version: \""+want+"\"") {
			t.Errorf("%s: pdf after update: %v\n%s", root, err, data)
		}
		rec, _ := os.ReadFile(filepath.Join(root, ".skillpm", "installed.json"))
		if !strings.Contains(string(rec), "@"+repo.Git("rev-parse", "HEAD")+"#skills/pdf") {
			t.Errorf("%s: receipts not at the new commit:\n%s", root, rec)
		}
	}
}

// TestGitSignedCommitPolicy: a commit SSH-signed by a key the policy
// trusts installs at the policy's tier, with the signer in the receipt;
// the same skill from an unsigned commit stays experimental.
func TestGitSignedCommitPolicy(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	key, pub := gittest.SSHKey(t, work)
	fp := sign.Fingerprint(pub)
	repo := gittest.NewRepo(t, work, "signed")
	repo.Write(map[string]string{"s/SKILL.md": gittest.Skill("s", "1.0.0")})
	unsigned := repo.Commit("unsigned")
	repo.Write(map[string]string{"s/more.md": "more"})
	repo.CommitSigned("signed", key)
	policy := filepath.Join(work, "policy.yaml")
	body := "version: 1\npolicies:\n  - name: git-publishers\n    scopes: [\"*\"]\n    tier: community\n    identities:\n      - keyFingerprint: " + fp + "\n"
	if err := os.WriteFile(policy, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	got := installedVersions(t, skillpm(t, 0, "install", repo.FileURL()+"@main", "--policy", policy, "--root", filepath.Join(work, "a"), "--output", "json"))
	if got["s"] != "1.0.0 community" {
		t.Errorf("signed commit: %v", got)
	}
	rec, _ := os.ReadFile(filepath.Join(work, "a", ".skillpm", "installed.json"))
	if !strings.Contains(string(rec), fp) {
		t.Errorf("receipt lacks the signer %s:\n%s", fp, rec)
	}
	if code, msg := skillpmErr("install", repo.FileURL()+"@"+unsigned, "--policy", policy, "--root", filepath.Join(work, "b")); code != exitTrust {
		t.Errorf("unsigned commit without --allow-experimental: exit %d\n%s", code, msg)
	}
}

// TestLockGitReferences: skillpm lock resolves git references as install
// does (a range over the version tags, a branch) and records each skill's
// commit and tree; install --frozen then installs exactly that lock; a
// reference to a missing folder fails naming the line.
func TestLockGitReferences(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	repo := gitSkillsRepo(t, filepath.Join(work, "served"))
	url := repo.FileURL()
	proj := filepath.Join(work, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf("skills:\n  %q: ^1\n  %q: \"*\"\n", url+"#skills/pdf", url+"@main#skills/docx")
	if err := os.WriteFile(filepath.Join(proj, "skills.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(proj); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	skillpm(t, 0, "lock")
	lock, err := os.ReadFile("skills.lock")
	if err != nil {
		t.Fatal(err)
	}
	v1 := repo.Git("rev-parse", "v1.2.0")
	head := repo.Git("rev-parse", "HEAD")
	for _, want := range []string{"git: " + url + "@" + v1 + "#skills/pdf", "git: " + url + "@" + head + "#skills/docx", "version: 1.2.0", "tree: sha256:"} {
		if !strings.Contains(string(lock), want) {
			t.Errorf("lock lacks %q:\n%s", want, lock)
		}
	}
	if got := installedVersions(t, skillpm(t, 0, "install", "--frozen", "--root", filepath.Join(work, "root"), "--allow-experimental", "--output", "json")); got["pdf"] != "1.2.0 experimental" || got["docx"] != "1.0.0 experimental" {
		t.Errorf("install --frozen of the lock: %v", got)
	}
	if again, _ := os.ReadFile("skills.lock"); string(again) != string(lock) {
		t.Errorf("--frozen changed the lock:\n%s", again)
	}
	if err := os.WriteFile("skills.yaml", []byte(fmt.Sprintf("skills:\n  %q: \"*\"\n", url+"#skills/nope")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, msg := skillpmErr("lock"); code == 0 || !strings.Contains(msg, "skills/nope") {
		t.Errorf("lock of a folder without a skill: exit %d: %s", code, msg)
	}
}

// TestGitOneFetchPerRepository: two folders of one repository at one
// revision, named in one install, are fetched once (git's own trace counts
// the commands; the default branch is fetched by name, with no listing
// first), and both are installed.
func TestGitOneFetchPerRepository(t *testing.T) {
	work := t.TempDir()
	cliEnv(t, work)
	for _, kv := range gittest.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	repo := gitSkillsRepo(t, filepath.Join(work, "served"))
	trace := filepath.Join(work, "git.trace")
	t.Setenv("GIT_TRACE", trace)
	got := installedVersions(t, skillpm(t, 0, "install", repo.FileURL()+"#skills/pdf", repo.FileURL()+"#skills/docx",
		"--root", filepath.Join(work, "root"), "--allow-experimental", "--output", "json"))
	if got["pdf"] != "2.0.0 experimental" || got["docx"] != "1.0.0 experimental" {
		t.Errorf("installed %v", got)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]int{"built-in: git ls-remote ": 0, "built-in: git fetch ": 1, "built-in: git init ": 1} {
		if n := strings.Count(string(b), cmd); n != want {
			t.Errorf("git %s ran %d times for two folders of one repository, want %d:\n%s", cmd, n, want, b)
		}
	}
}
