package asf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillpm/skillpm/pkg/skill"
)

// Hook kinds: what `skillpm asf hook KIND` adapts.
const (
	// HookStop decides whether the agent may stop (Claude Code: Stop).
	HookStop = "stop"
	// HookPrompt sees each user prompt (Claude Code: UserPromptSubmit).
	HookPrompt = "prompt"
	// HookRead sees file reads (Claude Code: PreToolUse on Read).
	HookRead = "read"
)

// HookKinds lists the hook kinds.
func HookKinds() []string { return []string{HookStop, HookPrompt, HookRead} }

// Hook actions.
const (
	// ActionAllow lets the host go on and says nothing.
	ActionAllow = "allow"
	// ActionBlock refuses to let the agent stop, telling it why.
	ActionBlock = "block"
	// ActionContext lets the host go on and adds context for the agent.
	ActionContext = "context"
)

// HookInput is a Claude Code hook payload: the common fields and those of
// Stop, UserPromptSubmit and PreToolUse. Unknown fields are ignored.
type HookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	HookEventName  string `json:"hook_event_name"`
	// StopHookActive is true when the agent is already continuing because a
	// Stop hook blocked it.
	StopHookActive bool   `json:"stop_hook_active"`
	Prompt         string `json:"prompt"`
	ToolName       string `json:"tool_name"`
	ToolInput      struct {
		FilePath string `json:"file_path"`
	} `json:"tool_input"`
}

// hookEvents lists the hook_event_name values a hook kind accepts ("" is
// accepted too); ok is false for an unknown kind.
func hookEvents(kind string) (events []string, ok bool) {
	switch kind {
	case HookStop:
		return []string{"Stop", "SubagentStop"}, true
	case HookPrompt:
		return []string{"UserPromptSubmit"}, true
	case HookRead:
		return []string{"PreToolUse"}, true
	}
	return nil, false
}

// ParseHookInput decodes a payload for the hook kind, refusing one sent to
// the wrong hook (a settings mistake worth reporting).
func ParseHookInput(kind string, payload []byte) (*HookInput, error) {
	events, ok := hookEvents(kind)
	if !ok {
		return nil, fmt.Errorf("%w: unknown hook %q (known: %s)", ErrHookPayload, kind, strings.Join(HookKinds(), ", "))
	}
	var in HookInput
	if len(bytes.TrimSpace(payload)) == 0 {
		return nil, fmt.Errorf("%w: empty; the host sends the hook's JSON on stdin", ErrHookPayload)
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHookPayload, err)
	}
	if in.HookEventName != "" {
		ok = false
		for _, e := range events {
			ok = ok || e == in.HookEventName
		}
		if !ok {
			return nil, fmt.Errorf("%w: hook %s got a %s event; check the host's hook settings", ErrHookPayload, kind, in.HookEventName)
		}
	}
	return &in, nil
}

// HookResult is a hook's decision and its answer in the host's format.
type HookResult struct {
	// Action is one of the Action constants.
	Action string `json:"action"`
	// Reason is why the agent may not stop (ActionBlock).
	Reason string `json:"reason,omitempty"`
	// Context is added to the agent's context (ActionContext).
	Context string `json:"context,omitempty"`
	// Output is the host's answer for stdout; empty means allow silently.
	Output []byte `json:"-"`
}

// HookOptions say where the hook finds its state.
type HookOptions struct {
	// State is the caller's state choice; the payload's session_id is used
	// when it names no session.
	State StateOptions
	// Env is the process environment; the payload's cwd replaces Cwd.
	Env Env
}

// Hook answers one hook call of a host (Claude Code) from its JSON payload:
//
//   - stop: block while an automatic step is running; allow when there is no
//     running workflow, when it is interrupted, or at a user_confirmation
//     step (the agent must stop to ask). Blocking does not stop when
//     stop_hook_active is set, since the reason names a way out (complete,
//     or interrupt); but after MaxStopBlocks blocked continuations in a row
//     the hook gives up, marks the workflow interrupted and allows, so a
//     stuck agent cannot loop forever.
//   - prompt: a user prompt while a workflow runs interrupts it (the user
//     has the floor) and tells the agent how to resume, or how to confirm at
//     a user_confirmation step; "/asf SKILL TASK" with no workflow running
//     tells the agent the run command for this session.
//   - read: reading a SKILL.md that declares execution.calls tells the agent
//     to start it with the runner (with this session) instead of following
//     it by hand. The read itself is never refused.
func (r *Runner) Hook(ctx context.Context, kind string, payload []byte, ho HookOptions) (*HookResult, error) {
	in, err := ParseHookInput(kind, payload)
	if err != nil {
		return nil, err
	}
	env := ho.Env
	if in.Cwd != "" && filepath.IsAbs(in.Cwd) {
		env.Cwd = in.Cwd
	}
	so := ho.State
	if so.Session == "" && so.Path == "" && in.SessionID != "" {
		so.Session = in.SessionID
	}
	loc, err := r.hookLocation(so, env)
	if err != nil {
		return nil, err
	}
	var res *HookResult
	switch kind {
	case HookStop:
		res, err = r.hookStop(ctx, loc, in)
	case HookPrompt:
		res, err = r.hookPrompt(ctx, loc, in)
	default:
		res, err = r.hookRead(ctx, loc, in, env)
	}
	if err != nil {
		return nil, err
	}
	res.Output, err = claudeOutput(kind, res)
	return res, err
}

