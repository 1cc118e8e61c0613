// Package gittest builds real git repositories for tests and serves them
// over git's smart HTTP protocol with git http-backend on loopback.
package gittest

import (
	"fmt"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a non-bare repository in a test's temporary directory.
type Repo struct {
	t testing.TB
	// Dir is the work tree.
	Dir string
}

// Env is the environment git runs with in tests: no user or system
// configuration, a fixed identity and dates, so commits are reproducible.
func Env() []string {
	return []string{
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	}
}

// NewRepo initialises a repository on branch main in dir/name, failing
// the test with how to get git when it is missing.
func NewRepo(t testing.TB, dir, name string) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed: install it (apt-get install git) to run the git source tests")
	}
	r := &Repo{t: t, Dir: filepath.Join(dir, name)}
	r.Git("init", "-q", "-b", "main", r.Dir)
	return r
}

// Git runs git in the repository and returns its trimmed output.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	if len(args) == 0 || args[0] != "init" {
		args = append([]string{"-C", r.Dir}, args...)
	}
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), Env()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes files (slash paths relative to the work tree).
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for p, body := range files {
		f := filepath.Join(r.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Commit commits everything and returns the commit id.
func (r *Repo) Commit(msg string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Skill returns a valid SKILL.md for name at version.
func Skill(name, version string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: Test skill %s from a git repository. Use when testing git sources.\nversion: %q\nlicense: MIT\nmetadata:\n  gaia:\n    security_tier: community\n---\n\n# %s\n\nSteps for %s.\n", name, name, version, name, name)
}

// FileURL is the repository's git+file reference.
func (r *Repo) FileURL() string { return "git+file://" + filepath.ToSlash(r.Dir) }

// ServeHTTP serves every repository under root (a directory of
// repositories) with git http-backend through net/http/cgi on
// 127.0.0.1, and returns the base URL: BASE/NAME is the repository
// root/NAME.
func ServeHTTP(t testing.TB, root string) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v: install git to run the git source tests", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Fatalf("git http-backend: %v", err)
	}
	h := &cgi.Handler{
		Path: backend,
		Root: "/git",
		Env:  append([]string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}, Env()...),
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/git"
}

// Entry is one blob of a tree made by [Repo.CommitTree].
type Entry struct {
	// Mode is git's mode: "100644", "100755" or "120000" (a symlink,
	// whose Body is its target).
	Mode string
	// Path is slash-separated; its folders are made as trees.
	Path string
	Body string
}

// CommitTree commits, on main, a tree holding entries, made with git
// mktree, which checks neither names nor duplicates: it builds the
// hand-made trees no checkout would give (a path both a symlink and a
// folder, a name twice), and returns the commit id.
func (r *Repo) CommitTree(entries []Entry) string {
	r.t.Helper()
	type node struct {
		lines []string
		kids  map[string]*node
		order []string
	}
	newNode := func() *node { return &node{kids: map[string]*node{}} }
	top := newNode()
	blob := filepath.Join(r.Dir, ".git", "hand-made-blob")
	for _, e := range entries {
		if err := os.WriteFile(blob, []byte(e.Body), 0o644); err != nil {
			r.t.Fatal(err)
		}
		oid := r.Git("hash-object", "-w", blob)
		n := top
		els := strings.Split(e.Path, "/")
		for _, d := range els[:len(els)-1] {
			if n.kids[d] == nil {
				n.kids[d] = newNode()
				n.order = append(n.order, d)
			}
			n = n.kids[d]
		}
		n.lines = append(n.lines, e.Mode+" blob "+oid+"\t"+els[len(els)-1])
	}
	var mktree func(n *node) string
	mktree = func(n *node) string {
		lines := append([]string(nil), n.lines...)
		for _, d := range n.order {
			lines = append(lines, "040000 tree "+mktree(n.kids[d])+"\t"+d)
		}
		cmd := exec.Command("git", "-C", r.Dir, "mktree")
		cmd.Env = append(os.Environ(), Env()...)
		cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
		out, err := cmd.Output()
		if err != nil {
			r.t.Fatalf("git mktree: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	commit := r.Git("commit-tree", mktree(top), "-m", "hand-made tree")
	r.Git("update-ref", "refs/heads/main", commit)
	return commit
}
