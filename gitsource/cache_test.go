package gitsource_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/gitsource"
	"github.com/skillpm/skillpm/internal/gittest"
)

func newCache(t *testing.T) *gitsource.Cache {
	return gitsource.New(gitsource.Options{Dir: filepath.Join(t.TempDir(), "git"), Env: gittest.Env()})
}

// multiRepo is a repository with two skills under skills/ and one file
// outside them, tagged v1.0.0 and v1.2.0 and pdf-v2.0.0.
func multiRepo(t *testing.T, dir string) (*gittest.Repo, map[string]string) {
	r := gittest.NewRepo(t, dir, "multi")
	commits := map[string]string{}
	r.Write(map[string]string{"README.md": "hi", "skills/pdf/SKILL.md": gittest.Skill("pdf", "1.0.0"), "skills/pdf/ref/forms.md": "forms", "skills/docx/SKILL.md": gittest.Skill("docx", "1.0.0")})
	commits["v1.0.0"] = r.Commit("one")
	r.Git("tag", "v1.0.0")
	r.Write(map[string]string{"skills/pdf/SKILL.md": gittest.Skill("pdf", "1.2.0")})
	commits["v1.2.0"] = r.Commit("two")
	r.Git("tag", "-a", "-m", "v1.2.0", "v1.2.0")
	r.Write(map[string]string{"skills/pdf/SKILL.md": gittest.Skill("pdf", "2.0.0")})
	commits["main"] = r.Commit("three")
	return r, commits
}

func TestResolveAndExport(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	repo, commits := multiRepo(t, work)
	httpBase := gittest.ServeHTTP(t, work)
	for _, base := range []string{repo.FileURL(), "git+" + httpBase + "/multi"} {
		t.Run(strings.SplitN(base, ":", 2)[0], func(t *testing.T) {
			c := newCache(t)
			tests := []struct {
				ref, commit, tag string
				skills           []string
			}{
				{ref: base, commit: commits["main"], skills: []string{"skills/docx", "skills/pdf"}},
				{ref: base + "@main#skills/pdf", commit: commits["main"], skills: []string{"skills/pdf"}},
				{ref: base + "@v1.0.0#skills", commit: commits["v1.0.0"], tag: "v1.0.0", skills: []string{"skills/docx", "skills/pdf"}},
				{ref: base + "@^1#skills/pdf", commit: commits["v1.2.0"], tag: "v1.2.0", skills: []string{"skills/pdf"}},
				{ref: base + "@~1.0#skills/pdf", commit: commits["v1.0.0"], tag: "v1.0.0", skills: []string{"skills/pdf"}},
				{ref: base + "@" + commits["v1.0.0"] + "#skills/pdf", commit: commits["v1.0.0"], skills: []string{"skills/pdf"}},
			}
			for _, tt := range tests {
				r, err := gitsource.Parse(tt.ref)
				if err != nil {
					t.Fatal(err)
				}
				res, err := c.Resolve(ctx, r)
				if err != nil {
					t.Fatalf("%s: %v", tt.ref, err)
				}
				if res.Commit != tt.commit || res.Tag != tt.tag {
					t.Errorf("%s: commit %s tag %q, want %s %q", tt.ref, res.Commit, res.Tag, tt.commit, tt.tag)
				}
				dest := filepath.Join(t.TempDir(), "x")
				skills, err := c.Export(ctx, res, dest)
				if err != nil {
					t.Fatalf("%s: %v", tt.ref, err)
				}
				var got []string
				for _, s := range skills {
					got = append(got, s.Path)
					if _, err := os.Stat(filepath.Join(s.Dir, "SKILL.md")); err != nil {
						t.Errorf("%s: %v", tt.ref, err)
					}
					if len(s.GitTree) != 40 {
						t.Errorf("%s: git tree %q", tt.ref, s.GitTree)
					}
				}
				if strings.Join(got, ",") != strings.Join(tt.skills, ",") {
					t.Errorf("%s: skills %v, want %v", tt.ref, got, tt.skills)
				}
				if _, err := os.Stat(filepath.Join(dest, "README.md")); err == nil {
					t.Errorf("%s: exported a file outside the skills", tt.ref)
				}
			}
		})
	}
}

