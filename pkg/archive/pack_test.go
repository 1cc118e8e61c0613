package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPackTwiceSameBytes(t *testing.T) {
	dir := t.TempDir()
	files := sampleSkill()
	writeTree(t, dir, sortedKeys(files), files)
	a, ra := packBytes(t, dir, PackOptions{})
	b, rb := packBytes(t, dir, PackOptions{})
	if !bytes.Equal(a, b) || ra != rb {
		t.Fatalf("two packs differ: %+v vs %+v", ra, rb)
	}
}

// TestPackIgnoresMetadata builds the same files twice, differently in all
// the ways a second machine would: creation order (and so directory read
// order), umask, permission bits other than "executable", mtimes.
func TestPackIgnoresMetadata(t *testing.T) {
	files := sampleSkill()
	names := sortedKeys(files)

	a := t.TempDir()
	writeTree(t, a, names, files)

	b := t.TempDir()
	old := umask(0o077)
	reversed := slices.Clone(names)
	slices.Reverse(reversed)
	for _, name := range reversed {
		p := filepath.Join(b, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o600)
		if files[name].exec {
			mode = 0o500 | 0o100 // u+x only: still executable
		}
		if err := os.WriteFile(p, []byte(files[name].body), mode); err != nil {
			t.Fatal(err)
		}
	}
	umask(old)
	rng := rand.New(rand.NewPCG(1, 2))
	err := filepath.Walk(b, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		mt := time.Unix(rng.Int64N(2_000_000_000), rng.Int64N(1e9))
		return os.Chtimes(p, mt, mt)
	})
	if err != nil {
		t.Fatal(err)
	}

	da, ra := packBytes(t, a, PackOptions{})
	db, rb := packBytes(t, b, PackOptions{})
	if ra.Digest != rb.Digest || !bytes.Equal(da, db) {
		t.Fatalf("digest depends on metadata: %s vs %s", ra.Digest, rb.Digest)
	}
	if ra.TreeHash != rb.TreeHash {
		t.Fatalf("tree hash depends on metadata")
	}

	// The executable bit is content: dropping it must change both hashes.
	if err := os.Chmod(filepath.Join(b, "scripts", "run.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rc := packBytes(t, b, PackOptions{})
	if rc.Digest == ra.Digest || rc.TreeHash == ra.TreeHash {
		t.Fatal("executable bit not recorded")
	}
}

func TestPackHeaders(t *testing.T) {
	dir := t.TempDir()
	files := sampleSkill()
	writeTree(t, dir, sortedKeys(files), files)
	if err := os.MkdirAll(filepath.Join(dir, "empty", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, res := packBytes(t, dir, PackOptions{})

	// Fixed gzip header: no flags (no name), mtime 0, XFL 0 (level 6), OS 255.
	if got := data[:10]; !bytes.Equal(got, []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}) {
		t.Fatalf("gzip header % x", got)
	}

	hdrs := tarHeaders(t, data)
	names := headerNames(hdrs)
	want := []string{
		"SKILL.md", "assets/", "assets/empty.txt",
		"assets/" + strings.Repeat("long-name-", 12) + ".md",
		"assets/ünïcode.md", "references/", "references/a-b.md", "references/a/",
		"references/a/deep.md", "scripts/", "scripts/lib/", "scripts/lib/helper.py", "scripts/run.sh",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("entries:\n got %q\nwant %q", names, want)
	}
	for _, h := range hdrs {
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: owner %d/%d %q/%q", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if !h.ModTime.Equal(time.Unix(0, 0)) || !h.AccessTime.IsZero() || !h.ChangeTime.IsZero() {
			t.Errorf("%s: times %v %v %v", h.Name, h.ModTime, h.AccessTime, h.ChangeTime)
		}
		for k := range h.PAXRecords {
			if k != "path" {
				t.Errorf("%s: PAX record %q", h.Name, k)
			}
		}
		wantMode := int64(0o644)
		if h.Typeflag == tar.TypeDir || h.Name == "scripts/run.sh" {
			wantMode = 0o755
		}
		if h.Mode != wantMode {
			t.Errorf("%s: mode %o, want %o", h.Name, h.Mode, wantMode)
		}
	}
	if res.Files != 8 || res.Dirs != 5 || res.Size != int64(len(data)) {
		t.Fatalf("result %+v", res)
	}
}

func TestPackModTime(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, []string{"SKILL.md"}, map[string]spec{"SKILL.md": {body: "x"}})
	data, _ := packBytes(t, dir, PackOptions{ModTime: time.Unix(1_700_000_000, 123)})
	for _, h := range tarHeaders(t, data) {
		if h.ModTime.Unix() != 1_700_000_000 || len(h.PAXRecords) != 0 {
			t.Fatalf("%s: mtime %v, records %v", h.Name, h.ModTime, h.PAXRecords)
		}
	}
	for _, bad := range []time.Time{time.Unix(-1, 0), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)} {
		_, err := Pack(context.Background(), dir, io.Discard, PackOptions{ModTime: bad})
		if !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("ModTime %v: err %v, want ErrInvalidOptions", bad, err)
		}
	}
}

