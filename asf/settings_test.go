package asf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func copyFixture(t *testing.T, name string, mode os.FileMode) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "settings", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func unmarshal(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%v in:\n%s", err, data)
	}
	return m
}

// ownHooks lists "Event|matcher|command" of skillpm's hooks in a file.
func ownHooks(t *testing.T, data []byte) []string {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range []string{"PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit"} {
		for _, e := range doc.Hooks[ev] {
			for _, h := range e.Hooks {
				if ownCommand(h.Command, "") {
					out = append(out, ev+"|"+e.Matcher+"|"+h.Command)
				}
			}
		}
	}
	return out
}

func TestInstallClaudeHooks(t *testing.T) {
	ctx := context.Background()
	file := copyFixture(t, "with-other-hooks.json", 0o640)
	orig, _ := os.ReadFile(file)

	ch, err := InstallClaudeHooks(ctx, file, SettingsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Changed || len(ch.Added) != 3 || len(ch.Removed) != 0 {
		t.Fatalf("change = %+v", ch)
	}
	got, _ := os.ReadFile(file)
	golden(t, "settings-installed.json", got)
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", fi.Mode().Perm())
	}
	want := []string{"PreToolUse|Read|skillpm asf hook read", "Stop||skillpm asf hook stop", "UserPromptSubmit||skillpm asf hook prompt"}
	if own := ownHooks(t, got); !reflect.DeepEqual(own, want) {
		t.Errorf("own hooks = %v", own)
	}
	// Everything else is as it was: each other key, each other hook entry
	// (the big number too), in the original key order.
	before, after := unmarshal(t, orig), unmarshal(t, got)
	for k, v := range before {
		if k == "hooks" {
			continue
		}
		if !reflect.DeepEqual(after[k], v) {
			t.Errorf("%s changed: %v -> %v", k, v, after[k])
		}
	}
	if !bytes.Contains(got, []byte("12345678901234567890")) || !bytes.Contains(got, []byte(`gofmt -w \"$CLAUDE_PROJECT_DIR\" && echo done`)) {
		t.Error("a value was re-encoded")
	}
	if i, j := bytes.Index(got, []byte(`"$schema"`)), bytes.Index(got, []byte(`"statusLine"`)); i < 0 || j < i {
		t.Error("key order changed")
	}
	bh, ah := before["hooks"].(map[string]any), after["hooks"].(map[string]any)
	if !reflect.DeepEqual(bh["PostToolUse"], ah["PostToolUse"]) {
		t.Error("PostToolUse changed")
	}
	if !reflect.DeepEqual(bh["PreToolUse"].([]any)[0], ah["PreToolUse"].([]any)[0]) ||
		!reflect.DeepEqual(bh["Stop"].([]any)[0], ah["Stop"].([]any)[0]) {
		t.Error("another tool's entry changed")
	}

	// Idempotent: a second install changes nothing, not even bytes.
	ch, err = InstallClaudeHooks(ctx, file, SettingsOptions{})
	if err != nil || ch.Changed {
		t.Fatalf("second install: %+v %v", ch, err)
	}
	again, _ := os.ReadFile(file)
	if !bytes.Equal(again, got) {
		t.Error("second install rewrote the file")
	}

	// Uninstall removes only skillpm's hooks and leaves the rest as the
	// original (same values, same key order).
	ch, err = UninstallClaudeHooks(ctx, file, SettingsOptions{})
	if err != nil || len(ch.Removed) != 3 {
		t.Fatalf("uninstall: %+v %v", ch, err)
	}
	un, _ := os.ReadFile(file)
	if !reflect.DeepEqual(unmarshal(t, un), before) {
		t.Errorf("uninstall did not restore the original:\n%s", un)
	}
	var compactOrig, compactUn bytes.Buffer
	_ = json.Compact(&compactOrig, orig)
	_ = json.Compact(&compactUn, un)
	if compactOrig.String() != compactUn.String() {
		t.Errorf("uninstall changed order or encoding:\n%s\n%s", compactOrig.String(), compactUn.String())
	}
	if ch, err := UninstallClaudeHooks(ctx, file, SettingsOptions{}); err != nil || ch.Changed {
		t.Errorf("second uninstall: %+v %v", ch, err)
	}
}

