package asf

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/hosts"
)

// Hosts with a hook protocol the runner answers. Codex (0.171.0) reads
// hooks.json files in Claude Code's shape ({"hooks": {EVENT: [{matcher,
// hooks: [{type: command, command}]}]}}) and sends Stop and
// UserPromptSubmit payloads and reads their answers as Claude Code does,
// so "skillpm asf hook stop|prompt" serves both.
const (
	// HostClaude is Claude Code: settings.json's "hooks" key.
	HostClaude = "claude"
	// HostCodex is Codex: hooks.json beside config.toml.
	HostCodex = "codex"
	// HostOpenCode is OpenCode, which has no command hooks (see
	// ErrHooksUnsupported's use in HookSettingsPath).
	HostOpenCode = "opencode"
)

// HookHosts lists the hosts whose hooks the runner installs and answers.
func HookHosts() []string { return []string{HostClaude, HostCodex} }

// openCodeNoHooks says why OpenCode gets no runner hooks, read from
// opencode-ai 1.18.33: its plugins are JavaScript modules whose hooks
// (chat.message, tool.execute.before/after, command.execute.before,
// experimental.*) run before a message or a tool, and session.idle is an
// event it is told of after the turn ended. None can refuse to let the
// agent stop, which is what the runner's hooks are for.
const openCodeNoHooks = "OpenCode (1.18.33) runs no command hooks: its hooks are JavaScript plugins " +
	"({plugin,plugins}/*.{ts,js} in .opencode or ~/.config/opencode), and none of its plugin hooks can refuse to let the agent stop " +
	"(session.idle is an event it reports after the turn ended), so the runner's Stop rule, keep the agent working while " +
	"an automatic step runs, has nowhere to answer; in OpenCode follow the workflow with skillpm asf current and skillpm asf complete"

// HooksUnsupported returns why host cannot have the runner's hooks, or
// nil when it can.
func HooksUnsupported(host string) error {
	switch {
	case slices.Contains(HookHosts(), host):
		return nil
	case host == HostOpenCode:
		return fmt.Errorf("%w: %s", ErrHooksUnsupported, openCodeNoHooks)
	}
	return fmt.Errorf("%w: %s has no hook protocol skillpm knows (hooks: %s)", ErrHooksUnsupported, host, strings.Join(HookHosts(), ", "))
}

// HookSettingsPath is the file host reads its hooks from at scope:
// Claude Code's settings.json (ClaudeSettingsPath), or Codex's hooks.json
// in $CODEX_HOME (else ~/.codex) for the user scope and ./.codex for the
// project scope, the folders of the config layers Codex loads hooks from.
func HookSettingsPath(host, scope string, env Env) (string, error) {
	if err := HooksUnsupported(host); err != nil {
		return "", err
	}
	if host == HostClaude {
		return ClaudeSettingsPath(scope, env)
	}
	switch scope {
	case "", ScopeUser:
		p, err := hosts.Dir{Env: "CODEX_HOME", Dir: "~/.codex", Join: "hooks.json"}.Resolve(env)
		if err != nil {
			return "", &markedError{err: fmt.Errorf("the user hooks file: %w", err), mark: ErrNoSettingsPath}
		}
		return p, nil
	case ScopeProject:
		return filepath.Join(env.Cwd, ".codex", "hooks.json"), nil
	}
	return "", fmt.Errorf("%w %q: use user or project", ErrUnknownScope, scope)
}

// HostHooks are the entries that wire the runner into host, with command
// as the skillpm executable ("" is DefaultCommand). Codex gets Stop and
// UserPromptSubmit only: it has no Read tool (it reads files through its
// shell), so the read hook has nothing to match. A host other than
// Claude Code passes --host, so the hook and the commands it prints use
// that host's state root.
func HostHooks(host, command string) ([]ClaudeHook, error) {
	if err := HooksUnsupported(host); err != nil {
		return nil, err
	}
	if host == HostClaude {
		return ClaudeHooks(command), nil
	}
	if command == "" {
		command = DefaultCommand
	}
	flag := " --host " + host
	return []ClaudeHook{
		{Event: "Stop", Command: command + " asf hook " + HookStop + flag},
		{Event: "UserPromptSubmit", Command: command + " asf hook " + HookPrompt + flag},
	}, nil
}

// InstallHooks merges the runner's hooks for host into file, as
// InstallClaudeHooks does for Claude Code.
func InstallHooks(ctx context.Context, host, file string, o SettingsOptions) (*SettingsChange, error) {
	hs, err := HostHooks(host, o.Command)
	if err != nil {
		return nil, err
	}
	ch, err := installHooks(ctx, file, o, hs)
	if err == nil && ch.Changed && host == HostCodex {
		ch.Note = codexTrustNote
	}
	return ch, err
}

// codexTrustNote: Codex 0.171.0 runs a hook from a user or project
// hooks.json only once its hash is trusted (checked with the real CLI: an
// untrusted UserPromptSubmit hook does not run), and asks for that review
// itself; skillpm does not write the trust, which is the user's consent.
const codexTrustNote = "Codex runs new or changed hooks only once you trust them: start codex and review them when it says hooks need review"

// UninstallHooks removes the runner's hooks from host's file, as
// UninstallClaudeHooks does.
func UninstallHooks(ctx context.Context, host, file string, o SettingsOptions) (*SettingsChange, error) {
	if err := HooksUnsupported(host); err != nil {
		return nil, err
	}
	return UninstallClaudeHooks(ctx, file, o)
}
