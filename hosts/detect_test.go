package hosts

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDetect: a host is present when one of its config folders exists
// (moved by its variable as the host moves it), a project marker exists, or
// one of its binaries is an executable file in an absolute $PATH directory.
func TestDetect(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	home, proj, bin, relbin := filepath.Join(root, "home"), filepath.Join(root, "proj"), filepath.Join(root, "bin"), filepath.Join(root, "proj", "bin")
	for _, d := range []string{filepath.Join(home, ".claude"), filepath.Join(proj, ".continue"), filepath.Join(root, "moved-copilot"), bin, relbin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "amp"), 0o755)
	write(filepath.Join(bin, "codex"), 0o644) // not executable: not a host
	write(filepath.Join(relbin, "qwen"), 0o755)
	write(filepath.Join(home, ".gemini"), 0o644) // a file is a path that exists too
	vars := map[string]string{
		"PATH":         bin + string(os.PathListSeparator) + "bin" + string(os.PathListSeparator),
		"COPILOT_HOME": filepath.Join(root, "moved-copilot"),
	}
	e := Env{Home: home, Cwd: proj, Getenv: func(k string) string { return vars[k] }}
	got, err := Builtin().Detected(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"amp", "claude", "continue", "copilot", "gemini"}
	if !slices.Equal(got, want) {
		t.Errorf("detected %v, want %v", got, want)
	}
	p, err := Builtin().Presence(ctx, "amp", e)
	if err != nil || !p.Present || p.By != filepath.Join(bin, "amp") {
		t.Errorf("amp presence %+v %v", p, err)
	}
	p, _ = Builtin().Presence(ctx, "copilot", e)
	if p.By != filepath.Join(root, "moved-copilot") {
		t.Errorf("copilot found by %q, want its COPILOT_HOME", p.By)
	}
	// Moved away, the default folder no longer counts.
	vars["CLAUDE_CONFIG_DIR"] = filepath.Join(root, "elsewhere")
	if got, _ := Builtin().Detected(ctx, e); slices.Contains(got, "claude") {
		t.Errorf("claude detected at ~/.claude with CLAUDE_CONFIG_DIR moved: %v", got)
	}
	// No home: user paths are absent, not an error.
	if got, err := Builtin().Detected(ctx, Env{Cwd: proj, Getenv: e.Getenv}); err != nil || !slices.Equal(got, []string{"amp", "continue", "copilot"}) {
		t.Errorf("without a home: %v %v", got, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Builtin().Detected(cctx, e); err == nil {
		t.Error("a cancelled context is not reported")
	}
	if _, err := Builtin().Presence(ctx, "nosuch", e); err == nil {
		t.Error("an unknown host has a presence")
	}
}

// TestDetectTable: every built-in host can be detected: a path or a binary
// (the agents host by the .agents folders).
func TestDetectTable(t *testing.T) {
	for _, h := range Builtin().Hosts() {
		if len(h.Detect.Paths) == 0 && len(h.Detect.Binaries) == 0 {
			t.Errorf("%s: no way to detect it", h.ID)
		}
		if sourceOf(h, "detect") == "" {
			t.Errorf("%s: no source for detect", h.ID)
		}
	}
}