func TestPackExclusions(t *testing.T) {
	dir := t.TempDir()
	files := map[string]spec{
		".skillignore":             {body: "# comment\n*.log\n!keep.log\nbuild/\n/secret.txt\nnode_modules\ndocs/**/draft.md\n"},
		"SKILL.md":                 {body: "x"},
		"debug.log":                {body: "x"},
		"keep.log":                 {body: "x"},
		"build/out.bin":            {body: "x"},
		"sub/build/out.bin":        {body: "x"},
		"secret.txt":               {body: "x"},
		"sub/secret.txt":           {body: "kept: pattern anchored at the root"},
		"node_modules/x/index.js":  {body: "x"},
		"docs/a/b/draft.md":        {body: "x"},
		"docs/final.md":            {body: "x"},
		"only-ignored/trace.log":   {body: "x"},
		".git/HEAD":                {body: "ref: refs/heads/main\n"},
		".hg/store":                {body: "x"},
		".svn/entries":             {body: "x"},
		"sub/.git":                 {body: "gitdir: ../.git/modules/sub\n"},
		".github/workflows/ci.yml": {body: "kept: not a VCS folder"},
	}
	writeTree(t, dir, sortedKeys(files), files)
	// Ignored links and special files are not errors: they are not packed.
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "node_modules", "link")); err != nil {
		t.Fatal(err)
	}
	data, res := packBytes(t, dir, PackOptions{})
	want := []string{
		".github/", ".github/workflows/", ".github/workflows/ci.yml", ".skillignore", "SKILL.md",
		"docs/", "docs/final.md", "keep.log", "sub/", "sub/secret.txt",
	}
	if got := headerNames(tarHeaders(t, data)); !slices.Equal(got, want) {
		t.Fatalf("entries:\n got %q\nwant %q", got, want)
	}
	hd, err := TreeHashDir(context.Background(), dir, PackOptions{})
	if err != nil || hd != res.Summary {
		t.Fatalf("TreeHashDir = %+v, %v; Pack = %+v", hd, err, res.Summary)
	}
}

func TestPackSkillignoreIgnoringItself(t *testing.T) {
	dir := t.TempDir()
	files := map[string]spec{".skillignore": {body: ".skillignore\n"}, "SKILL.md": {body: "x"}}
	writeTree(t, dir, sortedKeys(files), files)
	data, _ := packBytes(t, dir, PackOptions{})
	if got := headerNames(tarHeaders(t, data)); !slices.Equal(got, []string{"SKILL.md"}) {
		t.Fatalf("entries %q", got)
	}
}

func TestPackRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		opts  PackOptions
		want  error
		entry string
	}{
		{"symlink", func(t *testing.T, dir string) {
			mustSymlink(t, "SKILL.md", filepath.Join(dir, "link.md"))
		}, PackOptions{}, ErrLinkEntry, "link.md"},
		{"dangling symlink dir", func(t *testing.T, dir string) {
			mustSymlink(t, "/nowhere", filepath.Join(dir, "sub", "gone"))
		}, PackOptions{}, ErrLinkEntry, "sub/gone"},
		{"fifo", func(t *testing.T, dir string) {
			if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
				t.Fatal("mkfifo:", err)
			}
		}, PackOptions{}, ErrSpecialFile, "pipe"},
		{"backslash", func(t *testing.T, dir string) { mustWrite(t, dir, `a\b.md`) }, PackOptions{}, ErrUnsafePath, `a\b.md`},
		{"device name", func(t *testing.T, dir string) { mustWrite(t, dir, "sub/aux.md") }, PackOptions{}, ErrUnsafePath, "sub/aux.md"},
		{"non-UTF-8", func(t *testing.T, dir string) { mustWrite(t, dir, "\xff.md") }, PackOptions{}, ErrUnsafePath, "\xff.md"},
		{"case collision", func(t *testing.T, dir string) { mustWrite(t, dir, "sub/readme.md") }, PackOptions{}, ErrCaseCollision, "sub/readme.md"},
		{"too big", func(t *testing.T, dir string) {}, PackOptions{Limits: limits(func(l *Limits) { l.MaxFileBytes = 3 })}, ErrLimit, "SKILL.md"},
		{"too many", func(t *testing.T, dir string) {}, PackOptions{Limits: limits(func(l *Limits) { l.MaxEntries = 2 })}, ErrLimit, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, []string{"SKILL.md", "sub/README.md"}, map[string]spec{"SKILL.md": {body: "skill"}, "sub/README.md": {body: "r"}})
			tt.setup(t, dir)
			_, err := Pack(context.Background(), dir, io.Discard, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if tt.entry != "" {
				var ee *EntryError
				if !errors.As(err, &ee) || ee.Entry != tt.entry {
					t.Fatalf("err = %v, want entry %q", err, tt.entry)
				}
			}
			// TreeHashDir agrees with Pack on what it refuses.
			if _, err := TreeHashDir(context.Background(), dir, tt.opts); !errors.Is(err, tt.want) {
				t.Fatalf("TreeHashDir err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestPackOptionsValidate(t *testing.T) {
	if err := (PackOptions{}).Validate(); err != nil {
		t.Fatal(err)
	}
	_, err := Pack(context.Background(), t.TempDir(), io.Discard, PackOptions{Limits: Limits{MaxEntries: 1}})
	if !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("partial Limits: err = %v", err)
	}
}

func TestPackCancelled(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, []string{"SKILL.md"}, map[string]spec{"SKILL.md": {body: "x"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Pack(ctx, dir, io.Discard, PackOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// TestPackGolden pins the format: a change here changes every published
// digest, so it must be deliberate (a new layer media type or version).
func TestPackGolden(t *testing.T) {
	dir := t.TempDir()
	files := sampleSkill()
	writeTree(t, dir, sortedKeys(files), files)
	_, res := packBytes(t, dir, PackOptions{})
	const (
		wantDigest = "sha256:fd582281408d3f7f545ec2ddcee8abee842df337b375753f302246a98a308e67"
		wantTree   = "sha256:c9d4a58da337f8272f7cffeb73b2068a1a42068aedd7ca98fc43d23be9b30ff1"
	)
	if res.Digest != wantDigest || res.TreeHash != wantTree {
		t.Fatalf("format changed:\n digest %s\n   tree %s", res.Digest, res.TreeHash)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, dir, name string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
		t.Fatal(err)
	}
}

func limits(edit func(*Limits)) Limits {
	l := DefaultLimits()
	edit(&l)
	return l
}
