package asf

import (
	"github.com/skillpm/skillpm/internal/atomicfile"
	"io"
	"maps"
	"slices"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// Values of the state file.
const (
	// RuntimeName is control.runtime, as the reference writes it.
	RuntimeName = "asf"
	// RuntimeVersion is control.runtime_version: the ASF version whose
	// state schema is written.
	RuntimeVersion = "0.1"

	// StatusPending, StatusRunning and StatusCompleted are the values of a
	// step's status; control.status is running or completed.
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	// StatusInterrupted is the snapshot status of a running workflow that
	// was interrupted (control.interrupted).
	StatusInterrupted = "interrupted"

	// StopBlockUntilStepComplete is the snapshot stopPolicy while an
	// automatic step runs: the Stop hook blocks.
	StopBlockUntilStepComplete = "block_until_step_complete"
	// StopAllowUserConfirmation is the stopPolicy at a user_confirmation
	// step: the agent may stop to ask the user.
	StopAllowUserConfirmation = "allow_user_confirmation"
	// StopAllow is the stopPolicy of an interrupted or completed workflow.
	StopAllow = "allow"

	// InterruptedByUser, InterruptedByAgent and InterruptedByStopHook say
	// who interrupted the workflow (control.interrupted_by).
	InterruptedByUser     = "user"
	InterruptedByAgent    = "agent"
	InterruptedByStopHook = "stop_hook"
)

// State is the state file. Control, Runtime and Data are the reference
// runtime's; ActiveSkill, CurrentPath, Status and StopPolicy are the spec's
// snapshot (§10), kept in step with Control on every write.
type State struct {
	Control Control                    `json:"control"`
	Runtime RuntimeInfo                `json:"runtime"`
	Data    map[string]json.RawMessage `json:"data"`

	ActiveSkill string   `json:"activeSkill"`
	CurrentPath []string `json:"currentPath"`
	Status      string   `json:"status"`
	StopPolicy  string   `json:"stopPolicy"`
}

// Control is the reference runtime's control block. Fields after
// UpdatedAt are skillpm's and omitted when unset.
type Control struct {
	Runtime         string               `json:"runtime"`
	RuntimeVersion  string               `json:"runtime_version"`
	WorkflowID      string               `json:"workflow_id"`
	Workflow        string               `json:"workflow"`
	Status          string               `json:"status"`
	CurrentStep     string               `json:"current_step"`
	Order           []string             `json:"order"`
	Interrupted     bool                 `json:"interrupted"`
	InterruptReason string               `json:"interrupt_reason"`
	Steps           map[string]StepState `json:"steps"`
	CreatedAt       string               `json:"created_at"`
	UpdatedAt       string               `json:"updated_at"`

	// InterruptedBy is one of the InterruptedBy constants.
	InterruptedBy string `json:"interrupted_by,omitempty"`
	// StopBlocks counts Stop hook blocks in a row, the loop guard.
	StopBlocks int `json:"stop_blocks,omitempty"`
}

// MarshalJSON writes control.steps in the workflow's order, as the
// reference's insertion-ordered dict does, instead of sorted by key.
func (c Control) MarshalJSON() ([]byte, error) {
	type plain Control
	p := plain(c)
	p.Steps = nil
	head, err := encodeNoEscape(p)
	if err != nil {
		return nil, err
	}
	var steps bytes.Buffer
	steps.WriteString(`"steps":{`)
	n := 0
	write := func(k string, s StepState) error {
		if n > 0 {
			steps.WriteByte(',')
		}
		n++
		kb, err := encodeNoEscape(k)
		if err != nil {
			return err
		}
		sb, err := encodeNoEscape(s)
		if err != nil {
			return err
		}
		steps.Write(kb)
		steps.WriteByte(':')
		steps.Write(sb)
		return nil
	}
	done := map[string]bool{}
	for _, k := range c.Order {
		if s, ok := c.Steps[k]; ok && !done[k] {
			done[k] = true
			if err := write(k, s); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.Steps)) {
		if !done[k] {
			if err := write(k, c.Steps[k]); err != nil {
				return nil, err
			}
		}
	}
	steps.WriteByte('}')
	// A string value cannot hold an unescaped `"steps":null`, so this
	// replaces exactly the field.
	return bytes.Replace(head, []byte(`"steps":null`), steps.Bytes(), 1), nil
}

func encodeNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// StepState is one step in control.steps. Status, Mode, Skill and File are
// the reference's; the rest are skillpm's.
type StepState struct {
	Status string `json:"status"`
	Mode   string `json:"mode"`
	Skill  string `json:"skill"`
	File   string `json:"file"`

	Kind     string   `json:"kind,omitempty"`
	CallPath []string `json:"call_path,omitempty"`
	Path     string   `json:"path,omitempty"`
	// Confirmed records the user's confirmation of a user_confirmation step.
	Confirmed bool `json:"confirmed,omitempty"`
	// Skipped marks a step completed by jumping over it (--force, rewind
	// forward) rather than by doing it.
	Skipped bool `json:"skipped,omitempty"`
}

// RuntimeInfo is the reference runtime's runtime block plus skillpm's
// session and search path.
type RuntimeInfo struct {
	// SkillsRoot is the search root holding the root skill.
	SkillsRoot string `json:"skills_root"`
	Workspace  string `json:"workspace"`
	StatePath  string `json:"state_path"`

	Runner     string   `json:"runner,omitempty"`
	Session    string   `json:"session,omitempty"`
	SkillsDirs []string `json:"skills_roots,omitempty"`
}

// DataTaskDescription is the data key of the task the workflow was started
// for.
const DataTaskDescription = "task_description"

// Task returns data.task_description.
func (st *State) Task() string {
	var s string
	_ = json.Unmarshal(st.Data[DataTaskDescription], &s)
	return s
}

// Current returns the current step's key and state; ok is false when the
// workflow has completed.
func (st *State) Current() (key string, step StepState, ok bool) {
	key = st.Control.CurrentStep
	step, ok = st.Control.Steps[key]
	return key, step, ok && st.Control.Status == StatusRunning
}

// Position is the reference runtime's "[position/total]": completed steps
// plus one, over all steps.
func (st *State) Position() (position, total int) {
	for _, s := range st.Control.Steps {
		if s.Status == StatusCompleted {
			position++
		}
	}
	return position + 1, len(st.Control.Steps)
}

func (st *State) index(key string) int {
	for i, k := range st.Control.Order {
		if k == key {
			return i
		}
	}
	return -1
}

// sync recomputes the spec snapshot from Control.
func (st *State) sync() {
	c := &st.Control
	st.ActiveSkill = c.Workflow
	st.CurrentPath = []string{}
	key, step, running := st.Current()
	switch {
	case !running:
		st.Status, st.StopPolicy = StatusCompleted, StopAllow
	case c.Interrupted:
		st.Status, st.StopPolicy = StatusInterrupted, StopAllow
	case step.Mode == ModeUserConfirmation:
		st.Status, st.StopPolicy = StatusRunning, StopAllowUserConfirmation
	default:
		st.Status, st.StopPolicy = StatusRunning, StopBlockUntilStepComplete
	}
	if running && key != "" {
		st.CurrentPath = append(st.CurrentPath, step.CallPath...)
	}
}

// check rejects a file that parses but is not a workflow state, so commands
// fail with the path instead of misbehaving.
func (st *State) check() error {
	c := &st.Control
	if c.Workflow == "" || len(c.Order) == 0 || len(c.Steps) != len(c.Order) {
		return errors.New("control.workflow, control.order or control.steps is missing")
	}
	for _, k := range c.Order {
		if _, ok := c.Steps[k]; !ok {
			return fmt.Errorf("control.order names %s, which control.steps lacks", k)
		}
	}
	if c.Status != StatusCompleted {
		if _, ok := c.Steps[c.CurrentStep]; !ok {
			return fmt.Errorf("control.current_step %q is not a step", c.CurrentStep)
		}
	}
	return nil
}

// maxStateBytes bounds a state file; real ones are a few KiB.
const maxStateBytes = 16 << 20

// ReadState reads the state file at path. A missing file is ErrNoWorkflow.
func ReadState(path string) (*State, error) {
	data, err := readNoFollow(path, maxStateBytes+1)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s: start one with skillpm asf init SKILL \"TASK\"", ErrNoWorkflow, path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading ASF state: %w", err)
	}
	if len(data) > maxStateBytes {
		return nil, fmt.Errorf("%w %s: %d bytes", ErrInvalidState, path, len(data))
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrInvalidState, path, err)
	}
	if err := st.check(); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrInvalidState, path, err)
	}
	if st.Data == nil {
		st.Data = map[string]json.RawMessage{}
	}
	st.fillReference()
	// The snapshot fields are derived from control, which the reference
	// runtime updates without touching them: status reads control.
	st.sync()
	return &st, nil
}

