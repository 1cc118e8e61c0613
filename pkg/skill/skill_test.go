package skill

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/skillpm/skillpm/internal/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

const testdata = "../../testdata"

// render prints diagnostics with paths relative to the repository testdata.
func render(ds Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		d.File = filepath.ToSlash(strings.TrimPrefix(d.File, testdata+string(filepath.Separator)))
		fmt.Fprintln(&b, d.String())
		if d.Hint != "" {
			fmt.Fprintf(&b, "\thint: %s\n", d.Hint)
		}
	}
	return b.String()
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Check(t, path, []byte(got), *update)
}

// TestExamplesValid: the worked examples of the format validate strictly
// with no errors, and the tool skills round-trip against their tools.py.
func TestExamplesValid(t *testing.T) {
	for _, dir := range []string{
		"skills/incident-review", "skills/web-search", "skills/triage-support-ticket",
		"skills/rag-search", "skills/web-research", "skills/file-operations",
		"asf/fix", "asf/diagnosis", "asf/code",
	} {
		t.Run(dir, func(t *testing.T) {
			s, ds := Load(context.Background(), filepath.Join(testdata, dir), Options{})
			if s == nil || ds.HasErrors() {
				t.Fatalf("unexpected errors:\n%s", render(ds))
			}
			if s.Name != filepath.Base(dir) {
				t.Errorf("name = %q", s.Name)
			}
		})
	}
}

// TestInvalidFixtures: each folder of testdata/invalid is named after the
// code its skill must produce in strict mode; the full strict and lenient
// output is pinned by a golden file beside it.
func TestInvalidFixtures(t *testing.T) {
	root := filepath.Join(testdata, "invalid")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		code := e.Name()
		seen[code] = true
		t.Run(code, func(t *testing.T) {
			skills, err := FindSkills(context.Background(), filepath.Join(root, code))
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, code, "fixture")
			if len(skills) == 1 {
				dir = skills[0]
			}
			_, strict := Load(context.Background(), dir, Options{Mode: Strict})
			_, lenient := Load(context.Background(), dir, Options{Mode: Lenient})
			if !strict.Has(code) {
				t.Fatalf("strict validation did not report %s:\n%s", code, render(strict))
			}
			r := rules[code]
			for _, d := range lenient {
				if d.Code == code && r.strict == Error && r.fatal != (d.Severity == Error) {
					t.Errorf("lenient severity of %s is %s, want fatal=%v", code, d.Severity, r.fatal)
				}
			}
			golden(t, filepath.Join(root, code, "diagnostics.golden"),
				"# strict\n"+render(strict)+"# lenient\n"+render(lenient))
		})
	}
	// Every code has a fixture, except those made in tests below.
	generated := map[string]bool{CodeFrontmatterTooLarge: true, CodeBodyTooLong: true, CodeDescriptionTooLong: true,
		CodeSymlink: true, CodeUnreadable: true, CodeVersionMissing: true, CodeGaiaRefused: true}
	for _, c := range Codes() {
		if !seen[c] && !generated[c] {
			t.Errorf("no fixture in testdata/invalid for code %s", c)
		}
	}
}

func writeSkill(t *testing.T, name, content string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, SkillFile), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestGeneratedLimits(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		code    string
		content string
	}{
		{CodeFrontmatterTooLarge, "---\nname: big\ndescription: x\nlicense: " + strings.Repeat("a", MaxFrontmatterBytes) + "\n---\n"},
		{CodeBodyTooLong, "---\nname: big\ndescription: x\n---\n" + strings.Repeat("line\n", MaxBodyLines+1)},
		{CodeDescriptionTooLong, "---\nname: big\ndescription: " + strings.Repeat("é", MaxDescriptionLen+1) + "\n---\n"},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			_, ds := Load(ctx, writeSkill(t, "big", c.content), Options{})
			if !ds.Has(c.code) {
				t.Fatalf("want %s, got:\n%s", c.code, render(ds))
			}
		})
	}
	// At the limit exactly there is no diagnostic.
	_, ds := Load(ctx, writeSkill(t, "big", "---\nname: big\ndescription: "+strings.Repeat("é", MaxDescriptionLen)+"\n---\n"), Options{})
	if ds.Has(CodeDescriptionTooLong) {
		t.Errorf("a description of exactly %d characters was refused", MaxDescriptionLen)
	}
}

func TestSymlinkRefused(t *testing.T) {
	dir := writeSkill(t, "linked", "---\nname: linked\ndescription: x\n---\n")
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "passwd")); err != nil {
		t.Fatal(err)
	}
	_, ds := Load(context.Background(), dir, Options{})
	if !ds.Has(CodeSymlink) || !ds.HasErrors() {
		t.Fatalf("symlink not reported:\n%s", render(ds))
	}
}

