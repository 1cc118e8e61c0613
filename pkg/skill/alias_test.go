package skill

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadText(t *testing.T, mode Mode, text string) (*Skill, Diagnostics) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fixture")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, SkillFile), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(context.Background(), dir, Options{Mode: mode})
}

// TestLenientAliases: lenient validation loads aliases and merge keys as
// GAIA's PyYAML does (expanded, explicit keys winning over merged ones),
// strict refuses them, and an alias bomb is refused in both modes.
func TestLenientAliases(t *testing.T) {
	doc := "---\nname: fixture\ndescription: &d Fixture skill. Use when testing aliases.\nversion: 1.0.0\nmetadata:\n  base: &b {x: \"1\", y: \"2\"}\n  other:\n    <<: *b\n    y: \"3\"\n  again: *d\n---\nBody.\n"
	s, ds := loadText(t, Lenient, doc)
	if s == nil || ds.HasErrors() || !ds.Has(CodeYAMLAlias) || !ds.Has(CodeYAMLMergeKey) {
		t.Fatalf("lenient: %v", ds)
	}
	if s.Description != "Fixture skill. Use when testing aliases." {
		t.Errorf("description %q", s.Description)
	}
	var fm struct {
		Metadata struct {
			Other map[string]string `yaml:"other"`
		} `yaml:"metadata"`
	}
	if err := s.Node.Decode(&fm); err != nil {
		t.Fatal(err)
	}
	got := fm.Metadata.Other
	if got["x"] != "1" || got["y"] != "3" {
		t.Errorf("merged mapping %v, want x=1 (merged) y=3 (explicit)", got)
	}
	if _, ds := loadText(t, Strict, doc); !ds.HasErrors() || !ds.Has(CodeYAMLAlias) {
		t.Errorf("strict accepted aliases: %v", ds)
	}
	var b strings.Builder
	b.WriteString("---\nname: fixture\ndescription: Bomb.\nversion: 1.0.0\nmetadata:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for i := 0; i < 8; i++ {
		name := string(rune('b' + i))
		b.WriteString("  " + name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n")
		prev = name
	}
	b.WriteString("---\n")
	if s, ds := loadText(t, Lenient, b.String()); s != nil || !ds.Has(CodeFrontmatterTooLarge) {
		t.Errorf("alias bomb: %v %v", s != nil, ds)
	}
}
