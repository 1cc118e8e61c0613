package asf

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordedSession is the session id in the recorded payloads.
const recordedSession = "8f3c2a1e-5b7d-4c9e-a2f1-0d6b9e4c7a53"

// payload loads a recorded hook payload and points its cwd (and, when
// given, tool_input.file_path) at this test's directories.
func payload(t *testing.T, name, cwd, file string, edit func(map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["cwd"] = cwd
	if file != "" {
		m["tool_input"].(map[string]any)["file_path"] = file
	}
	if edit != nil {
		edit(m)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type hookEnv struct {
	r    *Runner
	env  Env
	loc  Location
	ho   HookOptions
	work string
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Helper()
	h := &hookEnv{work: t.TempDir()}
	h.env = Env{Home: t.TempDir(), Cwd: t.TempDir()}
	h.r = New(Options{SkillDirs: []string{abs(t, exampleRoot)}})
	loc, err := ResolveState(StateOptions{Session: recordedSession}, h.env)
	if err != nil {
		t.Fatal(err)
	}
	h.loc = loc
	h.ho = HookOptions{Env: h.env}
	return h
}

func (h *hookEnv) hook(t *testing.T, kind string, p []byte) *HookResult {
	t.Helper()
	res, err := h.r.Hook(context.Background(), kind, p, h.ho)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// decode checks Output is Claude Code's shape for the action.
func decode(t *testing.T, kind string, res *HookResult) map[string]any {
	t.Helper()
	if res.Action == ActionAllow {
		if len(res.Output) != 0 {
			t.Errorf("allow printed %q", res.Output)
		}
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(res.Output, &m); err != nil {
		t.Fatalf("output %q: %v", res.Output, err)
	}
	switch res.Action {
	case ActionBlock:
		if m["decision"] != "block" || m["reason"] != res.Reason || len(m) != 2 {
			t.Errorf("block output = %v", m)
		}
	case ActionContext:
		hso, _ := m["hookSpecificOutput"].(map[string]any)
		event := map[string]string{HookPrompt: "UserPromptSubmit", HookRead: "PreToolUse"}[kind]
		if len(m) != 1 || hso["hookEventName"] != event || hso["additionalContext"] != res.Context {
			t.Errorf("context output = %v", m)
		}
	}
	return m
}

func TestHookStop(t *testing.T) {
	ctx := context.Background()
	h := newHookEnv(t)
	stop := payload(t, "stop.json", h.work, "", nil)
	active := payload(t, "stop-active.json", h.work, "", nil)

	if res := h.hook(t, HookStop, stop); res.Action != ActionAllow {
		t.Fatalf("no workflow: %v", res.Action)
	}
	mustState(t)(h.r.Init(ctx, h.loc, "fix", "Fix it", InitOptions{}))
	res := h.hook(t, HookStop, stop)
	decode(t, HookStop, res)
	if res.Action != ActionBlock || !strings.Contains(res.Reason, "skillpm asf complete DIAGNOSIS_001_CAPTURE_CLASSIFY --session "+recordedSession) ||
		!strings.Contains(res.Reason, "fix > diagnosis > 001-capture-classify.md") || !strings.Contains(res.Reason, "interrupt") {
		t.Fatalf("running step: %+v", res)
	}
	if res := h.hook(t, HookStop, payload(t, "subagent-stop.json", h.work, "", nil)); res.Action != ActionAllow {
		t.Errorf("subagent stop: %v", res.Action)
	}

	// The loop guard: continuations after a block are blocked up to the
	// limit, then the hook gives up and records why.
	for i := 2; i <= DefaultMaxStopBlocks; i++ {
		if res := h.hook(t, HookStop, active); res.Action != ActionBlock {
			t.Fatalf("continuation %d: %v", i, res.Action)
		}
	}
	if res := h.hook(t, HookStop, active); res.Action != ActionAllow {
		t.Fatalf("after %d blocks: %v", DefaultMaxStopBlocks, res.Action)
	}
	st, _ := ReadState(h.loc.Path)
	if !st.Control.Interrupted || st.Control.InterruptedBy != InterruptedByStopHook {
		t.Fatalf("the guard did not interrupt: %+v", st.Control)
	}
	if res := h.hook(t, HookStop, stop); res.Action != ActionAllow {
		t.Errorf("interrupted: %v", res.Action)
	}
	// A fresh stop (not a continuation) restarts the count.
	mustState(t)(h.r.Resume(ctx, h.loc))
	for i := 0; i < 3; i++ {
		h.hook(t, HookStop, active)
	}
	if res := h.hook(t, HookStop, stop); res.Action != ActionBlock {
		t.Errorf("fresh stop after resume: %v", res.Action)
	}
	if st, _ := ReadState(h.loc.Path); st.Control.StopBlocks != 1 {
		t.Errorf("stop_blocks = %d", st.Control.StopBlocks)
	}

	// A user-confirmation step lets the agent stop to ask.
	mustState(t)(h.r.Complete(ctx, h.loc, "DIAGNOSIS_001_CAPTURE_CLASSIFY", CompleteOptions{}))
	mustState(t)(h.r.Complete(ctx, h.loc, "DIAGNOSIS_002_REFERENCE_CHECK", CompleteOptions{}))
	if res := h.hook(t, HookStop, stop); res.Action != ActionAllow {
		t.Errorf("at the gate: %v", res.Action)
	}
	// ... and marks the run as waiting, as the reference's Stop hook does.
	st, err := ReadState(h.loc.Path)
	if err != nil {
		t.Fatal(err)
	}
	if c := st.Control; !c.Interrupted || c.InterruptReason != "awaiting user confirmation at DIAGNOSIS_007_EXPLAIN_CONFIRM" || c.InterruptedBy != InterruptedByStopHook || st.Status != StatusInterrupted {
		t.Errorf("at the gate: interrupted %v %q by %q, status %s", c.Interrupted, c.InterruptReason, c.InterruptedBy, st.Status)
	}
	// The user's answer turns the wait into their interruption, so resume
	// counts it as the confirmation.
	h.hook(t, HookPrompt, payload(t, "user-prompt-submit.json", h.work, "", nil))
	st = mustState(t)(h.r.Resume(ctx, h.loc))
	if s := st.Control.Steps["DIAGNOSIS_007_EXPLAIN_CONFIRM"]; !s.Confirmed || st.Control.Interrupted {
		t.Errorf("resume after the answer: confirmed %v, interrupted %v", s.Confirmed, st.Control.Interrupted)
	}
	mustState(t)(h.r.Complete(ctx, h.loc, "DIAGNOSIS_007_EXPLAIN_CONFIRM", CompleteOptions{Confirmed: true}))
	mustState(t)(h.r.Complete(ctx, h.loc, "CODE", CompleteOptions{}))
	if res := h.hook(t, HookStop, stop); res.Action != ActionAllow {
		t.Errorf("completed: %v", res.Action)
	}
}

func TestHookPrompt(t *testing.T) {
	ctx := context.Background()
	h := newHookEnv(t)
	prompt := payload(t, "user-prompt-submit.json", h.work, "", nil)

	if res := h.hook(t, HookPrompt, prompt); res.Action != ActionAllow {
		t.Fatalf("no workflow: %v", res.Action)
	}
	res := h.hook(t, HookPrompt, payload(t, "user-prompt-submit-asf.json", h.work, "", nil))
	decode(t, HookPrompt, res)
	if res.Action != ActionContext || !strings.Contains(res.Context,
		`skillpm run fix "the login page returns 500 after a password reset" --session `+recordedSession) {
		t.Fatalf("/asf adapter: %+v", res)
	}

	mustState(t)(h.r.Init(ctx, h.loc, "fix", "Fix it", InitOptions{}))
	res = h.hook(t, HookPrompt, prompt)
	decode(t, HookPrompt, res)
	if res.Action != ActionContext || !strings.Contains(res.Context, "skillpm asf resume --session "+recordedSession) {
		t.Fatalf("running: %+v", res)
	}
	st, _ := ReadState(h.loc.Path)
	if !st.Control.Interrupted || st.Control.InterruptedBy != InterruptedByUser ||
		st.Control.InterruptReason != "user prompt: Yes, that is the cause. Go ahead." {
		t.Fatalf("prompt did not interrupt: %+v", st.Control)
	}
	if res := h.hook(t, HookStop, payload(t, "stop.json", h.work, "", nil)); res.Action != ActionAllow {
		t.Errorf("stop after the user's prompt: %v", res.Action)
	}

	// At the gate the prompt is the answer: the context says how to
	// confirm, and resume counts it.
	mustState(t)(h.r.Resume(ctx, h.loc))
	mustState(t)(h.r.Complete(ctx, h.loc, "DIAGNOSIS_001_CAPTURE_CLASSIFY", CompleteOptions{}))
	mustState(t)(h.r.Complete(ctx, h.loc, "DIAGNOSIS_002_REFERENCE_CHECK", CompleteOptions{}))
	res = h.hook(t, HookPrompt, prompt)
	if !strings.Contains(res.Context, "complete DIAGNOSIS_007_EXPLAIN_CONFIRM --confirmed --session "+recordedSession) {
		t.Fatalf("gate context: %s", res.Context)
	}
	mustState(t)(h.r.Resume(ctx, h.loc))
	if _, err := h.r.Complete(ctx, h.loc, "DIAGNOSIS_007_EXPLAIN_CONFIRM", CompleteOptions{}); err != nil {
		t.Errorf("complete after the user answered and resume: %v", err)
	}
}

func TestHookRead(t *testing.T) {
	ctx := context.Background()
	h := newHookEnv(t)
	root := abs(t, exampleRoot)
	fix := filepath.Join(root, "fix", "SKILL.md")

	res := h.hook(t, HookRead, payload(t, "pre-tool-use-read.json", h.work, fix, nil))
	decode(t, HookRead, res)
	if res.Action != ActionContext || !strings.Contains(res.Context, `skillpm asf init fix "<task>" --session `+recordedSession) ||
		strings.Contains(res.Context, "--skills-root") {
		t.Fatalf("read fix: %+v", res)
	}
	// A skill outside the search path: the command names its root.
	other := t.TempDir()
	writeSkill(t, other, "wf", []string{"- step: a.md"}, "a.md")
	res = h.hook(t, HookRead, payload(t, "pre-tool-use-read.json", h.work, filepath.Join(other, "wf", "SKILL.md"), nil))
	if !strings.Contains(res.Context, "--skills-root "+other) {
		t.Errorf("read outside the search path: %s", res.Context)
	}
	// A relative path is relative to the payload's cwd.
	res = h.hook(t, HookRead, payload(t, "pre-tool-use-read.json", root, "fix/SKILL.md", nil))
	if res.Action != ActionContext {
		t.Errorf("relative path: %v", res.Action)
	}
	for name, file := range map[string]string{
		"plain skill": filepath.Join(root, "code", "SKILL.md"),
		"step file":   filepath.Join(root, "diagnosis", "001-capture-classify.md"),
		"missing":     filepath.Join(root, "nope", "SKILL.md"),
	} {
		if res := h.hook(t, HookRead, payload(t, "pre-tool-use-read.json", h.work, file, nil)); res.Action != ActionAllow {
			t.Errorf("%s: %v", name, res.Action)
		}
	}
	if res := h.hook(t, HookRead, payload(t, "pre-tool-use-read-other.json", h.work, "", nil)); res.Action != ActionAllow {
		t.Errorf("other file: %v", res.Action)
	}
	notRead := payload(t, "pre-tool-use-read.json", h.work, fix, func(m map[string]any) { m["tool_name"] = "Edit" })
	if res := h.hook(t, HookRead, notRead); res.Action != ActionAllow {
		t.Errorf("Edit tool: %v", res.Action)
	}

	mustState(t)(h.r.Init(ctx, h.loc, "fix", "Fix it", InitOptions{}))
	res = h.hook(t, HookRead, payload(t, "pre-tool-use-read.json", h.work, fix, nil))
	if !strings.Contains(res.Context, "is running at step 1/4 DIAGNOSIS_001_CAPTURE_CLASSIFY") {
		t.Errorf("read while running: %s", res.Context)
	}
}

// TestHookSessionsApart checks that one session's workflow does not reach
// another session's hooks.
func TestHookSessionsApart(t *testing.T) {
	ctx := context.Background()
	h := newHookEnv(t)
	mustState(t)(h.r.Init(ctx, h.loc, "fix", "Fix it", InitOptions{}))
	other := payload(t, "stop.json", h.work, "", func(m map[string]any) { m["session_id"] = "other-session" })
	if res := h.hook(t, HookStop, other); res.Action != ActionAllow {
		t.Errorf("another session was blocked: %v", res.Action)
	}
	if res := h.hook(t, HookPrompt, payload(t, "user-prompt-submit.json", h.work, "", func(m map[string]any) { m["session_id"] = "other-session" })); res.Action != ActionAllow {
		t.Errorf("another session's prompt: %v", res.Action)
	}
	if st, _ := ReadState(h.loc.Path); st.Control.Interrupted {
		t.Error("another session's prompt interrupted this workflow")
	}
}

// TestHookWorktreeFallback: a workflow started without a session in a git
// worktree (as the reference runtime does) is what hooks of any session in
// that worktree see, while a session's own state wins.
func TestHookWorktreeFallback(t *testing.T) {
	ctx := context.Background()
	h := newHookEnv(t)
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	wt, err := ResolveState(StateOptions{}, Env{Home: h.env.Home, Cwd: repo})
	if err != nil || wt.Scope != ScopeWorktree {
		t.Fatalf("%v %v", wt, err)
	}
	mustState(t)(h.r.Init(ctx, wt, "fix", "Fix it", InitOptions{}))
	stop := payload(t, "stop.json", repo, "", nil)
	res := h.hook(t, HookStop, stop)
	if res.Action != ActionBlock || !strings.Contains(res.Reason, "run: skillpm asf complete DIAGNOSIS_001_CAPTURE_CLASSIFY (it prints") {
		t.Fatalf("worktree workflow (its commands name no session): %+v", res)
	}
	// The session's own finished workflow takes precedence.
	mustState(t)(h.r.Init(ctx, h.loc, "fix", "mine", InitOptions{}))
	mustState(t)(h.r.Interrupt(ctx, h.loc, "", InterruptedByAgent))
	if res := h.hook(t, HookStop, stop); res.Action != ActionAllow {
		t.Errorf("session state should win: %v", res.Action)
	}
}

func TestHookBadPayloads(t *testing.T) {
	h := newHookEnv(t)
	for name, c := range map[string]struct {
		kind    string
		payload string
	}{
		"empty":       {HookStop, "  "},
		"not json":    {HookStop, "stop"},
		"wrong event": {HookStop, `{"hook_event_name":"UserPromptSubmit","session_id":"s"}`},
		"unknown":     {"notify", `{}`},
		"bad session": {HookStop, `{"hook_event_name":"Stop","session_id":"../../x"}`},
	} {
		if _, err := h.r.Hook(context.Background(), c.kind, []byte(c.payload), h.ho); err == nil {
			t.Errorf("%s: no error", name)
		} else if name != "bad session" && !errors.Is(err, ErrHookPayload) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