func TestBOMAndCRLF(t *testing.T) {
	content := "\xEF\xBB\xBF---\r\nname: crlf\r\ndescription: Windows line endings.\r\nversion: 1.0.0\r\n---\r\n# Body\r\n"
	s, ds := Load(context.Background(), writeSkill(t, "crlf", content), Options{})
	if s == nil || ds.HasErrors() {
		t.Fatalf("BOM/CRLF skill refused:\n%s", render(ds))
	}
	if s.Description != "Windows line endings." || s.BodyLine != 6 {
		t.Errorf("description %q body line %d", s.Description, s.BodyLine)
	}
}

func TestPublishRules(t *testing.T) {
	ctx := context.Background()
	noVersion := writeSkill(t, "nov", "---\nname: nov\ndescription: x\n---\n")
	if _, ds := Load(ctx, noVersion, Options{}); ds.HasErrors() {
		t.Errorf("a skill without version must validate (warning only):\n%s", render(ds))
	}
	if _, ds := Load(ctx, noVersion, Options{Publish: true}); !ds.HasErrors() || !ds.Has(CodeVersionMissing) {
		t.Errorf("publishing needs a version:\n%s", render(ds))
	}
	zero := writeSkill(t, "zero", "---\nname: zero\ndescription: x\nversion: 0.0.0\n---\n")
	if _, ds := Load(ctx, zero, Options{}); ds.HasErrors() {
		t.Errorf("0.0.0 validates with a warning:\n%s", render(ds))
	}
	if _, ds := Load(ctx, zero, Options{Publish: true}); !ds.HasErrors() {
		t.Errorf("0.0.0 must not publish")
	}
}

func TestDependencies(t *testing.T) {
	s, ds := Load(context.Background(), filepath.Join(testdata, "invalid", "implicit-dependency", "fixture"), Options{})
	if ds.HasErrors() {
		t.Fatal(render(ds))
	}
	deps := s.Dependencies()
	if len(deps) != 1 || deps[0] != (Dependency{Name: "diagnosis", Range: "*", Implicit: true}) {
		t.Errorf("deps = %+v", deps)
	}
	fix, _ := Load(context.Background(), filepath.Join(testdata, "asf", "fix"), Options{})
	got := fmt.Sprint(fix.Dependencies())
	if got != "[{code ^1.0 false} {diagnosis ^1.0 false}]" {
		t.Errorf("fix deps = %s", got)
	}
}

func TestKnownToolsFromSet(t *testing.T) {
	ctx := context.Background()
	consumer := writeSkill(t, "consumer", "---\nname: consumer\ndescription: x\nmetadata:\n  gaia:\n    tools_required: [search_web, web-research/fetch_page]\n---\n")
	if _, ds := Load(ctx, consumer, Options{}); !ds.Has(CodeToolUnknown) {
		// search_web is a GAIA known tool; web-research/fetch_page is not.
		t.Fatalf("want tool-unknown for web-research/fetch_page:\n%s", render(ds))
	}
	rs := LoadSet(ctx, []string{consumer, filepath.Join(testdata, "skills", "web-research")}, Options{})
	for _, r := range rs {
		if r.Diagnostics.HasErrors() {
			t.Errorf("%s: with its provider in the set:\n%s", r.Dir, render(r.Diagnostics))
		}
	}
}

func TestUserKnownTools(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cat.yaml")
	if err := os.WriteFile(file, []byte("version: 1\nhost: acme\ntools: [teleport]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := DefaultKnownTools().LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, ds := Load(context.Background(), filepath.Join(testdata, "invalid", "tool-unknown", "fixture"), Options{KnownTools: cat})
	if ds.Has(CodeToolUnknown) {
		t.Errorf("teleport is in the user's known-tools file:\n%s", render(ds))
	}
	if err := os.WriteFile(file, []byte("version: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := DefaultKnownTools().LoadFile(file); err == nil {
		t.Error("a known-tools file of version 2 was accepted")
	}
}

func TestDependencyGuessHint(t *testing.T) {
	for _, tc := range []struct{ doc, code string }{
		{"---\nname: app\ndescription: x\nrequires:\n  lib-a: ^1\n---\n", CodeUnknownField},
		{"---\nname: app\ndescription: x\ndepends_on: [lib-a]\n---\n", CodeUnknownField},
		{"---\nname: app\ndescription: x\nmetadata:\n  gaia:\n    dependencies:\n      lib-a: ^1\n---\n", CodeGaiaUnknownField},
	} {
		_, ds := Parse("SKILL.md", []byte(tc.doc), Options{})
		var hint string
		for _, d := range ds {
			if d.Code == tc.code {
				hint = d.Hint
			}
		}
		if !strings.Contains(hint, DependencyKey) {
			t.Errorf("%q: no hint naming %s:\n%s", tc.doc, DependencyKey, render(ds))
		}
	}
	_, ds := Parse("SKILL.md", []byte("---\nname: app\ndescription: x\nflavour: sweet\n---\n"), Options{})
	if strings.Contains(render(ds), DependencyKey) {
		t.Errorf("an unrelated field is told about dependencies:\n%s", render(ds))
	}
}
