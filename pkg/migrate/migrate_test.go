package migrate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/skillpm/skillpm/internal/golden"
	"github.com/skillpm/skillpm/pkg/migrate"
	"github.com/skillpm/skillpm/pkg/skill"
)

var update = flag.Bool("update", false, "rewrite golden files")

const fixtures = "../../testdata/migrate"

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got, *update)
}

// TestGolden migrates each fixture and compares the SKILL.md and the
// report with the golden files; the written skill must validate strictly
// and migrate to itself.
func TestGolden(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		from migrate.Format
		dir  string
		name string
	}{
		{migrate.Hermes, "hermes/pdf-extract", "pdf-extract"},
		{migrate.Hermes, "hermes/shop-sync", "shopify-sync"},
		{migrate.OpenClaw, "openclaw/git-status", "git-status"},
		{migrate.OpenClaw, "openclaw/neon-json", "neon-cli"},
		{migrate.Auto, "openclaw/weather-string", "weather-string"},
		{migrate.Auto, "openclaw/unquoted-colon", "unquoted-colon"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			in := filepath.Join(fixtures, filepath.FromSlash(c.dir))
			r, err := migrate.Migrate(ctx, in, migrate.Options{From: c.from})
			if err != nil {
				t.Fatal(err)
			}
			if r.Name != c.name {
				t.Errorf("name %q, want %q", r.Name, c.name)
			}
			golden(t, in+".SKILL.md.golden", r.SkillFile())
			rep := r.Report
			rep.Source, rep.File = "", ""
			j, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, in+".report.golden.json", append(j, '\n'))
			// A permission GAIA's loader refuses (a binary it has no
			// policy for) makes the result invalid, and is the only thing
			// that may.
			for _, d := range rep.Diagnostics.Errors() {
				if d.Code != skill.CodeGaiaRefused {
					t.Errorf("result does not validate: %v", d)
				}
			}

			// Written, it validates with the directory checks too, and the
			// other files come along.
			out := t.TempDir()
			w, err := migrate.Run(ctx, in, migrate.Options{From: c.from, OutDir: out})
			if err != nil {
				t.Fatal(err)
			}
			dest := filepath.Join(out, c.name)
			if _, ds := skill.Load(ctx, dest, skill.Options{Mode: skill.Strict}); ds.HasErrors() {
				t.Errorf("written skill does not validate: %v", ds)
			}
			if w.Report.Output != dest || w.Report.Valid != rep.Valid {
				t.Errorf("report output %q valid %v", w.Report.Output, w.Report.Valid)
			}
			assertSameTree(t, in, dest)

			// Migrating the output again changes nothing.
			again, err := migrate.Run(ctx, dest, migrate.Options{OutDir: filepath.Join(out, "again")})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.SkillFile(), r.SkillFile()) || len(again.Report.Changes) > 0 {
				t.Errorf("second migration differs: changes %+v\n%s", again.Report.Changes, again.SkillFile())
			}
		})
	}
}

