package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/hostile and testdata/fuzz/FuzzUnpack from the builders")

// unpackInto unpacks data into a fresh parent and returns the parent, dest
// and the outcome.
func unpackInto(t *testing.T, data []byte, lim Limits) (parent, dest string, s Summary, err error) {
	t.Helper()
	parent = t.TempDir()
	dest = filepath.Join(parent, "skill")
	s, err = Unpack(context.Background(), bytes.NewReader(data), dest, lim)
	return parent, dest, s, err
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	files := sampleSkill()
	files[".skillignore"] = spec{body: "*.tmp\n"}
	files["scratch.tmp"] = spec{body: "ignored"}
	writeTree(t, src, sortedKeys(files), files)
	data, packed := packBytes(t, src, PackOptions{})

	parent, dest, got, err := unpackInto(t, data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got != packed.Summary {
		t.Fatalf("Unpack %+v, Pack %+v", got, packed.Summary)
	}
	if names := listDir(t, parent); !slices.Equal(names, []string{"skill"}) {
		t.Fatalf("parent holds %q", names)
	}
	inst, err := TreeHashInstalled(ctx, dest)
	if err != nil || inst != packed.Summary {
		t.Fatalf("TreeHashInstalled %+v, %v; want %+v", inst, err, packed.Summary)
	}
	hd, err := TreeHashDir(ctx, dest, PackOptions{})
	if err != nil || hd != packed.Summary {
		t.Fatalf("TreeHashDir %+v, %v; want %+v", hd, err, packed.Summary)
	}
	// Repacking the installed tree gives the same bytes.
	again, _ := packBytes(t, dest, PackOptions{})
	if !bytes.Equal(again, data) {
		t.Fatal("repack of unpacked tree differs")
	}
	for name, s := range files {
		if name == "scratch.tmp" {
			continue
		}
		p := filepath.Join(dest, filepath.FromSlash(name))
		b, err := os.ReadFile(p)
		if err != nil || string(b) != s.body {
			t.Fatalf("%s: %q, %v", name, b, err)
		}
		fi, _ := os.Stat(p)
		want := os.FileMode(0o644)
		if s.exec {
			want = 0o755
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode(), want)
		}
	}
	if fi, _ := os.Stat(dest); fi.Mode().Perm() != 0o755 {
		t.Errorf("dest mode %v", fi.Mode())
	}
}

// TestTreeHashDefinition recomputes the documented listing by hand.
func TestTreeHashDefinition(t *testing.T) {
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	listing := "0644 SKILL.md\x00" + sum("hi\n") + "\n" +
		"0755 scripts/run.sh\x00" + sum("#!/bin/sh\n") + "\n"
	h := sha256.Sum256([]byte(listing))
	want := "sha256:" + hex.EncodeToString(h[:])

	got := TreeHash([]File{
		{Path: "scripts/run.sh", Executable: true, SHA256: sha256.Sum256([]byte("#!/bin/sh\n"))},
		{Path: "SKILL.md", SHA256: sha256.Sum256([]byte("hi\n"))},
	})
	if got != want {
		t.Fatalf("TreeHash = %s, want %s", got, want)
	}
	empty := sha256.Sum256(nil)
	if TreeHash(nil) != "sha256:"+hex.EncodeToString(empty[:]) {
		t.Fatal("empty tree")
	}

	dir := t.TempDir()
	writeTree(t, dir, []string{"SKILL.md", "scripts/run.sh", "empty/"}, map[string]spec{
		"SKILL.md": {body: "hi\n"}, "scripts/run.sh": {body: "#!/bin/sh\n", exec: true},
	})
	s, err := TreeHashInstalled(context.Background(), dir)
	if err != nil || s.TreeHash != want {
		t.Fatalf("TreeHashInstalled = %+v, %v; want %s", s, err, want)
	}
}