// fillReference completes a state written by the reference runtime, which
// records only status, mode, skill and file per step: the instructions are
// at <runtime.skills_root>/<file>, and the call path is derived from the
// workflow, the skill and the file.
func (st *State) fillReference() {
	for k, s := range st.Control.Steps {
		if s.Path == "" && s.File != "" && st.Runtime.SkillsRoot != "" {
			s.Path = filepath.Join(st.Runtime.SkillsRoot, filepath.FromSlash(s.File))
		}
		if s.Kind == "" {
			s.Kind = KindStep
		}
		if len(s.CallPath) == 0 {
			s.CallPath = []string{st.Control.Workflow}
			if s.Skill != "" && s.Skill != st.Control.Workflow {
				s.CallPath = append(s.CallPath, s.Skill)
			}
			s.CallPath = append(s.CallPath, path.Base(s.File))
		}
		st.Control.Steps[k] = s
	}
}

// marshalState renders the state as the reference does: two-space indent
// and a final newline.
func marshalState(st *State) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(st); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeFileAtomic replaces path with data atomically.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	return atomicfile.Write(path, data, mode)
}

// stateLockRetry is how often a waiting process retries the state lock.
const stateLockRetry = 10 * time.Millisecond

// lockState takes the exclusive lock <path>.lock, creating the directory.
// The lock file stays: removing it while another process waits on it would
// let two processes hold "the" lock at once.
func (r *Runner) lockState(ctx context.Context, path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating the ASF state directory: %w", err)
	}
	for _, p := range []string{filepath.Dir(path), path + ".lock", path} {
		if err := notSymlink(p); err != nil {
			return nil, err
		}
	}
	fl := flock.New(path+".lock", flock.SetPermissions(0o600), flock.SetFlag(os.O_CREATE|os.O_RDWR|oNoFollow))
	lctx, cancel := context.WithTimeout(ctx, r.opts.lockTimeout())
	defer cancel()
	ok, err := fl.TryLockContext(lctx, stateLockRetry)
	if !ok || err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil && lctx.Err() == nil {
			return nil, fmt.Errorf("%w: opening %s.lock: %v", ErrSymlink, path, err)
		}
		return nil, fmt.Errorf("%w: %s.lock is held by another process (waited %s)", ErrLocked, path, r.opts.lockTimeout())
	}
	return func() { _ = fl.Unlock() }, nil
}

