package asf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	goldenfile "github.com/skillpm/skillpm/internal/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testRunner returns a runner over the example skills with a fixed clock
// and workflow id, and a session location in a temp state root.
func testRunner(t *testing.T, dirs ...string) (*Runner, Location) {
	t.Helper()
	if len(dirs) == 0 {
		dirs = []string{abs(t, exampleRoot)}
	}
	tick := 0
	r := New(Options{
		SkillDirs: dirs,
		Now: func() time.Time {
			tick++
			return time.Date(2026, 1, 2, 3, 4, tick, 0, time.UTC)
		},
		NewID: func() string { return "00000000-0000-4000-8000-000000000001" },
	})
	env := Env{Home: t.TempDir(), Cwd: t.TempDir()}
	loc, err := ResolveState(StateOptions{Session: "s1", Root: filepath.Join(env.Home, "state")}, env)
	if err != nil {
		t.Fatal(err)
	}
	return r, loc
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got, *update)
}

// stable replaces the temp directories in a state file with placeholders.
func stable(data []byte, loc Location) []byte {
	out := bytes.ReplaceAll(data, []byte(filepath.Dir(filepath.Dir(loc.Path))), []byte("$HOME"))
	out = bytes.ReplaceAll(out, []byte(loc.Workspace), []byte("$WORK"))
	root, _ := filepath.Abs(exampleRoot)
	return bytes.ReplaceAll(out, []byte(root), []byte("$SKILLS"))
}

func TestInitState(t *testing.T) {
	r, loc := testRunner(t)
	st, err := r.Init(context.Background(), loc, "fix", "Fix the login bug <500>", InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(loc.Path)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "init-state.json", stable(data, loc))

	// The reference runtime's fields, with its values.
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	control := doc["control"].(map[string]any)
	for _, k := range []string{"runtime", "runtime_version", "workflow_id", "workflow", "status", "current_step", "order",
		"interrupted", "interrupt_reason", "steps", "created_at", "updated_at"} {
		if _, ok := control[k]; !ok {
			t.Errorf("control.%s missing", k)
		}
	}
	for _, k := range []string{"skills_root", "workspace", "state_path"} {
		if _, ok := doc["runtime"].(map[string]any)[k]; !ok {
			t.Errorf("runtime.%s missing", k)
		}
	}
	if doc["data"].(map[string]any)["task_description"] != "Fix the login bug <500>" {
		t.Errorf("data = %v", doc["data"])
	}
	// The spec's snapshot.
	if doc["activeSkill"] != "fix" || doc["status"] != "running" || doc["stopPolicy"] != StopBlockUntilStepComplete {
		t.Errorf("snapshot = %v %v %v", doc["activeSkill"], doc["status"], doc["stopPolicy"])
	}
	if !reflect.DeepEqual(st.CurrentPath, []string{"fix", "diagnosis", "001-capture-classify.md"}) {
		t.Errorf("currentPath = %v", st.CurrentPath)
	}
	// Steps are written in workflow order, not sorted by key.
	if i, j := bytes.Index(data, []byte(`"DIAGNOSIS_001_CAPTURE_CLASSIFY": {`)), bytes.Index(data, []byte(`"CODE": {`)); i < 0 || j < i {
		t.Errorf("steps not in order: %d %d", i, j)
	}
	if fi, err := os.Stat(loc.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state mode = %v, %v", fi.Mode(), err)
	}
}