func TestTreeHashInstalledDetectsEdits(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	files := map[string]spec{".skillignore": {body: "*.log\n"}, "SKILL.md": {body: "x"}, "run.sh": {body: "y", exec: true}}
	writeTree(t, src, sortedKeys(files), files)
	data, packed := packBytes(t, src, PackOptions{})
	edits := []struct {
		name    string
		edit    func(dest string) error
		changed bool
	}{
		{"content", func(d string) error { return os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("z"), 0o644) }, true},
		{"exec bit", func(d string) error { return os.Chmod(filepath.Join(d, "run.sh"), 0o644) }, true},
		{"new ignored file", func(d string) error { return os.WriteFile(filepath.Join(d, "x.log"), nil, 0o644) }, true},
		{"new .git", func(d string) error { return os.WriteFile(filepath.Join(d, ".git"), nil, 0o644) }, true},
		{"removed", func(d string) error { return os.Remove(filepath.Join(d, "run.sh")) }, true},
		{"empty dir", func(d string) error { return os.Mkdir(filepath.Join(d, "empty"), 0o755) }, false},
		{"other read bits", func(d string) error { return os.Chmod(filepath.Join(d, "SKILL.md"), 0o600) }, false},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			_, dest, _, err := unpackInto(t, data, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.edit(dest); err != nil {
				t.Fatal(err)
			}
			s, err := TreeHashInstalled(ctx, dest)
			if err != nil {
				t.Fatal(err)
			}
			if (s.TreeHash != packed.TreeHash) != e.changed {
				t.Fatalf("changed = %v, want %v", s.TreeHash != packed.TreeHash, e.changed)
			}
		})
	}
	t.Run("symlink", func(t *testing.T) {
		_, dest, _, err := unpackInto(t, data, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		mustSymlink(t, "/etc/passwd", filepath.Join(dest, "x.log"))
		if _, err := TreeHashInstalled(ctx, dest); !errors.Is(err, ErrLinkEntry) {
			t.Fatalf("err = %v", err)
		}
	})
}

// hostileCase is one archive Unpack must refuse.
type hostileCase struct {
	name    string // also the fixture file name when fixture is set
	data    func(t testing.TB) []byte
	limits  Limits
	want    error
	entry   string // the entry the error names; "" for stream-level errors
	fixture bool   // committed under testdata/hostile
}

func entries(es ...ent) func(testing.TB) []byte {
	return func(t testing.TB) []byte { return tarGz(t, es...) }
}

func raw(parts ...[]byte) func(testing.TB) []byte {
	return func(t testing.TB) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return gzipBytes(t, append(b, endOfArchive()...))
	}
}

func small(edit func(*Limits)) Limits { return limits(edit) }