// hookLocation resolves the hook's state: the session's file when it has
// one, else the session-less state (worktree or workspace) when a workflow
// was started there without a session, which is what the reference
// runtime's hooks see.
func (r *Runner) hookLocation(so StateOptions, env Env) (Location, error) {
	loc, err := ResolveState(so, env)
	if err != nil || loc.Scope != ScopeSession {
		return loc, err
	}
	if _, err := ReadState(loc.Path); !errors.Is(err, ErrNoWorkflow) {
		return loc, nil
	}
	so.Session = ""
	env.Getenv = withoutEnv(env.Getenv, EnvSession)
	alt, err := ResolveState(so, env)
	if err != nil {
		return loc, nil
	}
	if st, err := ReadState(alt.Path); err == nil && st.Runtime.Session == "" {
		return alt, nil
	}
	return loc, nil
}

func withoutEnv(get func(string) string, name string) func(string) string {
	return func(k string) string {
		if k == name || get == nil {
			return ""
		}
		return get(k)
	}
}

// running loads a workflow that is running at loc, or returns nil.
func running(loc Location) (*State, error) {
	st, err := ReadState(loc.Path)
	if errors.Is(err, ErrNoWorkflow) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if st.Control.Status != StatusRunning {
		return nil, nil
	}
	return st, nil
}

func describeStep(st *State) string {
	key, s, _ := st.Current()
	pos, total := st.Position()
	return fmt.Sprintf("step %d/%d %s (%s)", pos, total, key, strings.Join(s.CallPath, " > "))
}

