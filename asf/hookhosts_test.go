package asf

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookSettingsPath: Codex's hooks.json follows CODEX_HOME (with ~ and
// a relative value) for the user scope and is ./.codex for the project.
func TestHookSettingsPath(t *testing.T) {
	for _, c := range []struct {
		codexHome, scope, want string
	}{
		{"", "user", "/h/.codex/hooks.json"},
		{"", "project", "/w/.codex/hooks.json"},
		{"/abs/ch", "user", "/abs/ch/hooks.json"},
		{"~/ch", "user", "/w/~/ch/hooks.json"}, // Codex does not expand ~ (hosts.Dir.ExpandTilde)
		{"rel", "user", "/w/rel/hooks.json"},
	} {
		env := Env{Home: "/h", Cwd: "/w", Getenv: func(k string) string {
			if k == "CODEX_HOME" {
				return c.codexHome
			}
			return ""
		}}
		if got, err := HookSettingsPath(HostCodex, c.scope, env); err != nil || got != c.want {
			t.Errorf("CODEX_HOME=%q %s: %s %v, want %s", c.codexHome, c.scope, got, err, c.want)
		}
	}
	env := Env{Home: "/h", Cwd: "/w"}
	if got, _ := HookSettingsPath(HostClaude, "user", env); got != "/h/.claude/settings.json" {
		t.Errorf("claude: %s", got)
	}
	for _, h := range []string{HostOpenCode, "gaia"} {
		if _, err := HookSettingsPath(h, "user", env); !errors.Is(err, ErrHooksUnsupported) {
			t.Errorf("%s: %v, want ErrHooksUnsupported", h, err)
		}
	}
}

// TestInstallCodexHooks: Codex gets Stop and UserPromptSubmit with its
// --host, no read hook, and the note about its trust review; uninstall
// takes them away.
func TestInstallCodexHooks(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "hooks.json")
	ch, err := InstallHooks(ctx, HostCodex, file, SettingsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Stop: skillpm asf hook stop --host codex", "UserPromptSubmit: skillpm asf hook prompt --host codex"}
	if strings.Join(ch.Added, "|") != strings.Join(want, "|") || ch.Note == "" {
		t.Errorf("added %q note %q", ch.Added, ch.Note)
	}
	if again, err := InstallHooks(ctx, HostCodex, file, SettingsOptions{}); err != nil || again.Changed || again.Note != "" {
		t.Errorf("second install: %+v %v", again, err)
	}
	un, err := UninstallHooks(ctx, HostCodex, file, SettingsOptions{})
	if err != nil || len(un.Removed) != 2 {
		t.Errorf("uninstall: %+v %v", un, err)
	}
	if _, err := InstallHooks(ctx, HostOpenCode, file, SettingsOptions{}); !errors.Is(err, ErrHooksUnsupported) || !strings.Contains(err.Error(), "can refuse to let the agent stop") {
		t.Errorf("opencode: %v", err)
	}
}