func hostileCases() []hostileCase {
	nfc, nfd := "caf\u00e9.md", "cafe\u0301.md"
	deep := strings.Repeat("d/", 32) + "f"
	return []hostileCase{
		{name: "traversal", data: entries(file("../evil", "x")), want: ErrUnsafePath, entry: "../evil", fixture: true},
		{name: "traversal-inner", data: entries(file("a/../../evil", "x")), want: ErrUnsafePath, entry: "a/../../evil", fixture: true},
		{name: "traversal-dot", data: entries(file("a/./b", "x")), want: ErrUnsafePath, entry: "a/./b"},
		{name: "absolute", data: entries(file("/tmp/evil", "x")), want: ErrUnsafePath, entry: "/tmp/evil", fixture: true},
		{name: "drive-letter", data: entries(file("C:/Windows/evil", "x")), want: ErrUnsafePath, entry: "C:/Windows/evil", fixture: true},
		{name: "drive-relative", data: entries(file("C:evil", "x")), want: ErrUnsafePath, entry: "C:evil"},
		{name: "backslash-traversal", data: entries(file(`..\..\evil`, "x")), want: ErrUnsafePath, entry: `..\..\evil`, fixture: true},
		{name: "unc-path", data: entries(file(`\\server\share\evil`, "x")), want: ErrUnsafePath, entry: `\\server\share\evil`},
		{name: "windows-device", data: entries(file("docs/NUL.txt", "x")), want: ErrUnsafePath, entry: "docs/NUL.txt"},
		{name: "trailing-dot", data: entries(file("a.", "x")), want: ErrUnsafePath, entry: "a."},
		{name: "empty-component", data: entries(file("a//b", "x")), want: ErrUnsafePath, entry: "a//b"},
		{name: "empty-name", data: raw(rawEntry("", tar.TypeReg, "x")), want: ErrUnsafePath, entry: ""},
		{name: "newline-name", data: entries(file("a\nb", "x")), want: ErrUnsafePath, entry: "a\nb"},
		{name: "non-utf8", data: entries(file("bad\xff.md", "x")), want: ErrUnsafePath, entry: "bad\xff.md", fixture: true},
		{name: "nul-in-pax-path", data: raw(rawEntry("PaxHeaders.0/a", tar.TypeXHeader, paxRecord("path", "a\x00b")), rawEntry("a", tar.TypeReg, "x")), want: ErrCorrupt},
		{name: "symlink", data: entries(ent{name: "link", typ: tar.TypeSymlink, link: "/etc/passwd"}), want: ErrLinkEntry, entry: "link", fixture: true},
		{name: "git-fsmonitor", data: entries(file("SKILL.md", "x"), file(".git/config", "[core]\n\tfsmonitor = \"touch pwned\"\n")), want: ErrImplicitExec, entry: ".git/config"},
		{name: "git-dir-entry", data: entries(dirEnt("scripts/.GIT/")), want: ErrImplicitExec, entry: "scripts/.GIT/"},
		{name: "git-file-pointer", data: entries(file(".git", "gitdir: /home/user/.ssh\n")), want: ErrImplicitExec, entry: ".git"},
		{name: "hg-hgrc", data: entries(file(".hg/hgrc", "[hooks]\npre-status = touch pwned\n")), want: ErrImplicitExec, entry: ".hg/hgrc"},
		{name: "svn", data: entries(file("a/.svn/entries", "x")), want: ErrImplicitExec, entry: "a/.svn/entries"},
		{name: "symlink-then-write", data: entries(ent{name: "d", typ: tar.TypeSymlink, link: ".."}, file("d/evil", "x")), want: ErrLinkEntry, entry: "d"},
		{name: "hardlink", data: entries(file("a", "x"), ent{name: "b", typ: tar.TypeLink, link: "a"}), want: ErrLinkEntry, entry: "b", fixture: true},
		{name: "hardlink-outside", data: entries(ent{name: "passwd", typ: tar.TypeLink, link: "/etc/passwd"}), want: ErrLinkEntry, entry: "passwd"},
		{name: "char-device", data: entries(ent{name: "tty", typ: tar.TypeChar}), want: ErrSpecialFile, entry: "tty", fixture: true},
		{name: "block-device", data: entries(ent{name: "sda", typ: tar.TypeBlock}), want: ErrSpecialFile, entry: "sda"},
		{name: "fifo", data: entries(ent{name: "pipe", typ: tar.TypeFifo}), want: ErrSpecialFile, entry: "pipe"},
		{name: "gnu-sparse", data: raw(rawEntry("sparse", tar.TypeGNUSparse, "")), want: ErrSpecialFile, entry: "sparse"},
		{name: "contiguous", data: raw(rawEntry("c", tar.TypeCont, "x")), want: ErrSpecialFile, entry: "c"},
		{name: "duplicate", data: entries(file("SKILL.md", "good"), file("SKILL.md", "evil")), want: ErrDuplicateEntry, entry: "SKILL.md", fixture: true},
		{name: "duplicate-dir", data: entries(dirEnt("a/"), dirEnt("a/")), want: ErrDuplicateEntry, entry: "a/"},
		{name: "duplicate-dot-slash", data: entries(file("a", "x"), file("./a", "y")), want: ErrDuplicateEntry, entry: "./a"},
		{name: "case-collision", data: entries(file("SKILL.md", "good"), file("skill.md", "evil")), want: ErrCaseCollision, entry: "skill.md", fixture: true},
		{name: "case-collision-dir", data: entries(file("Docs/a", "x"), file("docs/b", "y")), want: ErrCaseCollision, entry: "docs/b"},
		{name: "unicode-normalisation", data: entries(file(nfc, "x"), file(nfd, "y")), want: ErrCaseCollision, entry: nfd},
		{name: "unicode-fold", data: entries(file("STRASSE", "x"), file("straße", "y")), want: ErrCaseCollision, entry: "straße"},
		{name: "under-file", data: entries(file("a", "x"), file("a/b", "y")), want: ErrPathConflict, entry: "a/b", fixture: true},
		{name: "dir-over-file", data: entries(file("a", "x"), dirEnt("a/")), want: ErrPathConflict, entry: "a/"},
		{name: "file-over-dir", data: entries(file("a/b", "x"), file("a", "y")), want: ErrPathConflict, entry: "a"},
		{name: "gzip-bomb", data: func(t testing.TB) []byte {
			return tarGz(t, ent{name: "zeros", typ: tar.TypeReg, mode: 0o644, body: string(make([]byte, 16<<20))})
		}, want: ErrLimit, entry: "zeros", fixture: true},
		{name: "trailing-bomb", data: func(t testing.TB) []byte {
			return gzipBytes(t, append(tarBytes(t, []ent{file("a", "x")}), make([]byte, 8<<20)...))
		}, limits: small(func(l *Limits) { l.MaxTotalBytes, l.MaxFileBytes, l.MaxEntries, l.MaxRatio = 1<<20, 1<<20, 10, 1<<20 }), want: ErrLimit},
		{name: "too-many-files", data: func(t testing.TB) []byte {
			var es []ent
			for i := range 11 {
				es = append(es, file(fmt.Sprintf("f%02d", i), ""))
			}
			return tarGz(t, es...)
		}, limits: small(func(l *Limits) { l.MaxEntries = 10 }), want: ErrLimit, entry: "f10"},
		{name: "too-many-implied-dirs", data: entries(file("a/b/c/d/e/f", "x")), limits: small(func(l *Limits) { l.MaxEntries = 5 }), want: ErrLimit, entry: "a/b/c/d/e/f"},
		{name: "oversize-file", data: entries(file("big", "0123456789A")), limits: small(func(l *Limits) { l.MaxFileBytes = 10 }), want: ErrLimit, entry: "big"},
		{name: "oversize-claimed", data: entries(ent{name: "huge", typ: tar.TypeReg, mode: 0o644, size: 1 << 40}), want: ErrLimit, entry: "huge", fixture: true},
		{name: "total-size", data: entries(file("a", "12345"), file("b", "123456")), limits: small(func(l *Limits) { l.MaxTotalBytes, l.MaxFileBytes = 10, 10 }), want: ErrLimit, entry: "b"},
		{name: "overlong-path", data: entries(file(strings.Repeat("p", 1025), "x")), want: ErrLimit, entry: strings.Repeat("p", 1025)},
		{name: "too-deep", data: entries(file(deep, "x")), want: ErrLimit, entry: deep},
		{name: "lying-size", data: entries(ent{name: "short", typ: tar.TypeReg, mode: 0o644, size: 4096}), want: ErrCorrupt, entry: "short"},
		{name: "not-gzip", data: func(testing.TB) []byte { return []byte("PK\x03\x04 this is a zip") }, want: ErrCorrupt},
		{name: "raw-tar", data: func(t testing.TB) []byte { return tarBytes(t, []ent{file("a", "x")}) }, want: ErrCorrupt},
		{name: "truncated", data: func(t testing.TB) []byte { b := tarGz(t, file("a", strings.Repeat("x", 5000))); return b[:len(b)/2] }, want: ErrCorrupt},
		{name: "bad-checksum", data: func(t testing.TB) []byte {
			b := tarGz(t, file("a", "x"))
			b[len(b)-8] ^= 0xff // CRC-32 in the gzip trailer
			return b
		}, want: ErrCorrupt},
		{name: "bad-tar-header", data: func(t testing.TB) []byte {
			b := tarBytes(t, []ent{file("a", "x")})
			b[148] = 'z' // header checksum
			return gzipBytes(t, b)
		}, want: ErrCorrupt},
	}
}

