package asf

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzInstallClaudeHooks: whatever the settings file holds, install either
// refuses it untouched or leaves valid JSON with exactly skillpm's three
// hooks, and uninstall then removes them all; from a file without skillpm
// hooks, install then uninstall gives back the same settings.
func FuzzInstallClaudeHooks(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "settings", "with-other-hooks.json")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"skillpm asf hook stop"}]}]}}`))
	f.Add([]byte(`{"hooks":null,"a":[1,2.50,"x"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		file := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := InstallClaudeHooks(ctx, file, SettingsOptions{}); err != nil {
			if got, _ := os.ReadFile(file); !bytes.Equal(got, data) {
				t.Fatalf("a refused file was changed: %v", err)
			}
			return
		}
		installed, _ := os.ReadFile(file)
		if !json.Valid(installed) {
			t.Fatalf("install wrote invalid JSON:\n%s", installed)
		}
		if own := fuzzOwn(installed); len(own) != 3 {
			t.Fatalf("own hooks after install = %v\n%s", own, installed)
		}
		if _, err := UninstallClaudeHooks(ctx, file, SettingsOptions{}); err != nil {
			t.Fatalf("uninstall after install: %v", err)
		}
		un, _ := os.ReadFile(file)
		if own := fuzzOwn(un); len(own) != 0 {
			t.Fatalf("own hooks after uninstall = %v", own)
		}
		if len(bytes.TrimSpace(data)) == 0 || len(fuzzOwn(data)) > 0 {
			return
		}
		if a, b := normalizeSettings(data), normalizeSettings(un); !reflect.DeepEqual(a, b) {
			t.Fatalf("install+uninstall changed the settings:\n%s\n%s", data, un)
		}
	})
}

func fuzzOwn(data []byte) []string {
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command any `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	for ev, entries := range doc.Hooks {
		for _, e := range entries {
			for _, h := range e.Hooks {
				if c, ok := h.Command.(string); ok && ownCommand(c, "") {
					out = append(out, ev+": "+c)
				}
			}
		}
	}
	return out
}

// normalizeSettings decodes settings, treating a null or empty hooks
// object and null or empty event lists as absent.
func normalizeSettings(data []byte) any {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil {
		return nil
	}
	if h, ok := m["hooks"].(map[string]any); ok {
		for k, v := range h {
			if l, ok := v.([]any); v == nil || ok && len(l) == 0 {
				delete(h, k)
			}
		}
		if len(h) == 0 {
			delete(m, "hooks")
		}
	} else if m["hooks"] == nil {
		delete(m, "hooks")
	}
	return m
}

// FuzzHook: no payload makes a hook panic, and every answer is empty or
// JSON.
func FuzzHook(f *testing.F) {
	for _, name := range []string{"stop.json", "user-prompt-submit.json", "pre-tool-use-read.json"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "hooks", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"session_id":"s","prompt":"/asf fix now","tool_input":{"file_path":"SKILL.md"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := New(Options{SkillDirs: []string{"../testdata/asf"}})
		env := Env{Home: t.TempDir(), Cwd: t.TempDir()}
		for _, kind := range HookKinds() {
			res, err := r.Hook(context.Background(), kind, data, HookOptions{Env: env})
			if err != nil {
				continue
			}
			if len(res.Output) > 0 && !json.Valid(res.Output) {
				t.Fatalf("%s answered invalid JSON: %s", kind, res.Output)
			}
		}
	})
}
