package asf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/internal/boundedfile"
)

// Settings scopes for ClaudeSettingsPath.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
)

// ClaudeSettingsPath is Claude Code's settings file: ~/.claude/settings.json
// (or $CLAUDE_CONFIG_DIR/settings.json) for the user scope, ./.claude/settings.json for the project scope.
func ClaudeSettingsPath(scope string, env Env) (string, error) {
	switch scope {
	case "", ScopeUser:
		// Claude Code reads its user settings from $CLAUDE_CONFIG_DIR when
		// set, as it does its skills (hosts table, claude).
		p, err := hosts.Dir{Env: "CLAUDE_CONFIG_DIR", Dir: "~/.claude", Join: "settings.json"}.Resolve(env)
		if err != nil {
			return "", &markedError{err: fmt.Errorf("the user settings: %w", err), mark: ErrNoSettingsPath}
		}
		return p, nil
	case ScopeProject:
		return filepath.Join(env.Cwd, ".claude", "settings.json"), nil
	}
	return "", fmt.Errorf("%w %q: use user or project", ErrUnknownScope, scope)
}

// ClaudeHook is one hook entry skillpm adds to Claude Code's settings.
type ClaudeHook struct {
	// Event is the key under "hooks": Stop, UserPromptSubmit, PreToolUse.
	Event string `json:"event"`
	// Matcher is the tool matcher, "" for events without one.
	Matcher string `json:"matcher,omitempty"`
	// Command is the command line Claude Code runs.
	Command string `json:"command"`
}

// ClaudeHooks are the entries that wire the runner into Claude Code, with
// command as the skillpm executable ("" is DefaultCommand).
func ClaudeHooks(command string) []ClaudeHook {
	if command == "" {
		command = DefaultCommand
	}
	return []ClaudeHook{
		{Event: "Stop", Command: command + " asf hook " + HookStop},
		{Event: "UserPromptSubmit", Command: command + " asf hook " + HookPrompt},
		{Event: "PreToolUse", Matcher: "Read", Command: command + " asf hook " + HookRead},
	}
}

// commandHook is a hook of type command, fields in Claude Code's order.
type commandHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// SettingsOptions modify InstallClaudeHooks and UninstallClaudeHooks.
type SettingsOptions struct {
	// Command is the skillpm executable the hooks run; "" is
	// DefaultCommand.
	Command string
	// DryRun computes the new content without writing it.
	DryRun bool
}

// SettingsChange reports what a settings edit did.
type SettingsChange struct {
	File    string `json:"file"`
	Changed bool   `json:"changed"`
	// Added and Removed are "Event: command" lines.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	// Content is the settings file after the edit.
	Content []byte `json:"-"`
	// Note is what the user must still do for the host to run the hooks
	// (Codex's trust review); "" when nothing.
	Note string `json:"note,omitempty"`
}

// InstallClaudeHooks merges the runner's hooks into a Claude Code settings
// file. Every other key and hook entry is kept as it was (order included);
// an up-to-date entry is left alone, so installing twice changes nothing,
// an older skillpm entry for the same event is replaced, and a skillpm
// hook under an event the runner does not use is removed. The file is
// replaced atomically and keeps its mode.
func InstallClaudeHooks(ctx context.Context, file string, o SettingsOptions) (*SettingsChange, error) {
	return installHooks(ctx, file, o, ClaudeHooks(o.Command))
}

// installHooks merges hs into file's "hooks" object, the shape Claude
// Code's settings and Codex's hooks.json share.
func installHooks(ctx context.Context, file string, o SettingsOptions, hs []ClaudeHook) (*SettingsChange, error) {
	return editSettings(ctx, file, o, func(hooks *object, ch *SettingsChange) error {
		// A runner hook under an event the runner no longer uses (an
		// older skillpm's) goes.
		managed := map[string]bool{}
		for _, h := range hs {
			managed[h.Event] = true
		}
		if err := removeOwn(hooks, o.Command, ch, func(event string) bool { return managed[event] }); err != nil {
			return err
		}
		for _, h := range hs {
			entries, err := eventEntries(hooks, h.Event)
			if err != nil {
				return err
			}
			found := false
			entries, removed := filterOwn(entries, o.Command, func(entry *object, cmd string) bool {
				if !found && cmd == h.Command && matcherOf(entry) == h.Matcher {
					found = true
					return true
				}
				return false
			})
			for _, c := range removed {
				ch.Removed = append(ch.Removed, h.Event+": "+c)
			}
			if !found {
				entry := newObject()
				if h.Matcher != "" {
					entry.set("matcher", mustJSON(h.Matcher))
				}
				entry.set("hooks", mustJSON([]commandHook{{Type: "command", Command: h.Command}}))
				raw, err := entry.MarshalJSON()
				if err != nil {
					return err
				}
				entries = append(entries, raw)
				ch.Added = append(ch.Added, h.Event+": "+h.Command)
			}
			if !found || len(removed) > 0 {
				hooks.set(h.Event, mustJSON(entries))
			}
		}
		return nil
	})
}

// UninstallClaudeHooks removes the hooks whose command is "skillpm asf hook
// …" (any path to skillpm, or o.Command) from every event, dropping entries,
// events and the hooks key only when that removal left them empty.
func UninstallClaudeHooks(ctx context.Context, file string, o SettingsOptions) (*SettingsChange, error) {
	return editSettings(ctx, file, o, func(hooks *object, ch *SettingsChange) error {
		return removeOwn(hooks, o.Command, ch, func(string) bool { return false })
	})
}