func TestUnpackHostile(t *testing.T) {
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			checkRefused(t, tc, tc.data(t))
		})
	}
}

// TestHostileFixtures runs the committed fixtures, so the files in
// testdata/hostile stay meaningful for other tools and packages.
func TestHostileFixtures(t *testing.T) {
	dir := filepath.Join("testdata", "hostile")
	for _, tc := range hostileCases() {
		if !tc.fixture {
			continue
		}
		p := filepath.Join(dir, tc.name+".tar.gz")
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, tc.data(t), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			checkRefused(t, tc, data)
		})
	}
}

func checkRefused(t *testing.T, tc hostileCase, data []byte) {
	t.Helper()
	parent, dest, s, err := unpackInto(t, data, tc.limits)
	if !errors.Is(err, tc.want) {
		t.Fatalf("err = %v, want %v (summary %+v)", err, tc.want, s)
	}
	var ee *EntryError
	if tc.entry != "" && (!errors.As(err, &ee) || ee.Entry != tc.entry) {
		t.Fatalf("err = %v, want it to name entry %q", err, tc.entry)
	}
	if names := listDir(t, parent); len(names) != 0 {
		t.Fatalf("left behind in parent: %q", names)
	}
	if _, err := os.Lstat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("dest exists: %v", err)
	}
}