func mustState(t *testing.T) func(*State, error) *State {
	return func(st *State, err error) *State {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}

func statuses(st *State) string {
	var b strings.Builder
	for _, k := range st.Control.Order {
		s := st.Control.Steps[k]
		c := map[string]string{StatusPending: ".", StatusRunning: ">", StatusCompleted: "x"}[s.Status]
		if s.Skipped {
			c = "-"
		}
		b.WriteString(c)
	}
	return b.String()
}

func TestWorkflow(t *testing.T) {
	ctx := context.Background()
	r, loc := testRunner(t)
	must := mustState(t)
	st := must(r.Init(ctx, loc, "fix", "Fix the login bug", InitOptions{}))
	if got := statuses(st); got != ">..." {
		t.Fatalf("after init: %s", got)
	}

	_, err := r.Complete(ctx, loc, "DIAGNOSIS_002_REFERENCE_CHECK", CompleteOptions{})
	if !errors.Is(err, ErrNotCurrentStep) {
		t.Fatalf("completing a later step: %v", err)
	}
	_, err = r.Complete(ctx, loc, "NOPE", CompleteOptions{})
	if !errors.Is(err, ErrUnknownStep) {
		t.Fatalf("unknown step: %v", err)
	}
	st = must(r.Complete(ctx, loc, "diagnosis_001_capture_classify", CompleteOptions{}))
	if got := statuses(st); got != "x>.." {
		t.Fatalf("after 001: %s", got)
	}
	_, err = r.Complete(ctx, loc, "DIAGNOSIS_001_CAPTURE_CLASSIFY", CompleteOptions{})
	if !errors.Is(err, ErrStepDone) {
		t.Fatalf("completing a done step: %v", err)
	}
	st = must(r.Complete(ctx, loc, "DIAGNOSIS_002_REFERENCE_CHECK", CompleteOptions{}))
	if st.StopPolicy != StopAllowUserConfirmation {
		t.Errorf("stopPolicy at the gate = %s", st.StopPolicy)
	}

	// The gate.
	_, err = r.Complete(ctx, loc, "DIAGNOSIS_007_EXPLAIN_CONFIRM", CompleteOptions{})
	if !errors.Is(err, ErrNeedsConfirmation) || !strings.Contains(err.Error(), "--confirmed --session s1") {
		t.Fatalf("gate: %v", err)
	}
	// --force does not get around it either.
	_, err = r.Complete(ctx, loc, "CODE", CompleteOptions{Force: true})
	if !errors.Is(err, ErrNeedsConfirmation) {
		t.Fatalf("forcing past the gate: %v", err)
	}

	// The user answers: interrupt by the user, then resume confirms.
	st = must(r.Interrupt(ctx, loc, "user prompt: yes", InterruptedByUser))
	if st.Status != StatusInterrupted || st.StopPolicy != StopAllow {
		t.Errorf("interrupted snapshot = %s %s", st.Status, st.StopPolicy)
	}
	st = must(r.Resume(ctx, loc))
	if !st.Control.Steps["DIAGNOSIS_007_EXPLAIN_CONFIRM"].Confirmed || st.Control.Interrupted {
		t.Fatalf("resume after the user's answer: %+v", st.Control)
	}
	st = must(r.Complete(ctx, loc, "DIAGNOSIS_007_EXPLAIN_CONFIRM", CompleteOptions{}))
	if got := statuses(st); got != "xxx>" {
		t.Fatalf("after the gate: %s", got)
	}

	// Rewind to 002: the gate must be passed again.
	st = must(r.Rewind(ctx, loc, "DIAGNOSIS_002_REFERENCE_CHECK"))
	if got := statuses(st); got != "x>.." || st.Control.Steps["DIAGNOSIS_007_EXPLAIN_CONFIRM"].Confirmed {
		t.Fatalf("after rewind: %s %+v", got, st.Control.Steps["DIAGNOSIS_007_EXPLAIN_CONFIRM"])
	}
	must(r.Complete(ctx, loc, "DIAGNOSIS_002_REFERENCE_CHECK", CompleteOptions{}))
	// An agent's own interruption is not the user's answer.
	must(r.Interrupt(ctx, loc, "", InterruptedByAgent))
	st = must(r.Resume(ctx, loc))
	if st.Control.Steps["DIAGNOSIS_007_EXPLAIN_CONFIRM"].Confirmed {
		t.Fatal("an agent interruption confirmed the gate")
	}
	must(r.Complete(ctx, loc, "DIAGNOSIS_007_EXPLAIN_CONFIRM", CompleteOptions{Confirmed: true}))
	st = must(r.Complete(ctx, loc, "CODE", CompleteOptions{}))
	if st.Control.Status != StatusCompleted || st.Control.CurrentStep != "" || st.Status != StatusCompleted || len(st.CurrentPath) != 0 {
		t.Fatalf("after the last step: %+v", st.Control)
	}
	v, err := r.View(st, loc)
	if err != nil || v.Render(HeadingNext) != CompletedMessage+"\n" {
		t.Errorf("completed view: %v %q", err, v.Render(HeadingNext))
	}
	for _, f := range []func() error{
		func() error { _, err := r.Complete(ctx, loc, "CODE", CompleteOptions{}); return err },
		func() error { _, err := r.Resume(ctx, loc); return err },
		func() error { _, err := r.Interrupt(ctx, loc, "x", InterruptedByAgent); return err },
	} {
		if err := f(); !errors.Is(err, ErrWorkflowDone) {
			t.Errorf("on a completed workflow: %v", err)
		}
	}
	// Rewind reopens a completed workflow.
	st = must(r.Rewind(ctx, loc, "CODE"))
	if got := statuses(st); got != "xxx>" || st.Control.Status != StatusRunning {
		t.Errorf("rewind after completion: %s %s", got, st.Control.Status)
	}
}

func TestForceSkips(t *testing.T) {
	ctx := context.Background()
	r, loc := testRunner(t)
	must := mustState(t)
	must(r.Init(ctx, loc, "fix", "t", InitOptions{}))
	st := must(r.Complete(ctx, loc, "DIAGNOSIS_007_EXPLAIN_CONFIRM", CompleteOptions{Force: true, Confirmed: true}))
	if got := statuses(st); got != "--x>" {
		t.Errorf("after forcing 007: %s", got)
	}
	st = must(r.Rewind(ctx, loc, "DIAGNOSIS_001_CAPTURE_CLASSIFY"))
	if got := statuses(st); got != ">..." {
		t.Errorf("after rewinding to the start: %s", got)
	}
	st = must(r.Rewind(ctx, loc, "CODE"))
	if got := statuses(st); got != "--->" {
		t.Errorf("after rewinding forward: %s", got)
	}
}

func TestInitRefusesRunning(t *testing.T) {
	ctx := context.Background()
	r, loc := testRunner(t)
	must := mustState(t)
	must(r.Init(ctx, loc, "fix", "first", InitOptions{}))
	must(r.Complete(ctx, loc, "DIAGNOSIS_001_CAPTURE_CLASSIFY", CompleteOptions{}))
	_, err := r.Init(ctx, loc, "fix", "second", InitOptions{})
	if !errors.Is(err, ErrWorkflowRunning) || !strings.Contains(err.Error(), "DIAGNOSIS_002_REFERENCE_CHECK") {
		t.Fatalf("init over a running workflow: %v", err)
	}
	st := must(r.Init(ctx, loc, "fix", "second", InitOptions{Force: true}))
	if st.Task() != "second" || statuses(st) != ">..." {
		t.Errorf("forced init: %s %s", st.Task(), statuses(st))
	}
}

func TestNothingHalfInitialised(t *testing.T) {
	ctx := context.Background()
	r, loc := testRunner(t, abs(t, invalidRoot), abs(t, exampleRoot))
	for _, name := range []string{"cycle-a", "broken-fix", "orphan", "code", "missing"} {
		if _, err := r.Init(ctx, loc, name, "t", InitOptions{}); err == nil {
			t.Errorf("init %s succeeded", name)
		}
		if _, err := os.Stat(loc.Path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("init %s left %s: %v", name, loc.Path, err)
		}
	}
	// A failed init leaves a running workflow alone.
	mustState(t)(r.Init(ctx, loc, "fix", "keep", InitOptions{}))
	before, _ := os.ReadFile(loc.Path)
	if _, err := r.Init(ctx, loc, "cycle-a", "t", InitOptions{Force: true}); err == nil {
		t.Fatal("init cycle-a succeeded")
	}
	after, _ := os.ReadFile(loc.Path)
	if !bytes.Equal(before, after) {
		t.Error("a failed init changed the state")
	}
}

func TestAbortAndLoad(t *testing.T) {
	ctx := context.Background()
	r, loc := testRunner(t)
	if _, err := r.Load(ctx, loc); !errors.Is(err, ErrNoWorkflow) {
		t.Fatalf("load without state: %v", err)
	}
	if _, err := r.Abort(ctx, loc); !errors.Is(err, ErrNoWorkflow) {
		t.Fatalf("abort without state: %v", err)
	}
	mustState(t)(r.Init(ctx, loc, "fix", "t", InitOptions{}))
	st, err := r.Abort(ctx, loc)
	if err != nil || st.Control.Workflow != "fix" {
		t.Fatalf("abort: %v", err)
	}
	if _, err := os.Stat(loc.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("abort left the state: %v", err)
	}
}

func TestInvalidStateFile(t *testing.T) {
	ctx := context.Background()
	r, loc := testRunner(t)
	for _, content := range []string{"{", `{"control":{}}`, `{"control":{"workflow":"x","order":["A"],"steps":{"B":{}}}}`,
		`{"control":{"workflow":"x","order":["A"],"steps":{"A":{}},"status":"running","current_step":"Z"}}`} {
		if err := os.MkdirAll(filepath.Dir(loc.Path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(loc.Path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Complete(ctx, loc, "A", CompleteOptions{}); !errors.Is(err, ErrInvalidState) || !strings.Contains(err.Error(), loc.Path) {
			t.Errorf("%s: %v", content, err)
		}
	}
	// abort cleans up a state that cannot be read.
	if _, err := r.Abort(ctx, loc); err != nil {
		t.Errorf("abort of an invalid state: %v", err)
	}
}

// TestConcurrentComplete runs two processes' worth of runners completing
// the same step at once: the lock lets exactly one through.
func TestConcurrentComplete(t *testing.T) {
	ctx := context.Background()
	r, loc := testRunner(t)
	mustState(t)(r.Init(ctx, loc, "fix", "t", InitOptions{}))
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := New(Options{SkillDirs: r.opts.SkillDirs})
			_, errs[i] = r.Complete(ctx, loc, "DIAGNOSIS_001_CAPTURE_CLASSIFY", CompleteOptions{})
		}(i)
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrStepDone):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d completions succeeded, want 1", ok)
	}
	st, err := ReadState(loc.Path)
	if err != nil || statuses(st) != "x>.." {
		t.Errorf("final state: %v %s", err, statuses(st))
	}
}

func TestConcurrentUpdatesKeepFileValid(t *testing.T) {
	ctx := context.Background()
	r, loc := testRunner(t)
	mustState(t)(r.Init(ctx, loc, "fix", "t", InitOptions{}))
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				if _, err := r.Interrupt(ctx, loc, fmt.Sprintf("g%d-%d", i, j), InterruptedByAgent); err != nil {
					t.Error(err)
				}
				if _, err := ReadState(loc.Path); err != nil {
					t.Error(err)
				}
			}
		}(i)
	}
	wg.Wait()
	st, err := ReadState(loc.Path)
	if err != nil || !st.Control.Interrupted {
		t.Fatalf("final: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(loc.Path), ".*.tmp"))
	if len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

func TestLockTimeout(t *testing.T) {
	ctx := context.Background()
	r, loc := testRunner(t)
	mustState(t)(r.Init(ctx, loc, "fix", "t", InitOptions{}))
	unlock, err := r.lockState(ctx, loc.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	other := New(Options{LockTimeout: time.Millisecond})
	if _, err := other.Resume(ctx, loc); !errors.Is(err, ErrLocked) {
		t.Errorf("resume under a held lock: %v", err)
	}
}

func TestViewRender(t *testing.T) {
	ctx := context.Background()
	r, loc := testRunner(t)
	must := mustState(t)
	st := must(r.Init(ctx, loc, "fix", "Fix the login bug", InitOptions{}))
	v, err := r.View(st, loc)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "render-first.txt", stable([]byte(v.Render(HeadingInit)), loc))
	must(r.Complete(ctx, loc, "DIAGNOSIS_001_CAPTURE_CLASSIFY", CompleteOptions{}))
	must(r.Complete(ctx, loc, "DIAGNOSIS_002_REFERENCE_CHECK", CompleteOptions{}))
	st = must(r.Interrupt(ctx, loc, "user prompt: why?", InterruptedByUser))
	if v, err = r.View(st, loc); err != nil {
		t.Fatal(err)
	}
	golden(t, "render-gate-interrupted.txt", stable([]byte(v.Render(HeadingCurrent)), loc))
	st = must(r.Complete(ctx, loc, "DIAGNOSIS_007_EXPLAIN_CONFIRM", CompleteOptions{Confirmed: true}))
	if v, err = r.View(st, loc); err != nil {
		t.Fatal(err)
	}
	golden(t, "render-skill-step.txt", stable([]byte(v.Render(HeadingNext)), loc))
	if strings.Contains(v.Step.Text, "metadata:") || !strings.HasPrefix(v.Step.Text, "# Code") {
		t.Errorf("a skill step shows its body only: %q", v.Step.Text)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"DIAGNOSIS_001":   "DIAGNOSIS_001",
		"<task>":          `"<task>"`,
		"Fix the bug":     `"Fix the bug"`,
		`it's $HOME`:      `'it'\''s $HOME'`,
		"/a b/state.json": `"/a b/state.json"`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	r := New(Options{SkillDirs: []string{abs(t, invalidRoot), abs(t, exampleRoot)}})
	res, err := r.Validate(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range res {
		switch {
		case v.Err() != nil:
			got[v.Skill] = "error"
		case v.ASF:
			got[v.Skill] = fmt.Sprint(v.Steps)
		default:
			got[v.Skill] = "plain"
		}
	}
	want := map[string]string{"broken-diagnosis": "error", "broken-fix": "error", "cycle-a": "error", "cycle-b": "error",
		"orphan": "error", "code": "plain", "diagnosis": "3", "fix": "4"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("validate:\n got %v\nwant %v", got, want)
	}
}

// TestReferenceWrittenState runs skillpm's commands on a state file as the
// reference runtime writes it (no skillpm fields, no snapshot).
func TestReferenceWrittenState(t *testing.T) {
	ctx := context.Background()
	root := abs(t, exampleRoot)
	dir := t.TempDir()
	ref := `{
  "control": {
    "runtime": "asf",
    "runtime_version": "0.1",
    "workflow_id": "3b0c4f7e-2a55-4d0e-9a8e-0f6f3c1d2b11",
    "workflow": "fix",
    "status": "running",
    "current_step": "DIAGNOSIS_001_CAPTURE_CLASSIFY",
    "order": ["DIAGNOSIS_001_CAPTURE_CLASSIFY", "DIAGNOSIS_002_REFERENCE_CHECK", "DIAGNOSIS_007_EXPLAIN_CONFIRM"],
    "interrupted": false,
    "interrupt_reason": "",
    "steps": {
      "DIAGNOSIS_001_CAPTURE_CLASSIFY": {"status": "running", "mode": "automatic", "skill": "diagnosis", "file": "diagnosis/001-capture-classify.md"},
      "DIAGNOSIS_002_REFERENCE_CHECK": {"status": "pending", "mode": "automatic", "skill": "diagnosis", "file": "diagnosis/002-reference-check.md"},
      "DIAGNOSIS_007_EXPLAIN_CONFIRM": {"status": "pending", "mode": "user_confirmation", "skill": "diagnosis", "file": "diagnosis/007-explain-confirm.md"}
    },
    "created_at": "2026-01-02T03:04:05.123456+00:00",
    "updated_at": "2026-01-02T03:04:05.123456+00:00"
  },
  "runtime": {"skills_root": "` + root + `", "workspace": "/home/dev/shop", "state_path": "/home/dev/shop/.workflow/state.json"},
  "data": {"task_description": "Fix the login bug", "notes": {"n": 12345678901234567890}}
}
`
	loc := Location{Path: filepath.Join(dir, "state.json")}
	if err := os.WriteFile(loc.Path, []byte(ref), 0o644); err != nil {
		t.Fatal(err)
	}
	r := New(Options{})
	st, err := r.Load(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	v, err := r.View(st, loc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v.Step.Text, "# Capture and classify") || strings.Join(v.Step.CallPath, " > ") != "fix > diagnosis > 001-capture-classify.md" {
		t.Errorf("view of a reference state: %+v", v.Step)
	}
	st = mustState(t)(r.Complete(ctx, loc, "DIAGNOSIS_001_CAPTURE_CLASSIFY", CompleteOptions{}))
	if st.Control.CurrentStep != "DIAGNOSIS_002_REFERENCE_CHECK" || st.ActiveSkill != "fix" || st.Task() != "Fix the login bug" {
		t.Errorf("after complete: %+v", st.Control)
	}
	data, _ := os.ReadFile(loc.Path)
	if !bytes.Contains(data, []byte(`"notes": {`)) || !bytes.Contains(data, []byte("12345678901234567890")) {
		t.Errorf("data the runner does not know was lost:\n%s", data)
	}
}