func TestInstallReplacesStaleAndShared(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "settings.json")
	// An old install through a full path, sharing an entry with a user's
	// hook, and a duplicate.
	old := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/opt/old/skillpm asf hook stop"},{"type":"command","command":"say done"}]},` +
		`{"hooks":[{"type":"command","command":"skillpm asf hook stop"}]},{"hooks":[{"type":"command","command":"skillpm asf hook stop"}]}]}}`
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	ch, err := InstallClaudeHooks(ctx, file, SettingsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Removed) != 2 || len(ch.Added) != 2 {
		t.Errorf("change = %+v", ch)
	}
	got, _ := os.ReadFile(file)
	if own := ownHooks(t, got); len(own) != 3 {
		t.Errorf("own hooks = %v", own)
	}
	if !strings.Contains(string(got), `"say done"`) {
		t.Error("the user's hook in a shared entry was lost")
	}
	if ch, _ := UninstallClaudeHooks(ctx, file, SettingsOptions{}); len(ch.Removed) != 3 {
		t.Errorf("uninstall removed %v", ch.Removed)
	}
	got, _ = os.ReadFile(file)
	want := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}`
	var c bytes.Buffer
	_ = json.Compact(&c, got)
	if c.String() != want {
		t.Errorf("after uninstall: %s", c.String())
	}
}

func TestInstallNewFileAndCustomCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "new", "settings.json")
	ch, err := InstallClaudeHooks(ctx, file, SettingsOptions{Command: "/usr/local/bin/skillpm", DryRun: true})
	if err != nil || !ch.Changed {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Error("dry run wrote the file")
	}
	if _, err := InstallClaudeHooks(ctx, file, SettingsOptions{Command: "/usr/local/bin/skillpm"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	if !strings.Contains(string(got), `"command": "/usr/local/bin/skillpm asf hook read"`) || !strings.Contains(string(got), `"matcher": "Read"`) {
		t.Errorf("new file:\n%s", got)
	}
	if ch, _ := UninstallClaudeHooks(ctx, file, SettingsOptions{}); len(ch.Removed) != 3 {
		t.Errorf("uninstall of a full-path install: %+v", ch)
	}
	got, _ = os.ReadFile(file)
	if strings.TrimSpace(string(got)) != "{}" {
		t.Errorf("after uninstall: %s", got)
	}
}

func TestInstallFollowsSymlink(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles-settings.json")
	if err := os.WriteFile(target, []byte(`{"model":"opus"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallClaudeHooks(ctx, link, SettingsOptions{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
	got, _ := os.ReadFile(target)
	if len(ownHooks(t, got)) != 3 {
		t.Errorf("target:\n%s", got)
	}
}

func TestInstallRefusesBadSettings(t *testing.T) {
	ctx := context.Background()
	for name, content := range map[string]string{
		"not json":         `{"model": "opus",`,
		"not an object":    `["hooks"]`,
		"hooks not object": `{"hooks": []}`,
		"event not list":   `{"hooks": {"Stop": {"hooks": []}}}`,
		"trailing":         `{} {}`,
	} {
		file := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := InstallClaudeHooks(ctx, file, SettingsOptions{}); !errors.Is(err, ErrSettings) {
			t.Errorf("%s: %v", name, err)
		}
		if got, _ := os.ReadFile(file); string(got) != content {
			t.Errorf("%s: the file was changed", name)
		}
	}
}

func TestClaudeSettingsPath(t *testing.T) {
	env := Env{Home: "/h", Cwd: "/w"}
	for scope, want := range map[string]string{"": "/h/.claude/settings.json", "user": "/h/.claude/settings.json", "project": "/w/.claude/settings.json"} {
		if got, err := ClaudeSettingsPath(scope, env); err != nil || got != want {
			t.Errorf("%q: %s %v", scope, got, err)
		}
	}
	if _, err := ClaudeSettingsPath("global", env); err == nil {
		t.Error("unknown scope accepted")
	}
}