func (r *Runner) writeState(path string, st *State) error {
	data, err := marshalState(st)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, data, 0o600); err != nil {
		return fmt.Errorf("writing ASF state: %w", err)
	}
	return nil
}

// update applies fn to the state at loc under the lock and writes the
// result; fn's error leaves the file untouched.
func (r *Runner) update(ctx context.Context, loc Location, fn func(*State) error) (*State, error) {
	unlock, err := r.lockState(ctx, loc.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := ReadState(loc.Path)
	if err != nil {
		return nil, err
	}
	if err := fn(st); err != nil {
		return nil, err
	}
	st.Control.UpdatedAt = r.timestamp()
	st.sync()
	if err := r.writeState(loc.Path, st); err != nil {
		return nil, err
	}
	return st, nil
}

// notSymlink refuses p when it is a symbolic link; a missing p is fine.
func notSymlink(p string) error {
	fi, err := os.Lstat(p)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s is a symbolic link; the ASF runner follows none (remove it)", ErrSymlink, p)
	}
	return nil
}

// readNoFollow reads at most max bytes of the regular file p, refusing a
// symbolic link in its last component (and its directory being one).
func readNoFollow(p string, max int64) ([]byte, error) {
	if err := notSymlink(filepath.Dir(p)); err != nil {
		return nil, err
	}
	if err := notSymlink(p); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrInvalidState, p)
	}
	return io.ReadAll(io.LimitReader(f, max))
}