// removeOwn removes the runner's hooks from every event but those keep
// names, dropping entries and events only when that removal left them
// empty.
func removeOwn(hooks *object, configured string, ch *SettingsChange, keep func(event string) bool) error {
	for _, event := range append([]string(nil), hooks.keys...) {
		if keep(event) {
			continue
		}
		entries, err := eventEntries(hooks, event)
		if err != nil {
			return err
		}
		entries, removed := filterOwn(entries, configured, func(*object, string) bool { return false })
		if len(removed) == 0 {
			continue
		}
		for _, c := range removed {
			ch.Removed = append(ch.Removed, event+": "+c)
		}
		if len(entries) == 0 {
			hooks.del(event)
		} else {
			hooks.set(event, mustJSON(entries))
		}
	}
	return nil
}

// maxSettingsBytes bounds a settings file.
const maxSettingsBytes = 8 << 20

func editSettings(ctx context.Context, file string, o SettingsOptions, edit func(hooks *object, ch *SettingsChange) error) (*SettingsChange, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real // edit a dotfiles manager's target, not its link
	}
	ch := &SettingsChange{File: file, Added: []string{}, Removed: []string{}}
	mode := fs.FileMode(0o644)
	data, err := boundedfile.Read(file, maxSettingsBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", file, err)
	default:
		if fi, err := os.Stat(file); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	root := newObject()
	if len(bytes.TrimSpace(data)) > 0 {
		if root, err = parseObject(data); err != nil {
			return nil, fmt.Errorf("%w %s: %v; fix it by hand, skillpm will not rewrite it", ErrSettings, file, err)
		}
	}
	hooks := newObject()
	if raw, ok := root.get("hooks"); ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if hooks, err = parseObject(raw); err != nil {
			return nil, fmt.Errorf("%w %s: \"hooks\" is not an object: %v", ErrSettings, file, err)
		}
	}
	if err := edit(hooks, ch); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrSettings, file, err)
	}
	ch.Changed = len(ch.Added)+len(ch.Removed) > 0
	if !ch.Changed {
		ch.Content = data
		return ch, nil
	}
	if len(hooks.keys) == 0 && len(ch.Added) == 0 {
		root.del("hooks")
	} else {
		raw, err := hooks.MarshalJSON()
		if err != nil {
			return nil, err
		}
		root.set("hooks", raw)
	}
	compact, err := root.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	ch.Content = out.Bytes()
	if o.DryRun {
		return ch, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(file, ch.Content, mode); err != nil {
		return nil, fmt.Errorf("writing %s: %w", file, err)
	}
	return ch, nil
}

// eventEntries returns hooks[event] as raw entries.
func eventEntries(hooks *object, event string) ([]json.RawMessage, error) {
	raw, ok := hooks.get(event)
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("hooks.%s is not a list", event)
	}
	return entries, nil
}

// ownCommand reports whether a hook command is one of the runner's:
// "<skillpm> asf hook …" where <skillpm> is any path to skillpm or the
// configured command.
func ownCommand(cmd, configured string) bool {
	f := strings.Fields(cmd)
	if len(f) < 3 || f[1] != "asf" || f[2] != "hook" {
		return false
	}
	return filepath.Base(f[0]) == DefaultCommand || (configured != "" && f[0] == configured)
}

func matcherOf(entry *object) string {
	var m string
	if raw, ok := entry.get("matcher"); ok {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

// filterOwn drops the runner's hooks from entries, except those keep
// accepts; an entry left with no hooks is dropped. Entries and hooks that
// are not the runner's stay byte for byte.
func filterOwn(entries []json.RawMessage, configured string, keep func(entry *object, cmd string) bool) ([]json.RawMessage, []string) {
	var out []json.RawMessage
	var removed []string
	for _, raw := range entries {
		entry, err := parseObject(raw)
		if err != nil {
			out = append(out, raw)
			continue
		}
		hraw, ok := entry.get("hooks")
		var list []json.RawMessage
		if !ok || json.Unmarshal(hraw, &list) != nil {
			out = append(out, raw)
			continue
		}
		var kept []json.RawMessage
		dropped := false
		for _, h := range list {
			var cmd struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(h, &cmd) == nil && ownCommand(cmd.Command, configured) && !keep(entry, cmd.Command) {
				removed = append(removed, cmd.Command)
				dropped = true
				continue
			}
			kept = append(kept, h)
		}
		switch {
		case !dropped:
			out = append(out, raw)
		case len(kept) > 0:
			entry.set("hooks", mustJSON(kept))
			b, err := entry.MarshalJSON()
			if err != nil {
				out = append(out, raw)
				continue
			}
			out = append(out, b)
		}
	}
	return out, removed
}

func mustJSON(v any) json.RawMessage {
	b, err := encodeNoEscape(v)
	if err != nil {
		panic(err) // only called with values that always encode
	}
	return b
}

// object is a JSON object that keeps its keys in order and its values as
// raw bytes, so rewriting a settings file does not reorder or reformat what
// skillpm did not touch (beyond indentation).
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func newObject() *object { return &object{vals: map[string]json.RawMessage{}} }

func parseObject(data []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := newObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return o, nil
}

func (o *object) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// MarshalJSON writes the object compactly, keys in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		if err := json.Compact(&buf, o.vals[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
