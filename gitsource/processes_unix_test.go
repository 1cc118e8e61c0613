//go:build unix

package gitsource_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/gitsource"
	"github.com/skillpm/skillpm/internal/gittest"
)

// loggingGit returns a git executable that records each command it runs
// (its arguments, one line each) in the file returned, then runs git.
func loggingGit(t *testing.T) (gitPath, logFile string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("these tests need git on PATH: %v", err)
	}
	dir := t.TempDir()
	logFile = filepath.Join(dir, "log")
	gitPath = filepath.Join(dir, "git")
	script := "#!/bin/sh\necho \"$*\" >>'" + logFile + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(gitPath, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return gitPath, logFile
}

// TestColdInstallGitProcesses: resolving a reference into an empty cache,
// exporting it and reading its signer and commit time runs git six
// times (the repository's description, the remote's URL, is written
// directly): a branch is listed (ls-remote) and its commit fetched; the
// default branch is fetched by name, with no listing, which is one
// connection to the remote instead of two. The fetch leaves no remote
// in the repository's configuration, so nothing is ever fetched from it
// lazily; the commit time is the committer's; a second command finds the
// commit in the cache and fetches nothing.
func TestColdInstallGitProcesses(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	repo, commits := multiRepo(t, work)
	for _, tt := range []struct {
		rev  string
		want []string
	}{
		{"@main", []string{"init", "ls-remote", "fetch", "update-ref", "ls-tree", "cat-file"}},
		{"", []string{"init", "fetch", "rev-parse", "update-ref", "ls-tree", "cat-file"}},
	} {
		t.Run("rev="+tt.rev, func(t *testing.T) {
			git, logFile := loggingGit(t)
			c := gitsource.New(gitsource.Options{Dir: filepath.Join(t.TempDir(), "git"), Env: gittest.Env(), Git: git})
			r, err := gitsource.Parse(repo.FileURL() + tt.rev)
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Resolve(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if res.Commit != commits["main"] {
				t.Fatalf("resolved %s, want %s", res.Commit, commits["main"])
			}
			skills, err := c.Export(ctx, res, filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, err := c.CommitSigner(ctx, res); err != nil || ok {
				t.Fatalf("CommitSigner of an unsigned commit: %v, %v", ok, err)
			}
			when, err := c.CommitTime(ctx, res)
			if err != nil {
				t.Fatal(err)
			}
			if want := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); !when.Equal(want) {
				t.Errorf("commit time %s, want %s", when, want)
			}
			// Each skill carries its folder's tree id, as git names it.
			if tree := repo.Git("rev-parse", commits["main"]+"^{tree}:skills/pdf"); len(skills) != 2 || skills[1].GitTree != tree {
				t.Errorf("skills %+v, want skills/pdf at tree %s", skills, tree)
			}
			data, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			var ops []string
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				ops = append(ops, gitOp(line))
			}
			if strings.Join(ops, " ") != strings.Join(tt.want, " ") {
				t.Errorf("git ran %q, want %q", ops, tt.want)
			}
			dir := filepath.Join(c.Dir(), "repos")
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) == 0 {
				t.Fatalf("no repository in the cache: %v", err)
			}
			for _, e := range entries {
				if !e.IsDir() {
					continue
				}
				cfg, err := os.ReadFile(filepath.Join(dir, e.Name(), "config"))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(cfg), "[remote") || strings.Contains(string(cfg), "promisor") {
					t.Errorf("the cache repository's configuration names a remote:\n%s", cfg)
				}
				desc, err := os.ReadFile(filepath.Join(dir, e.Name(), "description"))
				if err != nil || strings.TrimSpace(string(desc)) != r.Remote() {
					t.Errorf("the cache repository's description is %q (%v), want %s", desc, err, r.Remote())
				}
			}
			// The commit is recorded for offline use and pruning.
			c2 := gitsource.New(gitsource.Options{Dir: c.Dir(), Env: gittest.Env(), Git: git, Offline: true})
			if off, err := c2.Resolve(ctx, r); err != nil || off.Commit != res.Commit {
				t.Fatalf("offline: %v, %v", off, err)
			}
			if err := os.Remove(logFile); err != nil {
				t.Fatal(err)
			}
			c3 := gitsource.New(gitsource.Options{Dir: c.Dir(), Env: gittest.Env(), Git: git})
			if _, err := c3.Resolve(ctx, r); err != nil {
				t.Fatal(err)
			}
			data, _ = os.ReadFile(logFile)
			if strings.Contains(string(data), "fetch") || !strings.Contains(string(data), "cat-file -e") {
				t.Errorf("a warm resolve ran:\n%s", data)
			}
		})
	}
}

// TestFetchHeadFallsBack: a default branch that cannot be fetched by name
// (an empty repository) fails as the listing says, not with the fetch's
// message.
func TestFetchHeadFallsBack(t *testing.T) {
	repo := gittest.NewRepo(t, t.TempDir(), "empty")
	r, err := gitsource.Parse(repo.FileURL())
	if err != nil {
		t.Fatal(err)
	}
	_, err = newCache(t).Resolve(context.Background(), r)
	if !errors.Is(err, gitsource.ErrRevNotFound) || strings.Contains(err.Error(), "HEAD:refs/skillpm") {
		t.Fatalf("resolving an empty repository: %v", err)
	}
}

// gitOp is the git command of a logged argument line: the first word
// after the global options (-c key=value, --git-dir DIR).
func gitOp(line string) string {
	f := strings.Fields(line)
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case "-c", "--git-dir":
			i++
			continue
		}
		return f[i]
	}
	return ""
}

// TestExportRootSkillTree: a skill at the top of the repository carries
// the commit's root tree id, read from the commit object.
func TestExportRootSkillTree(t *testing.T) {
	ctx := context.Background()
	repo := gittest.NewRepo(t, t.TempDir(), "solo")
	repo.Write(map[string]string{"SKILL.md": gittest.Skill("solo", "1.0.0"), "notes.md": "notes"})
	commit := repo.Commit("one")
	r, err := gitsource.Parse(repo.FileURL() + "@" + commit)
	if err != nil {
		t.Fatal(err)
	}
	c := newCache(t)
	res, err := c.Resolve(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	skills, err := c.Export(ctx, res, filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	if want := repo.Git("rev-parse", commit+"^{tree}"); len(skills) != 1 || skills[0].Path != "" || skills[0].GitTree != want {
		t.Errorf("skills %+v, want the root at tree %s", skills, want)
	}
}