// assertSameTree checks that every file but SKILL.md was copied unchanged.
func assertSameTree(t *testing.T, in, out string) {
	t.Helper()
	err := filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(in, p)
		if rel == skill.SkillFile {
			return nil
		}
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(out, rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s was not copied unchanged: %v", rel, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// skillDir writes files into a new directory named name.
func skillDir(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestNotMigratable(t *testing.T) {
	long := strings.Repeat("word ", 300)
	for _, c := range []struct {
		name   string
		skill  string
		from   migrate.Format
		reason migrate.Reason
		detail string
	}{
		{"no frontmatter", "# Just Markdown\n", "", migrate.ReasonNoFrontmatter, "no YAML frontmatter"},
		{"unclosed", "---\nname: a\ndescription: b\n", "", migrate.ReasonFrontmatterUnclosed, "never closed"},
		{"content before", "# Title\n---\nname: a\ndescription: b\n---\n", "", migrate.ReasonContentBeforeFront, "content before"},
		{"merge conflict", "---\nname: a\n<<<<<<< HEAD\ndescription: b\n=======\ndescription: c\n>>>>>>> x\n---\n", "", migrate.ReasonYAMLSyntax, "does not fix it"},
		{"duplicate key", "---\nname: a\ndescription: b\ndescription: c\n---\n", "", migrate.ReasonYAMLRefused, "appears twice"},
		{"not a mapping", "---\n- a\n- b\n---\n", "", migrate.ReasonNotMapping, "must be a YAML mapping"},
		{"no description", "---\nname: a\n---\n", "", migrate.ReasonNoDescription, "no description"},
		{"description without sentence end", "---\nname: a\ndescription: " + long + "\n---\n", "", migrate.ReasonDescriptionTooLong, "no sentence end"},
		{"metadata string not JSON", "---\nname: a\ndescription: b\nmetadata: hello\n---\n", "", migrate.ReasonMetadataInvalid, "does not hold a JSON object"},
		{"metadata list", "---\nname: a\ndescription: b\nmetadata: [a]\n---\n", "", migrate.ReasonMetadataInvalid, "not a mapping"},
		{"gaia not a mapping", "---\nname: a\ndescription: b\nmetadata: {gaia: 42}\n---\n", "", migrate.ReasonGaiaConflict, "metadata.gaia is a number"},
		{"permissions not a list", "---\nname: a\ndescription: b\nmetadata: {gaia: {permissions: shell:execute}, openclaw: {requires: {bins: [git]}}}\n---\n", "", migrate.ReasonGaiaConflict, "permissions is a string"},
		{"hermes asked, openclaw found", "---\nname: a\ndescription: b\nmetadata: {openclaw: {requires: {bins: [git]}}}\n---\n", migrate.Hermes, migrate.ReasonWrongFormat, "migrate it from openclaw, or let the format be detected"},
		{"openclaw asked, hermes found", "---\nname: a\ndescription: b\nplatforms: [linux]\n---\n", migrate.OpenClaw, migrate.ReasonWrongFormat, "migrate it from hermes, or let the format be detected"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := skillDir(t, "a", map[string]string{"SKILL.md": c.skill})
			_, err := migrate.Migrate(context.Background(), dir, migrate.Options{From: c.from})
			var nm *migrate.NotMigratableError
			if !errors.As(err, &nm) || !errors.Is(err, migrate.ErrNotMigratable) {
				t.Fatalf("got %v, want a NotMigratableError", err)
			}
			if nm.Reason != c.reason || !strings.Contains(err.Error()+" "+nm.Hint, c.detail) || nm.Hint == "" {
				t.Errorf("got %s (%s; hint %q), want %s mentioning %q", nm.Reason, err, nm.Hint, c.reason, c.detail)
			}
		})
	}
}

func TestNoSkillFile(t *testing.T) {
	_, err := migrate.Migrate(context.Background(), t.TempDir(), migrate.Options{})
	var nm *migrate.NotMigratableError
	if !errors.As(err, &nm) || nm.Reason != migrate.ReasonNoSkillFile {
		t.Fatalf("got %v", err)
	}
}

func TestSymlinkRefused(t *testing.T) {
	dir := skillDir(t, "a", map[string]string{"SKILL.md": "---\nname: a\ndescription: b\n---\n"})
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "passwd")); err != nil {
		t.Fatal(err)
	}
	_, err := migrate.Migrate(context.Background(), dir, migrate.Options{})
	var nm *migrate.NotMigratableError
	if !errors.As(err, &nm) || nm.Reason != migrate.ReasonUnsupportedFile || !strings.Contains(nm.Detail, "symbolic link passwd") {
		t.Fatalf("got %v", err)
	}
}