// TestUnpackAcceptsForeignTars covers legitimate shapes other tools write.
func TestUnpackAcceptsForeignTars(t *testing.T) {
	tests := []struct {
		name  string
		data  func(testing.TB) []byte
		files []string
	}{
		{"dot-slash", entries(dirEnt("./"), dirEnt("./a/"), file("./a/b.md", "x")), []string{"a/b.md"}},
		{"no dir entries", entries(file("a/b/c.md", "x"), file("a/d.md", "y")), []string{"a/b/c.md", "a/d.md"}},
		{"dir after contents", entries(file("a/b.md", "x"), dirEnt("a/")), []string{"a/b.md"}},
		{"global header", entries(ent{name: "pax_global_header", typ: tar.TypeXGlobalHeader, body: "commit"}, file("a", "x")), []string{"a"}},
		{"unsorted", entries(file("z", "1"), file("a", "2")), []string{"a", "z"}},
		{"empty dir", entries(dirEnt("empty/"), file("a", "x")), []string{"a"}},
		{"empty archive", entries(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, dest, s, err := unpackInto(t, tt.data(t), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if s.Files != len(tt.files) {
				t.Fatalf("summary %+v, want files %q", s, tt.files)
			}
			inst, err := TreeHashInstalled(context.Background(), dest)
			if err != nil || inst.TreeHash != s.TreeHash {
				t.Fatalf("installed %+v, %v; unpacked %+v", inst, err, s)
			}
		})
	}
}

func TestUnpackModes(t *testing.T) {
	old := umask(0o077)
	defer umask(old)
	data := tarGz(t,
		ent{name: "d/", typ: tar.TypeDir, mode: 0o700},
		ent{name: "d/setuid", typ: tar.TypeReg, mode: 0o4755 | 0o2000, body: "x"},
		ent{name: "d/private", typ: tar.TypeReg, mode: 0o600, body: "x"},
		ent{name: "d/world", typ: tar.TypeReg, mode: 0o777, body: "x"},
		ent{name: "d/groupx", typ: tar.TypeReg, mode: 0o610, body: "x"},
	)
	_, dest, _, err := unpackInto(t, data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{"d": os.ModeDir | 0o755, "d/setuid": 0o755, "d/private": 0o644, "d/world": 0o755, "d/groupx": 0o755}
	for name, mode := range want {
		fi, err := os.Lstat(filepath.Join(dest, name))
		if err != nil || fi.Mode() != mode {
			t.Errorf("%s: mode %v, %v; want %v", name, fi.Mode(), err, mode)
		}
	}
}

func TestUnpackDestExists(t *testing.T) {
	data := tarGz(t, file("a", "x"))
	for _, kind := range []string{"dir", "file", "symlink"} {
		t.Run(kind, func(t *testing.T) {
			parent := t.TempDir()
			dest := filepath.Join(parent, "skill")
			switch kind {
			case "dir":
				os.Mkdir(dest, 0o755)
			case "file":
				os.WriteFile(dest, nil, 0o644)
			case "symlink":
				os.Mkdir(filepath.Join(parent, "elsewhere"), 0o755)
				os.Symlink("elsewhere", dest)
			}
			before := listDir(t, parent)
			_, err := Unpack(context.Background(), bytes.NewReader(data), dest, Limits{})
			if !errors.Is(err, ErrDestExists) {
				t.Fatalf("err = %v", err)
			}
			if after := listDir(t, parent); !slices.Equal(before, after) {
				t.Fatalf("parent changed: %q -> %q", before, after)
			}
			if kind == "symlink" && len(listDir(t, filepath.Join(parent, "elsewhere"))) != 0 {
				t.Fatal("wrote through the symlink")
			}
		})
	}
}

func TestUnpackCancelled(t *testing.T) {
	data := tarGz(t, file("a", "x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	parent := t.TempDir()
	_, err := Unpack(ctx, bytes.NewReader(data), filepath.Join(parent, "skill"), Limits{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if names := listDir(t, parent); len(names) != 0 {
		t.Fatalf("left behind %q", names)
	}
}

func TestLimitsValidate(t *testing.T) {
	if err := (Limits{}).Validate(); err != nil {
		t.Fatalf("zero: %v", err)
	}
	if err := DefaultLimits().Validate(); err != nil {
		t.Fatalf("default: %v", err)
	}
	bad := map[string]func(*Limits){
		"MaxEntries":      func(l *Limits) { l.MaxEntries = 0 },
		"MaxTotalBytes":   func(l *Limits) { l.MaxTotalBytes = -1 },
		"MaxFileBytes":    func(l *Limits) { l.MaxFileBytes = 0 },
		"MaxPathBytes":    func(l *Limits) { l.MaxPathBytes = 0 },
		"MaxDepth":        func(l *Limits) { l.MaxDepth = -3 },
		"MaxRatio":        func(l *Limits) { l.MaxRatio = 0 },
		"RatioFloorBytes": func(l *Limits) { l.RatioFloorBytes = 0 },
		"file > total":    func(l *Limits) { l.MaxFileBytes = l.MaxTotalBytes + 1 },
		"depth > path":    func(l *Limits) { l.MaxDepth, l.MaxPathBytes = 10, 5 },
		"huge":            func(l *Limits) { l.MaxTotalBytes, l.MaxFileBytes = 1<<62, 1 },
	}
	for name, edit := range bad {
		l := limits(edit)
		if err := l.Validate(); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: err = %v", name, err)
		}
		_, err := Unpack(context.Background(), bytes.NewReader(nil), filepath.Join(t.TempDir(), "x"), l)
		if !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: Unpack err = %v", name, err)
		}
	}
}

// TestErrorMessages keeps errors readable: the entry and the reason.
func TestErrorMessages(t *testing.T) {
	_, _, _, err := unpackInto(t, tarGz(t, file("../evil", "x")), Limits{})
	if got := err.Error(); got != `archive: "../evil": unsafe path: path component ..` {
		t.Fatalf("message %q", got)
	}
	_, _, _, err = unpackInto(t, []byte("nope"), Limits{})
	if got := err.Error(); !strings.HasPrefix(got, "archive: corrupt archive: ") {
		t.Fatalf("message %q", got)
	}
}