func TestOfflineFromCache(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	repo, commits := multiRepo(t, work)
	dir := filepath.Join(t.TempDir(), "git")
	online := gitsource.New(gitsource.Options{Dir: dir, Env: gittest.Env()})
	r, _ := gitsource.Parse(repo.FileURL() + "@^1#skills/pdf")
	if _, err := online.Resolve(ctx, r); err != nil {
		t.Fatal(err)
	}
	// The remote is gone: the cache answers, with a warning when online.
	if err := os.RemoveAll(repo.Dir); err != nil {
		t.Fatal(err)
	}
	for _, offline := range []bool{true, false} {
		c := gitsource.New(gitsource.Options{Dir: dir, Env: gittest.Env(), Offline: offline})
		res, err := c.Resolve(ctx, r)
		if err != nil {
			t.Fatalf("offline=%v: %v", offline, err)
		}
		if res.Commit != commits["v1.2.0"] || (res.Warning == "") == !offline {
			t.Errorf("offline=%v: %+v", offline, res)
		}
		if _, err := c.Export(ctx, res, filepath.Join(t.TempDir(), "x")); err != nil {
			t.Fatal(err)
		}
	}
	// What was never fetched is not there.
	c := gitsource.New(gitsource.Options{Dir: dir, Env: gittest.Env(), Offline: true})
	if _, err := c.Resolve(ctx, r.At("main")); !errors.Is(err, gitsource.ErrRevNotFound) {
		t.Errorf("offline main: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	repo, _ := multiRepo(t, work)
	esc := gittest.NewRepo(t, work, "escape")
	esc.Write(map[string]string{"s/SKILL.md": gittest.Skill("s", "1.0.0"), "secret": "x"})
	if err := os.Symlink("../secret", filepath.Join(esc.Dir, "s", "link")); err != nil {
		t.Fatal(err)
	}
	esc.Commit("escape")
	sub := gittest.NewRepo(t, work, "sub")
	sub.Write(map[string]string{"s/SKILL.md": gittest.Skill("s", "1.0.0")})
	sub.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", repo.Dir, "s/vendor")
	sub.Commit("submodule")
	tests := []struct {
		ref  string
		want error
		msg  string
	}{
		{repo.FileURL() + "@nope", gitsource.ErrRevNotFound, "no branch or tag \"nope\""},
		{repo.FileURL() + "@^9", gitsource.ErrRevNotFound, "no version tag matches ^9"},
		{repo.FileURL() + "@" + strings.Repeat("ab", 20), gitsource.ErrRevNotFound, ""},
		{repo.FileURL() + "#README.md", gitsource.ErrNoSkill, "no SKILL.md"},
		{repo.FileURL() + "#nothere", gitsource.ErrNoSkill, "no folder nothere"},
		{"git+file://" + filepath.ToSlash(work) + "/missing", gitsource.ErrFetch, "missing"},
		{"git+http://127.0.0.1:1/a/b", gitsource.ErrFetch, "unreachable"},
		{esc.FileURL(), gitsource.ErrUnsafeTree, "symlink s/link points to ../secret"},
		{sub.FileURL(), gitsource.ErrUnsafeTree, "s/vendor is a git submodule"},
	}
	for _, tt := range tests {
		c := newCache(t)
		r, err := gitsource.Parse(tt.ref)
		if err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(t.TempDir(), "x")
		res, err := c.Resolve(ctx, r)
		if err == nil {
			_, err = c.Export(ctx, res, dest)
		}
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), r.Repo()) {
			t.Errorf("%s: %v, want %v with %q and the reference", tt.ref, err, tt.want, tt.msg)
		}
		if _, serr := os.Stat(dest); serr == nil {
			t.Errorf("%s: wrote %s", tt.ref, dest)
		}
	}
	c := gitsource.New(gitsource.Options{Dir: t.TempDir(), Git: "no-such-git-binary"})
	r, _ := gitsource.Parse(repo.FileURL())
	if _, err := c.Resolve(ctx, r); !errors.Is(err, gitsource.ErrNoGit) || !strings.Contains(err.Error(), r.String()) {
		t.Errorf("missing git: %v", err)
	}
}