// migrateText migrates one SKILL.md in a directory named dirName.
func migrateText(t *testing.T, dirName, text string, extra map[string]string) *migrate.Result {
	t.Helper()
	files := map[string]string{"SKILL.md": text}
	for k, v := range extra {
		files[k] = v
	}
	r, err := migrate.Migrate(context.Background(), skillDir(t, dirName, files), migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func field(t *testing.T, r *migrate.Result, key string) string {
	t.Helper()
	s, ds := skill.Parse("SKILL.md", r.SkillFile(), skill.Options{Mode: skill.Strict})
	if s == nil {
		t.Fatalf("output does not parse: %v", ds)
	}
	switch key {
	case "name":
		return s.Name
	case "version":
		return s.Version
	case "description":
		return s.Description
	case "compatibility":
		return s.Compatibility
	}
	t.Fatalf("unknown field %s", key)
	return ""
}

func TestVersion(t *testing.T) {
	for _, c := range []struct {
		name, front string
		extra       map[string]string
		want        string
	}{
		{"missing", "", nil, migrate.DefaultVersion},
		{"yaml float", "version: 2.0\n", nil, "2.0.0"},
		{"yaml int", "version: 3\n", nil, "3.0.0"},
		{"float keeps its text", "version: 1.10\n", nil, "1.10.0"},
		{"leading v", "version: v1.2.3\n", nil, "1.2.3"},
		{"partial string", "version: \"1.4\"\n", nil, "1.4.0"},
		{"prerelease kept", "version: 1.0.0-beta.1\n", nil, "1.0.0-beta.1"},
		{"not semver", "version: latest\n", nil, migrate.DefaultVersion},
		{"timestamp", "version: 2024-01-15\n", nil, migrate.DefaultVersion},
		{"from metadata.version", "metadata:\n  version: \"1.2\"\n", nil, "1.2.0"},
		{"from ClawHub _meta.json", "", map[string]string{"_meta.json": `{"latest": {"version": "2.3.1"}}`}, "2.3.1"},
		{"frontmatter wins over _meta.json", "version: 1.0.0\n", map[string]string{"_meta.json": `{"latest": {"version": "2.3.1"}}`}, "1.0.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := migrateText(t, "a", "---\nname: a\ndescription: b\n"+c.front+"---\n", c.extra)
			if got := field(t, r, "version"); got != c.want {
				t.Errorf("version %q, want %q", got, c.want)
			}
			if !r.Report.Valid {
				t.Errorf("invalid: %v", r.Report.Diagnostics)
			}
		})
	}
}

func TestName(t *testing.T) {
	for _, c := range []struct{ dir, front, want string }{
		{"neon", "name: Neon_CLI\n", "neon-cli"},
		{"x", "name: My Skill v2.0\n", "my-skill-v2-0"},
		{"review-coordinator", "name: 审核协调器\n", "review-coordinator"},
		{"from-dir", "", "from-dir"},
		{"Odd_Dir", "", "odd-dir"},
		{"a", "name: 42\n", "42"},
		{"other", "name: fine-name\n", "fine-name"},
	} {
		t.Run(c.want, func(t *testing.T) {
			r := migrateText(t, c.dir, "---\n"+c.front+"description: b\n---\n", nil)
			if r.Name != c.want || field(t, r, "name") != c.want {
				t.Errorf("name %q, want %q", r.Name, c.want)
			}
			if c.dir != c.want && !hasChange(r, "directory") {
				t.Errorf("directory rename not reported: %+v", r.Report.Changes)
			}
		})
	}
}

func hasChange(r *migrate.Result, field string) bool {
	for _, c := range r.Report.Changes {
		if strings.HasPrefix(c.Field, field) {
			return true
		}
	}
	return false
}

func TestDescriptionTooLong(t *testing.T) {
	first := "Summarize long documents. " + strings.Repeat("Use it for reports and papers. ", 30)
	desc := first + strings.Repeat("More detail that does not fit ", 20) + "in the end."
	r := migrateText(t, "a", "---\nname: a\ndescription: "+desc+"\n---\n", nil)
	got := field(t, r, "description")
	if len([]rune(got)) > skill.MaxDescriptionLen || !strings.HasSuffix(got, "papers.") || !strings.HasPrefix(desc, got) {
		t.Errorf("description cut badly (%d runes): %q", len([]rune(got)), got)
	}
	if !hasChange(r, "description") || !r.Report.Valid {
		t.Errorf("change not reported or invalid: %+v %v", r.Report.Changes, r.Report.Diagnostics)
	}
}

func TestRepair(t *testing.T) {
	for _, c := range []struct{ name, front, key, want string }{
		{"colon", "description: Use it when: the user asks\n", "description", "Use it when: the user asks"},
		{"colon with continuation", "description: Triggers: a, b,\n  c and d\n", "description", "Triggers: a, b, c and d"},
		{"flow-looking text", "description: d\nargument-hint: [date] [reason]\n", "argument-hint", "[date] [reason]"},
		{"two broken lines", "description: One: two\ncompatibility: Needs: curl\n", "compatibility", "Needs: curl"},
		{"at sign", "description: d\nauthor: @someone\n", "author", "@someone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := migrateText(t, "a", "---\nname: a\n"+c.front+"---\n# Body\n", nil)
			s, _ := skill.Parse("SKILL.md", r.SkillFile(), skill.Options{})
			var got string
			for i := 0; i+1 < len(s.Node.Content); i += 2 {
				if s.Node.Content[i].Value == c.key {
					got = s.Node.Content[i+1].Value
				}
			}
			if got != c.want {
				t.Errorf("%s = %q, want %q", c.key, got, c.want)
			}
			if !hasChange(r, c.key+" (line ") {
				t.Errorf("repair not reported: %+v", r.Report.Changes)
			}
		})
	}
	// A broken list or metadata is never turned into a string.
	dir0 := skillDir(t, "a", map[string]string{"SKILL.md": "---\nname: a\ndescription: b\nplatforms: [linux, macos\n---\n"})
	if _, err := migrate.Migrate(context.Background(), dir0, migrate.Options{}); !errors.Is(err, migrate.ErrNotMigratable) {
		t.Errorf("unbalanced list: got %v", err)
	}
	dir := skillDir(t, "a", map[string]string{"SKILL.md": "---\nname: a\ndescription: b\nmetadata: {\"openclaw\": {\"requires\": x: y}}\n---\n"})
	if _, err := migrate.Migrate(context.Background(), dir, migrate.Options{}); !errors.Is(err, migrate.ErrNotMigratable) {
		t.Errorf("broken metadata: got %v", err)
	}
}

