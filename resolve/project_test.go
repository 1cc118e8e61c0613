package resolve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/golden"
	"github.com/skillpm/skillpm/pkg/errdef"
)

// projectDir holds the project-file fixtures shared with other packages.
var projectDir = filepath.Join("..", "testdata", "project")

func readManifest(t *testing.T, rel string) *Manifest {
	t.Helper()
	m, err := ReadManifest(context.Background(), filepath.Join(projectDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseManifest(t *testing.T) {
	m := readManifest(t, "basic/skills.yaml")
	if m.Registry != "ghcr.io/acme/skills" || m.Host != "claude" {
		t.Errorf("registry, host = %q, %q", m.Registry, m.Host)
	}
	if abs, _ := filepath.Abs(filepath.Join(projectDir, "basic")); m.Dir != abs {
		t.Errorf("Dir = %q, want %q", m.Dir, abs)
	}
	want := []Requirement{
		{Name: "fix", Range: "^1", Line: 6, Column: 3},
		{Name: "ghcr.io/other/tools/lint", Range: ">=1.0, <2.0", Line: 7, Column: 3},
		{Name: "triage", Range: AnyRange, Line: 8, Column: 3},
		{Name: "web-research", Range: "~1.4", Line: 5, Column: 3},
	}
	if !reflect.DeepEqual(m.Skills, want) {
		t.Errorf("skills:\n got %+v\nwant %+v", m.Skills, want)
	}
	ns, err := m.Namespace("")
	if err != nil || ns.Default != "ghcr.io/acme/skills" {
		t.Errorf("Namespace() = %+v, %v", ns, err)
	}
	ns, err = m.Namespace("oci-layout:/srv/bundle/")
	if err != nil || ns.Default != "oci-layout:/srv/bundle" {
		t.Errorf("Namespace(--from) = %+v, %v", ns, err)
	}
	if _, err := m.Namespace("skills"); err == nil {
		t.Error("Namespace(bad --from): no error")
	}
}

func TestParseManifestEmpty(t *testing.T) {
	for _, data := range []string{"", "# nothing\n", "skills:\n", "registry: localhost:5000\n"} {
		m, err := ParseManifest("skills.yaml", []byte(data))
		if err != nil || len(m.Skills) != 0 {
			t.Errorf("ParseManifest(%q) = %+v, %v; want no skills", data, m, err)
		}
	}
}

func TestParseAgentManifest(t *testing.T) {
	m := readManifest(t, "gaia/gaia-agent.yaml")
	want := []Requirement{
		{Name: "fix", Range: "^1.1", Line: 10, Column: 5},
		{Name: "ghcr.io/other/tools/lint", Range: "1.x", Line: 12, Column: 5},
		{Name: "translate", Range: "^2", Optional: true, Line: 15, Column: 5},
		{Name: "web-research", Range: AnyRange, Line: 9, Column: 5},
	}
	if !reflect.DeepEqual(m.Skills, want) {
		t.Errorf("skills:\n got %+v\nwant %+v", m.Skills, want)
	}
	if m.Registry != "" || m.Host != "" {
		t.Errorf("registry, host = %q, %q; GAIA's other fields must be left alone", m.Registry, m.Host)
	}
	// The skills.yaml form is read too.
	m, err := ParseAgentManifest("gaia-agent.yaml", []byte("name: a\nskills:\n  fix: ^1\n"))
	if err != nil || len(m.Skills) != 1 || m.Skills[0].Range != "^1" {
		t.Errorf("mapping form: %+v, %v", m, err)
	}
}

// TestInvalidProjectFiles checks every invalid fixture fails at the right
// file:line with a hint, against invalid/errors.golden.
func TestInvalidProjectFiles(t *testing.T) {
	dir := filepath.Join(projectDir, "invalid")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		name := e.Name()
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var sentinel error
		switch {
		case strings.HasSuffix(name, ".gaia-agent.yaml"):
			_, err = ParseAgentManifest(name, data)
			sentinel = ErrInvalidManifest
		case strings.HasSuffix(name, ".yaml"):
			_, err = ParseManifest(name, data)
			sentinel = ErrInvalidManifest
		case strings.HasSuffix(name, ".lock"):
			_, err = ParseLockfile(name, data)
			sentinel = ErrInvalidLock
		default:
			continue
		}
		var fe *FileError
		if !errors.As(err, &fe) || !errors.Is(err, sentinel) {
			t.Errorf("%s: got %v, want a *FileError wrapping %v", name, err, sentinel)
			continue
		}
		if fe.Line == 0 && !strings.Contains(name, "no-version") {
			t.Errorf("%s: no line in %v", name, err)
		}
		fmt.Fprintln(&b, err)
	}
	checkGolden(t, filepath.Join(dir, "errors.golden"), []byte(b.String()))
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, path, got, *update)
}

func TestLockfileRoundTrip(t *testing.T) {
	path := filepath.Join(projectDir, "basic", "skills.lock")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseLockfile(path, data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, data) {
		t.Errorf("parse then marshal changed the lock:\n%s", out)
	}
	// Order in the file does not matter; the written form is sorted.
	shuffled := &Lockfile{Version: 1, Skills: append([]LockedSkill(nil), l.Skills...)}
	sort.Slice(shuffled.Skills, func(i, j int) bool { return shuffled.Skills[i].Name > shuffled.Skills[j].Name })
	if out2, _ := shuffled.Marshal(); !bytes.Equal(out2, data) {
		t.Errorf("marshal depends on entry order")
	}
	// Write is atomic and reads back the same.
	tmp := filepath.Join(t.TempDir(), LockFile)
	ctx := context.Background()
	if err := WriteLockfile(ctx, tmp, l); err != nil {
		t.Fatal(err)
	}
	if err := WriteLockfile(ctx, tmp, l); err != nil { // over an existing file
		t.Fatal(err)
	}
	back, err := ReadLockfile(ctx, tmp)
	if err != nil {
		t.Fatal(err)
	}
	if written, _ := os.ReadFile(tmp); !bytes.Equal(written, data) {
		t.Errorf("written lock differs from the golden")
	}
	back.File, l.File = "", ""
	if !reflect.DeepEqual(back, l) {
		t.Errorf("read back %+v, want %+v", back, l)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(tmp), ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := ReadLockfile(ctx, filepath.Join(t.TempDir(), "none.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing lock: %v, want ErrNotExist", err)
	}
}

// FuzzProjectFiles feeds arbitrary bytes to the three project-file
// parsers: none may panic, every failure is a positioned *FileError, and a
// lock that parses writes bytes that parse back to the same bytes. The
// seeds are the project fixtures.
func FuzzProjectFiles(f *testing.F) {
	for _, glob := range []string{"*/*.yaml", "*/*.lock", "invalid/*"} {
		paths, _ := filepath.Glob(filepath.Join(projectDir, glob))
		for _, p := range paths {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fe *FileError
		if _, err := ParseManifest("skills.yaml", data); err != nil && !errors.As(err, &fe) {
			t.Fatalf("ParseManifest: %v is not a *FileError", err)
		}
		if _, err := ParseAgentManifest("gaia-agent.yaml", data); err != nil && !errors.As(err, &fe) {
			t.Fatalf("ParseAgentManifest: %v is not a *FileError", err)
		}
		l, err := ParseLockfile("skills.lock", data)
		if err != nil {
			if !errors.As(err, &fe) {
				t.Fatalf("ParseLockfile: %v is not a *FileError", err)
			}
			return
		}
		out, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		l2, err := ParseLockfile("skills.lock", out)
		if err != nil {
			t.Fatalf("a written lock does not parse: %v\n%s", err, out)
		}
		if out2, _ := l2.Marshal(); !bytes.Equal(out, out2) {
			t.Fatalf("marshal is not stable:\n%s\n---\n%s", out, out2)
		}
	})
}

// TestManifestRange: the range a manifest asks for a name, "" for a name
// it does not have, and "" read as any release.
func TestManifestRange(t *testing.T) {
	m := &Manifest{Skills: []Requirement{{Name: "fix", Range: "^1"}, {Name: "ghcr.io/acme/skills/lint", Range: ""}}}
	for _, tt := range []struct{ name, want, orAny string }{
		{"fix", "^1", "^1"},
		{"ghcr.io/acme/skills/lint", "", AnyRange},
		{"lint", "", AnyRange},
	} {
		if got := m.Range(tt.name); got != tt.want {
			t.Errorf("Range(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if got := RangeOrAny(m.Range(tt.name)); got != tt.orAny {
			t.Errorf("RangeOrAny(Range(%q)) = %q, want %q", tt.name, got, tt.orAny)
		}
	}
}

// TestReadManifestMissing: a manifest that is not there is ErrNoManifest
// (a usage error) and fs.ErrNotExist, naming the file.
func TestReadManifestMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), ManifestFile)
	_, err := ReadManifest(context.Background(), path)
	if !errors.Is(err, ErrNoManifest) || !errors.Is(err, fs.ErrNotExist) || errdef.ClassOf(err) != errdef.Usage || !strings.Contains(fmt.Sprint(err), path) {
		t.Errorf("a missing manifest: %v, want ErrNoManifest and fs.ErrNotExist of class Usage naming %s", err, path)
	}
}