func (r *Runner) hookStop(ctx context.Context, loc Location, in *HookInput) (*HookResult, error) {
	allow := &HookResult{Action: ActionAllow}
	if in.HookEventName == "SubagentStop" {
		return allow, nil // the workflow belongs to the main agent
	}
	st, err := running(loc)
	if err != nil || st == nil {
		return allow, err
	}
	if st.Control.Interrupted {
		return allow, nil
	}
	var res *HookResult
	_, err = r.update(ctx, loc, func(st *State) error {
		key, s, ok := st.Current()
		if !ok || st.Control.Interrupted {
			res = allow // changed since the unlocked read
			return nil
		}
		if s.Mode == ModeUserConfirmation {
			// The agent stops to ask the user: the run waits, marked as the
			// reference runtime's Stop hook marks it, so status and the
			// next prompt know why.
			res = allow
			return interrupt(st, "awaiting user confirmation at "+key, InterruptedByStopHook)
		}
		c := &st.Control
		if in.StopHookActive {
			c.StopBlocks++
		} else {
			c.StopBlocks = 1
		}
		if c.StopBlocks > r.opts.maxStopBlocks() {
			reason := fmt.Sprintf("the Stop hook let the agent stop after %d blocked attempts in a row at %s", r.opts.maxStopBlocks(), key)
			res = allow
			return interrupt(st, reason, InterruptedByStopHook)
		}
		res = &HookResult{Action: ActionBlock, Reason: fmt.Sprintf(
			"The ASF workflow %q is running and %s is not complete. Finish the step, then run: %s "+
				"(it prints the next step). To see the step again run: %s. "+
				"If you cannot go on without the user's input, run: %s and then ask the user.",
			c.Workflow, describeStep(st), r.command(loc, "complete", key), r.command(loc, "current"),
			r.command(loc, "interrupt", "<why you need the user>"))}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// maxPromptEcho bounds how much of a prompt is kept as interrupt_reason.
const maxPromptEcho = 120

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func (r *Runner) hookPrompt(ctx context.Context, loc Location, in *HookInput) (*HookResult, error) {
	st, err := running(loc)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return r.asfAdapter(loc, in.Prompt), nil
	}
	var res *HookResult
	_, err = r.update(ctx, loc, func(st *State) error {
		key, s, ok := st.Current()
		if !ok {
			res = &HookResult{Action: ActionAllow}
			return nil
		}
		// A wait the Stop hook marked at a confirmation step is answered by
		// this prompt: it becomes the user's interruption, so resume
		// counts it as the confirmation.
		waiting := st.Control.InterruptedBy == InterruptedByStopHook && s.Mode == ModeUserConfirmation
		if !st.Control.Interrupted || waiting {
			if err := interrupt(st, "user prompt: "+truncate(in.Prompt, maxPromptEcho), InterruptedByUser); err != nil {
				return err
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "The ASF workflow %q is paused at %s because the user sent a message. Answer the user first. ",
			st.Control.Workflow, describeStep(st))
		if s.Mode == ModeUserConfirmation && !s.Confirmed {
			fmt.Fprintf(&b, "This step asked for the user's confirmation: if the message confirms, run: %s. ",
				r.command(loc, "complete", key, "--confirmed"))
			fmt.Fprintf(&b, "If it asks for changes, make them and ask again; to redo an earlier step run: %s. ",
				r.command(loc, "rewind", "<STEP_KEY>"))
		}
		fmt.Fprintf(&b, "To continue the workflow run: %s. To abandon it run: %s.", r.command(loc, "resume"), r.command(loc, "abort"))
		res = &HookResult{Action: ActionContext, Context: b.String()}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// asfAdapter answers "/asf SKILL TASK" with the command that runs it in
// this session.
func (r *Runner) asfAdapter(loc Location, prompt string) *HookResult {
	fields := strings.Fields(prompt)
	if len(fields) < 2 || fields[0] != "/asf" {
		return &HookResult{Action: ActionAllow}
	}
	name, err := NormalizeSkillName(fields[1])
	if err != nil {
		return &HookResult{Action: ActionAllow}
	}
	task := strings.Join(fields[2:], " ")
	if task == "" {
		task = "<task>"
	}
	return &HookResult{Action: ActionContext, Context: fmt.Sprintf(
		"The user asked to run the ASF workflow %q. Start it with: %s — it checks the skill, starts the workflow "+
			"and prints the first step; follow each step and complete it with the command it shows.",
		name, r.Command(loc, "run", name, task))}
}

func (r *Runner) hookRead(ctx context.Context, loc Location, in *HookInput, env Env) (*HookResult, error) {
	allow := &HookResult{Action: ActionAllow}
	if in.ToolName != "" && in.ToolName != "Read" {
		return allow, nil
	}
	fp := in.ToolInput.FilePath
	if fp == "" || !strings.EqualFold(filepath.Base(fp), skill.SkillFile) {
		return allow, nil
	}
	fp = env.Abs(fp)
	dir := filepath.Dir(fp)
	s, _ := skill.Load(ctx, dir, skill.Options{Mode: skill.Lenient})
	if s == nil || s.Execution == nil || len(s.Execution.Calls) == 0 {
		return allow, nil
	}
	name := filepath.Base(dir)
	st, err := running(loc)
	if err != nil {
		return nil, err
	}
	if st != nil {
		return &HookResult{Action: ActionContext, Context: fmt.Sprintf(
			"The ASF workflow %q is running at %s. Follow the runner's current step instead of this SKILL.md; "+
				"to see it run: %s.", st.Control.Workflow, describeStep(st), r.command(loc, "current"))}, nil
	}
	args := []string{"init", name, "<task>"}
	if root := filepath.Dir(dir); !slices.Contains(r.opts.SkillDirs, root) {
		args = append(args, "--skills-root", root)
	}
	return &HookResult{Action: ActionContext, Context: fmt.Sprintf(
		"%s is an ASF workflow: its SKILL.md declares execution.calls (%d calls). When the user asked for this skill, "+
			"do not follow it by hand; start it with: %s (the task in quotes) and follow the step it prints, "+
			"completing each with the command shown.", name, len(s.Execution.Calls), r.command(loc, args...))}, nil
}

// claudeOutput is the answer in Claude Code's hook format: Stop blocks with
// {"decision":"block","reason":…}; UserPromptSubmit and PreToolUse add
// context with hookSpecificOutput.additionalContext; allowing prints
// nothing.
func claudeOutput(kind string, res *HookResult) ([]byte, error) {
	var v any
	switch res.Action {
	case ActionBlock:
		v = claudeBlock{Decision: "block", Reason: res.Reason}
	case ActionContext:
		event := "UserPromptSubmit"
		if kind == HookRead {
			event = "PreToolUse"
		}
		v = claudeContext{HookSpecificOutput: claudeSpecific{HookEventName: event, AdditionalContext: res.Context}}
	default:
		return nil, nil
	}
	out, err := encodeNoEscape(v)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// Claude Code's hook answers, fields in the order its documentation shows.
type (
	claudeBlock struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	claudeContext struct {
		HookSpecificOutput claudeSpecific `json:"hookSpecificOutput"`
	}
	claudeSpecific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
)