// TestBytes checks what is kept byte for byte: the body (CRLF included),
// and that a BOM is dropped and a lowercase skill.md renamed.
func TestBytes(t *testing.T) {
	body := "# Title\r\n\r\nLine with trailing spaces   \r\nno final newline"
	dir := skillDir(t, "a", map[string]string{"skill.md": "\ufeff---\r\nname: a\r\ndescription: b\r\nversion: 1.0.0\r\n---\r\n" + body})
	r, err := migrate.Migrate(context.Background(), dir, migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := string(r.SkillFile())
	if !strings.HasSuffix(out, "---\r\n"+body) || strings.HasPrefix(out, "\ufeff") || !strings.HasPrefix(out, "---\r\nname: a\r\n") {
		t.Errorf("bytes not kept:\n%q", out)
	}
	if !hasChange(r, "SKILL.md") {
		t.Errorf("rename and BOM not reported: %+v", r.Report.Changes)
	}
	dest := filepath.Join(t.TempDir(), "a")
	if err := r.Write(context.Background(), dest, migrate.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dest)
	if len(entries) != 1 || entries[0].Name() != skill.SkillFile {
		t.Errorf("written files: %v", entries)
	}
}

func TestFormats(t *testing.T) {
	both := "---\nname: a\ndescription: b\nprerequisites: {commands: [curl]}\nmetadata:\n  hermes: {tags: [x]}\n  clawdis: {requires: {bins: [jq]}}\n---\n"
	dir := skillDir(t, "a", map[string]string{"SKILL.md": both})
	ctx := context.Background()
	r, err := migrate.Migrate(ctx, dir, migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.SkillFile()), "shell:execute:curl\n      - shell:execute:jq\n") || len(r.Report.Migrated) != 2 {
		t.Errorf("auto did not map both formats: %v\n%s", r.Report.Migrated, r.SkillFile())
	}
	r, err = migrate.Migrate(ctx, dir, migrate.Options{From: migrate.Hermes})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.SkillFile()), "shell:execute:curl\n") || !hasUnmapped(r, "metadata.clawdis") {
		t.Errorf("--from hermes: %+v\n%s", r.Report.Unmapped, r.SkillFile())
	}

	// A foreign block written as a JSON string is read, and kept as written.
	dir = skillDir(t, "a", map[string]string{"SKILL.md": "---\nname: a\ndescription: b\nmetadata:\n  openclaw: '{\"requires\": {\"bins\": [\"git\"]}}'\n---\n"})
	r, err = migrate.Migrate(ctx, dir, migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out := string(r.SkillFile()); !strings.Contains(out, "shell:execute:git") || !strings.Contains(out, `openclaw: '{"requires"`) || len(r.Report.Notes) == 0 {
		t.Errorf("JSON-string block:\n%s\nnotes %v", out, r.Report.Notes)
	}

	// OpenClaw fields outside the namespace are reported, not guessed at.
	dir = skillDir(t, "a", map[string]string{"SKILL.md": "---\nname: a\ndescription: b\nmetadata:\n  requires: {bins: [git]}\n---\n"})
	r, err = migrate.Migrate(ctx, dir, migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasUnmapped(r, "metadata.requires") || strings.Contains(string(r.SkillFile()), "shell:execute") {
		t.Errorf("metadata.requires: %+v", r.Report.Unmapped)
	}

	// A standard skill is normalized and marked experimental.
	dir = skillDir(t, "plain", map[string]string{"SKILL.md": "---\nname: plain\ndescription: b\nversion: 1.0.0\n---\n"})
	r, err = migrate.Migrate(ctx, dir, migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Report.Detected) != 0 || len(r.Report.Notes) == 0 || !strings.Contains(string(r.SkillFile()), "security_tier: experimental") {
		t.Errorf("standard skill: %+v\n%s", r.Report, r.SkillFile())
	}
}

func hasUnmapped(r *migrate.Result, field string) bool {
	for _, u := range r.Report.Unmapped {
		if u.Field == field {
			return true
		}
	}
	return false
}

// TestMerge: a skill that already has metadata.gaia keeps it; migration
// adds what is missing and resets the tier.
func TestMerge(t *testing.T) {
	r := migrateText(t, "a", `---
name: a
description: b
version: 1.0.0
metadata:
  gaia:
    security_tier: verified
    permissions: [network:read]
    requirements: {env_vars: [A_KEY]}
  openclaw: {requires: {bins: [git], env: [A_KEY, B_KEY]}}
---
`, nil)
	want := `metadata:
  gaia:
    security_tier: experimental
    permissions: ['network:read', 'shell:execute:git']
    requirements: {env_vars: [A_KEY, B_KEY]}
`
	if !strings.Contains(string(r.SkillFile()), want) {
		t.Errorf("merge:\n%s\nwant\n%s", r.SkillFile(), want)
	}
	if !hasChange(r, "metadata.gaia.security_tier") {
		t.Errorf("tier change not reported")
	}
}

func TestWrite(t *testing.T) {
	ctx := context.Background()
	in := filepath.Join(fixtures, "openclaw", "neon-json")
	out := t.TempDir()
	opts := migrate.Options{OutDir: out}
	if _, err := migrate.Run(ctx, in, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Run(ctx, in, opts); !errors.Is(err, migrate.ErrOutputExists) {
		t.Errorf("second write: %v, want ErrOutputExists", err)
	}
	marker := filepath.Join(out, "neon-cli", "stale.txt")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	opts.OverwriteUnsafe = true
	if _, err := migrate.Run(ctx, in, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("overwrite kept a stale file: %v", err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 {
		t.Errorf("temporary directories left behind: %v", entries)
	}

	// The output may not overlap the input.
	dir := skillDir(t, "a", map[string]string{"SKILL.md": "---\nname: a\ndescription: b\n---\n"})
	for _, o := range []string{filepath.Dir(dir), dir} {
		if _, err := migrate.Run(ctx, dir, migrate.Options{OutDir: o, OverwriteUnsafe: true}); !errors.Is(err, migrate.ErrOutputOverlaps) {
			t.Errorf("out dir %s: %v, want ErrOutputOverlaps", o, err)
		}
	}

	// A dry run writes nothing; options that contradict are refused.
	empty := t.TempDir()
	if _, err := migrate.Run(ctx, in, migrate.Options{OutDir: empty, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("dry run wrote %v", entries)
	}
	if _, err := migrate.Run(ctx, in, migrate.Options{DryRun: true, OverwriteUnsafe: true}); !errors.Is(err, migrate.ErrOptions) {
		t.Errorf("dry run + overwrite: %v", err)
	}
	if _, err := migrate.Run(ctx, in, migrate.Options{From: "claude"}); !errors.Is(err, migrate.ErrOptions) {
		t.Errorf("unknown format: %v", err)
	}
}

// TestWriteFailsClean: an error while copying leaves no output and no
// temporary directory.
func TestWriteFailsClean(t *testing.T) {
	dir := skillDir(t, "a", map[string]string{"SKILL.md": "---\nname: a\ndescription: b\n---\n", "ref/secret.md": "x"})
	r, err := migrate.Migrate(context.Background(), dir, migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The file becomes a symbolic link after Migrate read the skill: the
	// copy refuses it midway (as it would an unreadable file, even as root).
	secret := filepath.Join(dir, "ref", "secret.md")
	if err := os.Remove(secret); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "SKILL.md"), secret); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := r.Write(context.Background(), filepath.Join(out, "a"), migrate.WriteOptions{}); err == nil {
		t.Fatal("write succeeded on a file that turned into a link")
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestMigrateExpandsAliases: aliases load leniently (GAIA's PyYAML loads
// them), and the migrated SKILL.md has them written out.
func TestMigrateExpandsAliases(t *testing.T) {
	dir := skillDir(t, "a", map[string]string{"SKILL.md": "---\nname: &n a\ndescription: The a skill, named *n.\nmetadata:\n  hermes: {tags: [*n]}\n---\nBody.\n"})
	r, err := migrate.Migrate(context.Background(), dir, migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := string(r.SkillFile())
	if strings.Contains(out, "&n") || strings.Contains(out, "*n\n") || !strings.Contains(out, "name: a\n") {
		t.Errorf("aliases not written out:\n%s", out)
	}
}

// TestLicense: a license that is not a string is dropped, as GAIA's own
// migrate drops it, and the report says so; a string one stays.
func TestLicense(t *testing.T) {
	for _, c := range []struct {
		license string
		dropped bool
	}{
		{"MIT", false},
		{`"Apache-2.0"`, false},
		{"[MIT, Apache-2.0]", true},
		{"2024", true},
		{"{spdx: MIT}", true},
	} {
		t.Run(c.license, func(t *testing.T) {
			r := migrateText(t, "lic", "---\nname: lic\ndescription: d\nversion: 1.0.0\nlicense: "+c.license+"\n---\nbody\n", nil)
			if !r.Report.Valid {
				t.Fatalf("not valid: %v", r.Report.Diagnostics)
			}
			has := strings.Contains(string(r.SkillFile()), "license:")
			var change *migrate.Change
			for i, ch := range r.Report.Changes {
				if ch.Field == "license" {
					change = &r.Report.Changes[i]
				}
			}
			if c.dropped {
				if has || change == nil || change.To != "(removed)" || !strings.Contains(change.Reason, "GAIA") {
					t.Errorf("kept or not reported: %s\n%+v", r.SkillFile(), r.Report.Changes)
				}
				return
			}
			if !has || change != nil {
				t.Errorf("a string license was touched: %s\n%+v", r.SkillFile(), r.Report.Changes)
			}
		})
	}
}