// TestConcurrentResolve: several resolutions of one repository at once
// into one cache all succeed (the fetches take turns).
func TestConcurrentResolve(t *testing.T) {
	ctx := context.Background()
	repo, commits := multiRepo(t, t.TempDir())
	dir := filepath.Join(t.TempDir(), "git")
	errs := make(chan error, 4)
	for _, rev := range []string{"main", "v1.0.0", "^1", "main"} {
		go func() {
			c := gitsource.New(gitsource.Options{Dir: dir, Env: gittest.Env()})
			r, _ := gitsource.Parse(repo.FileURL() + "@" + rev + "#skills/pdf")
			res, err := c.Resolve(ctx, r)
			if err == nil && res.Commit != commits[rev] && !(rev == "^1" && res.Commit == commits["v1.2.0"]) {
				err = errors.New(rev + ": wrong commit " + res.Commit)
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestCredentialsNotStored: a token in the URL is used to fetch and is
// found nowhere in the cache afterwards.
func TestCredentialsNotStored(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	multiRepo(t, work)
	base := gittest.ServeHTTP(t, work)
	withToken := strings.Replace(base, "http://", "http://user:s3cret@", 1)
	c := newCache(t)
	r, err := gitsource.Parse("git+" + withToken + "/multi@main#skills/pdf")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Resolve(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Ref.String(), "s3cret") {
		t.Errorf("resolved reference shows the token: %s", res.Ref)
	}
	err = filepath.WalkDir(c.Dir(), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if strings.Contains(string(data), "s3cret") {
			t.Errorf("%s holds the token", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCommitSigner: an SSH-signed commit names its key, checked offline
// from the cache; an unsigned one is unsigned.
func TestCommitSigner(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	key, pub := gittest.SSHKey(t, work)
	repo := gittest.NewRepo(t, work, "signed")
	repo.Write(map[string]string{"s/SKILL.md": gittest.Skill("s", "1.0.0")})
	unsigned := repo.Commit("unsigned")
	repo.Write(map[string]string{"s/more.md": "more"})
	signed := repo.CommitSigned("signed", key)
	c := newCache(t)
	for _, tt := range []struct {
		commit string
		want   bool
	}{{signed, true}, {unsigned, false}} {
		r, _ := gitsource.Parse(repo.FileURL() + "@" + tt.commit)
		res, err := c.Resolve(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := c.CommitSigner(ctx, res)
		if err != nil || ok != tt.want || (ok && !pub.(ed25519.PublicKey).Equal(got)) {
			t.Errorf("%s: %v %v, want %v", tt.commit, ok, err, tt.want)
		}
	}
}

// TestCommitSignerForged: a signature moved onto another commit does not
// verify.
func TestCommitSignerForged(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	key, _ := gittest.SSHKey(t, work)
	repo := gittest.NewRepo(t, work, "forged")
	repo.Write(map[string]string{"s/SKILL.md": gittest.Skill("s", "1.0.0")})
	signed := repo.CommitSigned("signed", key)
	raw := repo.Git("cat-file", "commit", signed)
	forgedPath := filepath.Join(work, "forged.txt")
	if err := os.WriteFile(forgedPath, []byte(strings.Replace(raw, "\n\nsigned", "\n\nsigned by someone else", 1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	forged := repo.Git("hash-object", "-t", "commit", "-w", forgedPath)
	repo.Git("update-ref", "refs/heads/forged", forged)
	c := newCache(t)
	r, _ := gitsource.Parse(repo.FileURL() + "@forged")
	res, err := c.Resolve(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.CommitSigner(ctx, res); !errors.Is(err, gitsource.ErrBadSignature) {
		t.Errorf("forged signature: %v", err)
	}
}

// TestExportRefusesEscapingPaths: a tree (built with git mktree, which
// checks no names) holding "s/../../evil" is refused before anything is
// written.
func TestExportRefusesEscapingPaths(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	repo := gittest.NewRepo(t, work, "evil")
	blob := func(body string) string {
		f := filepath.Join(work, "blob")
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return repo.Git("hash-object", "-w", f)
	}
	evil := blob("evil")
	skillMD := blob(gittest.Skill("s", "1.0.0"))
	run := func(input string) string {
		cmd := exec.Command("git", "-C", repo.Dir, "mktree")
		cmd.Stdin = strings.NewReader(input)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	inner := run("100644 blob " + evil + "\tevil\n")
	up1 := run("040000 tree " + inner + "\t..\n")
	s := run("100644 blob " + skillMD + "\tSKILL.md\n040000 tree " + up1 + "\t..\n")
	root := run("040000 tree " + s + "\ts\n")
	commit := repo.Git("commit-tree", root, "-m", "evil")
	repo.Git("update-ref", "refs/heads/main", commit)
	c := newCache(t)
	r, _ := gitsource.Parse(repo.FileURL() + "@main")
	res, err := c.Resolve(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "x", "tree")
	if _, err := c.Export(ctx, res, dest); !errors.Is(err, gitsource.ErrUnsafeTree) || !strings.Contains(err.Error(), `"s/.."`) {
		t.Errorf("escaping path: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dest), "evil")); err == nil {
		t.Error("wrote outside the export directory")
	}
	if _, err := os.Stat(dest); err == nil {
		t.Error("wrote the export directory")
	}
}

// TestExportRefusesLinkTricks: trees git would never check out, where a
// symlink is lexically inside its skill but physically out through a
// "0 -> ." chain, or one path is both a symlink and a folder holding a
// file, are refused, and the file outside (a sentinel standing for
// $HOME/.profile) is left as it was.
func TestExportRefusesLinkTricks(t *testing.T) {
	ctx := context.Background()
	skillMD := gittest.Skill("s", "1.0.0")
	for _, tc := range []struct {
		name    string
		entries []gittest.Entry
		want    string
	}{
		{"link and folder", []gittest.Entry{
			{Mode: "100644", Path: "s/SKILL.md", Body: skillMD},
			{Mode: "120000", Path: "s/0", Body: "."},
			{Mode: "120000", Path: "s/a", Body: "0/0/0/../.."},
			{Mode: "100644", Path: "s/a/.profile", Body: "pwned"},
		}, "s/a both as a symlink and as a folder"},
		{"chain out", []gittest.Entry{
			{Mode: "100644", Path: "s/SKILL.md", Body: skillMD},
			{Mode: "120000", Path: "s/0", Body: "."},
			{Mode: "120000", Path: "s/a", Body: "0/0/0/../.."},
		}, "the symlink s/a points to 0/0/0/../.., outside the skill folder s"},
		{"chain out at the root", []gittest.Entry{
			{Mode: "100644", Path: "SKILL.md", Body: skillMD},
			{Mode: "120000", Path: "0", Body: "."},
			{Mode: "120000", Path: "a", Body: "0/0/.."},
		}, "the symlink a points to 0/0/.., outside the skill folder at the repository root"},
		{"loop", []gittest.Entry{
			{Mode: "100644", Path: "s/SKILL.md", Body: skillMD},
			{Mode: "120000", Path: "s/a", Body: "b"},
			{Mode: "120000", Path: "s/b", Body: "a"},
		}, "the symlink s/a points to b"},
		{"twice", []gittest.Entry{
			{Mode: "100644", Path: "s/SKILL.md", Body: skillMD},
			{Mode: "100644", Path: "s/x", Body: "one"},
			{Mode: "100755", Path: "s/x", Body: "two"},
		}, "the tree holds s/x twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			repo := gittest.NewRepo(t, work, "hostile")
			repo.CommitTree(tc.entries)
			c := newCache(t)
			r, _ := gitsource.Parse(repo.FileURL() + "@main")
			res, err := c.Resolve(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(t.TempDir(), "x")
			sentinel := filepath.Join(outside, ".profile")
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(sentinel, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			dest := filepath.Join(outside, "tree")
			_, err = c.Export(ctx, res, dest)
			if !errors.Is(err, gitsource.ErrUnsafeTree) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrUnsafeTree saying %q", err, tc.want)
			}
			if b, err := os.ReadFile(sentinel); err != nil || string(b) != "mine" {
				t.Errorf("the file outside the export was changed: %q, %v", b, err)
			}
			if _, err := os.Lstat(dest); err == nil {
				t.Error("wrote the export directory")
			}
		})
	}
}

// TestExportKeepsLinksInside: symlinks that stay in their skill, through
// other symlinks too, are exported as they are.
func TestExportKeepsLinksInside(t *testing.T) {
	ctx := context.Background()
	repo := gittest.NewRepo(t, t.TempDir(), "hostile")
	repo.CommitTree([]gittest.Entry{
		{Mode: "100644", Path: "s/SKILL.md", Body: gittest.Skill("s", "1.0.0")},
		{Mode: "100644", Path: "s/ref/forms.md", Body: "forms"},
		{Mode: "120000", Path: "s/docs", Body: "ref"},
		{Mode: "120000", Path: "s/forms.md", Body: "docs/forms.md"},
		{Mode: "120000", Path: "s/again", Body: "../s/ref"},
	})
	c := newCache(t)
	r, _ := gitsource.Parse(repo.FileURL() + "@main")
	res, err := c.Resolve(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "tree")
	if _, err := c.Export(ctx, res, dest); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"s/forms.md", "s/again/forms.md"} {
		if b, err := os.ReadFile(filepath.Join(dest, p)); err != nil || string(b) != "forms" {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
}

// TestFetchBoundsBlobs: a repository holds a blob over the size bound
// outside its skill folder. Exporting the skill fetches the skill, and the
// large blob never lands in the cache; a skill that holds such a blob is
// refused, naming the file.
func TestFetchBoundsBlobs(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	const limit = 64 << 10
	big := strings.Repeat("0123456789abcdef", limit/16+1)
	r := gittest.NewRepo(t, work, "heavy")
	// A server that supports partial fetches, as the large hosts do.
	r.Git("config", "uploadpack.allowFilter", "true")
	r.Write(map[string]string{"skills/pdf/SKILL.md": gittest.Skill("pdf", "1.0.0"), "data/dump.bin": big, "skills/fat/SKILL.md": gittest.Skill("fat", "1.0.0"), "skills/fat/blob.bin": big})
	r.Commit("one")
	bigOID := r.Git("rev-parse", "HEAD:data/dump.bin")
	c := gitsource.New(gitsource.Options{Dir: filepath.Join(t.TempDir(), "git"), Env: gittest.Env(), MaxBlobBytes: limit})

	ref, err := gitsource.Parse(r.FileURL() + "@main#skills/pdf")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Resolve(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	skills, err := c.Export(ctx, res, filepath.Join(t.TempDir(), "out"))
	if err != nil || len(skills) != 1 {
		t.Fatalf("export: %v %v", skills, err)
	}
	var cached int64
	err = filepath.WalkDir(c.Dir(), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if strings.Contains(filepath.ToSlash(p), "/objects/") {
			cached += fi.Size()
		}
		if strings.HasSuffix(p, "config") {
			data, _ := os.ReadFile(p)
			if strings.Contains(string(data), "[remote") {
				t.Errorf("%s keeps a remote:\n%s", p, data)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if cached > limit {
		t.Errorf("the cache holds %d bytes of objects: the %d-byte blob outside the skill was fetched", cached, len(big))
	}
	repos, _ := filepath.Glob(filepath.Join(c.Dir(), "repos", "*.git"))
	for _, d := range repos {
		if exec.Command("git", "--git-dir", d, "cat-file", "-e", bigOID).Run() == nil {
			t.Errorf("the large blob is in the cache %s", d)
		}
	}
	if len(repos) != 1 {
		t.Errorf("cache repositories: %v", repos)
	}

	ref, err = gitsource.Parse(r.FileURL() + "@main#skills/fat")
	if err != nil {
		t.Fatal(err)
	}
	if res, err = c.Resolve(ctx, ref); err != nil {
		t.Fatal(err)
	}
	_, err = c.Export(ctx, res, filepath.Join(t.TempDir(), "out"))
	if !errors.Is(err, gitsource.ErrUnsafeTree) || !strings.Contains(err.Error(), "skills/fat/blob.bin is larger than 65536 bytes") {
		t.Fatalf("a skill holding the large blob: %v", err)
	}
}
