package asf

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultLockTimeout is how long a command waits for another process's
// state lock before failing.
const DefaultLockTimeout = 10 * time.Second

// DefaultMaxStopBlocks is how many times in a row the Stop hook blocks a
// stop that is itself a continuation of a block (stop_hook_active) before
// it lets the agent stop and marks the workflow interrupted.
const DefaultMaxStopBlocks = 5

// DefaultCommand is how the runner tells agents to invoke skillpm.
const DefaultCommand = "skillpm"

// Options configure a Runner. The zero value of each field means its
// default.
type Options struct {
	// SkillDirs is the search path for skills, first match wins; build it
	// with SearchPath.
	SkillDirs []string
	// MaxDepth bounds the nesting of skill calls; 0 is DefaultMaxDepth.
	MaxDepth int
	// MaxStopBlocks is the Stop hook's loop guard; 0 is
	// DefaultMaxStopBlocks.
	MaxStopBlocks int
	// LockTimeout bounds the wait for the state lock; 0 is
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// Command is the skillpm executable named in the commands the runner
	// prints for agents; "" is DefaultCommand.
	Command string
	// Now is the clock for created_at and updated_at; nil is time.Now.
	// State records real time: it is a log, not a reproducible artifact.
	Now func() time.Time
	// NewID makes control.workflow_id; nil makes a random UUID.
	NewID func() string
}

func (o Options) maxDepth() int {
	if o.MaxDepth <= 0 {
		return DefaultMaxDepth
	}
	return o.MaxDepth
}

func (o Options) maxStopBlocks() int {
	if o.MaxStopBlocks <= 0 {
		return DefaultMaxStopBlocks
	}
	return o.MaxStopBlocks
}

func (o Options) lockTimeout() time.Duration {
	if o.LockTimeout <= 0 {
		return DefaultLockTimeout
	}
	return o.LockTimeout
}

// Runner plans and runs ASF workflows. Its methods are safe to call from
// several processes on the same state: changes are locked.
type Runner struct {
	opts Options
}

// New returns a Runner.
func New(opts Options) *Runner {
	if opts.Command == "" {
		opts.Command = DefaultCommand
	}
	return &Runner{opts: opts}
}

// SkillDirs returns the search path.
func (r *Runner) SkillDirs() []string { return r.opts.SkillDirs }

func (r *Runner) timestamp() string {
	now := time.Now
	if r.opts.Now != nil {
		now = r.opts.Now
	}
	// The reference writes Python's isoformat() of a UTC time.
	return now().UTC().Format("2006-01-02T15:04:05.000000+00:00")
}

func (r *Runner) newID() (string, error) {
	if r.opts.NewID != nil {
		return r.opts.NewID(), nil
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// Inspection is the reference runtime's inspect answer; Steps is present
// only when the skill is executable.
type Inspection struct {
	Skill          string `json:"skill"`
	SkillPath      string `json:"skillPath"`
	Exists         bool   `json:"exists"`
	ASF            bool   `json:"asf"`
	Executable     bool   `json:"executable"`
	Reason         string `json:"reason"`
	RuntimeCommand string `json:"runtimeCommand"`
	Steps          []Step `json:"steps,omitempty"`
}

// Reasons an Inspection gives, as the reference words them.
const (
	ReasonNotFound   = "skill not found"
	ReasonNoCalls    = "SKILL.md does not declare execution.calls"
	reasonResolvedFm = "resolved %d step(s)"
)

// Inspect reports whether name is an executable ASF workflow. A missing or
// call-less skill is an answer, not an error; a workflow that does not
// expand (cycle, missing skill or step file) is both: the Inspection says
// why and the *PlanError is returned.
func (r *Runner) Inspect(ctx context.Context, name string, loc Location) (*Inspection, error) {
	norm, err := NormalizeSkillName(name)
	if err != nil {
		return nil, err
	}
	in := &Inspection{Skill: norm, RuntimeCommand: r.command(loc, "init", norm, "<task>")}
	f := &finder{dirs: r.opts.SkillDirs}
	dir, _, found := f.find(norm)
	switch {
	case found:
		in.SkillPath = filepath.Join(dir, "SKILL.md")
	case len(r.opts.SkillDirs) > 0:
		in.SkillPath = filepath.Join(r.opts.SkillDirs[0], norm, "SKILL.md")
	}
	if !found {
		in.Reason = ReasonNotFound + " (" + searched(r.opts.SkillDirs) + ")"
		return in, nil
	}
	in.Exists = true
	p, err := r.Plan(ctx, norm)
	switch {
	case errors.Is(err, ErrNotWorkflow):
		in.Reason = ReasonNoCalls
		return in, nil
	case err != nil:
		if l, lerr := f.load(ctx, norm); lerr == nil {
			in.ASF = len(l.calls()) > 0
		}
		in.Reason = err.Error()
		return in, err
	}
	in.ASF, in.Executable = true, true
	in.Reason = fmt.Sprintf(reasonResolvedFm, len(p.Steps))
	in.Steps = p.Steps
	return in, nil
}

// InitOptions modify Init.
type InitOptions struct {
	// Force replaces a workflow that is still running at the location.
	Force bool
}

// Init plans the workflow and writes a fresh state with its first step
// running. Nothing is written unless the whole plan resolves.
func (r *Runner) Init(ctx context.Context, loc Location, name, task string, o InitOptions) (*State, error) {
	p, err := r.Plan(ctx, name)
	if err != nil {
		return nil, err
	}
	id, err := r.newID()
	if err != nil {
		return nil, fmt.Errorf("making a workflow id: %w", err)
	}
	unlock, err := r.lockState(ctx, loc.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if old, err := ReadState(loc.Path); err == nil && old.Control.Status == StatusRunning && !o.Force {
		key, _, _ := old.Current()
		return nil, fmt.Errorf("%w in %s: %s at step %s; finish it or run %s",
			ErrWorkflowRunning, loc.Path, old.Control.Workflow, key, r.command(loc, "abort"))
	}
	now := r.timestamp()
	taskJSON, _ := json.Marshal(task)
	st := &State{
		Control: Control{
			Runtime:        RuntimeName,
			RuntimeVersion: RuntimeVersion,
			WorkflowID:     id,
			Workflow:       p.Skill,
			Status:         StatusRunning,
			CurrentStep:    p.Steps[0].Key,
			Steps:          map[string]StepState{},
			CreatedAt:      now,
			UpdatedAt:      now,
		},
		Runtime: RuntimeInfo{
			SkillsRoot: p.Root,
			Workspace:  loc.Workspace,
			StatePath:  loc.Path,
			Runner:     "skillpm",
			Session:    loc.Session,
			SkillsDirs: r.opts.SkillDirs,
		},
		Data: map[string]json.RawMessage{DataTaskDescription: taskJSON},
	}
	for i, s := range p.Steps {
		status := StatusPending
		if i == 0 {
			status = StatusRunning
		}
		st.Control.Order = append(st.Control.Order, s.Key)
		st.Control.Steps[s.Key] = StepState{Status: status, Mode: s.Mode, Skill: s.Skill, File: s.File,
			Kind: s.Kind, CallPath: s.CallPath, Path: s.Path}
	}
	st.sync()
	if err := r.writeState(loc.Path, st); err != nil {
		return nil, err
	}
	return st, nil
}

// Load reads the state at loc without changing it (current, status).
func (r *Runner) Load(ctx context.Context, loc Location) (*State, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ReadState(loc.Path)
}

// CompleteOptions modify Complete.
type CompleteOptions struct {
	// Force completes a later step, marking the steps before it skipped.
	Force bool
	// Confirmed records that the user confirmed every user_confirmation
	// step being completed.
	Confirmed bool
}

// lookupKey finds a step key, forgiving case.
func lookupKey(st *State, key string) (string, error) {
	if _, ok := st.Control.Steps[key]; ok {
		return key, nil
	}
	if up := strings.ToUpper(strings.TrimSpace(key)); up != key {
		if _, ok := st.Control.Steps[up]; ok {
			return up, nil
		}
	}
	return "", fmt.Errorf("%w: %s (steps: %s)", ErrUnknownStep, key, strings.Join(st.Control.Order, ", "))
}

func clearInterrupt(c *Control) {
	c.Interrupted, c.InterruptReason, c.InterruptedBy, c.StopBlocks = false, "", "", 0
}

// Complete marks the current step completed and starts the next one. Only
// the current step can be completed unless o.Force; a user_confirmation
// step needs o.Confirmed or an earlier confirmation (Resume after the user
// answered).
func (r *Runner) Complete(ctx context.Context, loc Location, key string, o CompleteOptions) (*State, error) {
	return r.update(ctx, loc, func(st *State) error {
		c := &st.Control
		if c.Status == StatusCompleted {
			return fmt.Errorf("%w: %s", ErrWorkflowDone, c.Workflow)
		}
		k, err := lookupKey(st, key)
		if err != nil {
			return err
		}
		if c.Steps[k].Status == StatusCompleted {
			return fmt.Errorf("%w: %s; to do it again run %s", ErrStepDone, k, r.command(loc, "rewind", k))
		}
		if k != c.CurrentStep && !o.Force {
			return fmt.Errorf("%w: %s (the current step is %s); finish %s first",
				ErrNotCurrentStep, k, c.CurrentStep, c.CurrentStep)
		}
		last := st.index(k)
		for _, sk := range c.Order[:last+1] {
			s := c.Steps[sk]
			if s.Status != StatusCompleted && s.Mode == ModeUserConfirmation && !s.Confirmed && !o.Confirmed {
				return fmt.Errorf("%w: %s asks the user to confirm; ask them, and once they confirm run %s",
					ErrNeedsConfirmation, sk, r.command(loc, "complete", k, "--confirmed"))
			}
		}
		for _, sk := range c.Order[:last+1] {
			s := c.Steps[sk]
			if s.Status != StatusCompleted {
				s.Skipped = sk != k
				if s.Mode == ModeUserConfirmation && o.Confirmed {
					s.Confirmed = true
				}
				s.Status = StatusCompleted
			}
			c.Steps[sk] = s
		}
		r.advance(st)
		clearInterrupt(c)
		return nil
	})
}

// advance makes the first step that is not completed the running one, or
// completes the workflow.
func (r *Runner) advance(st *State) {
	c := &st.Control
	for _, k := range c.Order {
		if s := c.Steps[k]; s.Status != StatusCompleted {
			s.Status = StatusRunning
			c.Steps[k] = s
			c.CurrentStep, c.Status = k, StatusRunning
			return
		}
	}
	c.CurrentStep, c.Status = "", StatusCompleted
}

// Rewind makes key the running step again: the steps before it are
// completed, it and the steps after are redone (their confirmations
// cleared). It reopens a completed workflow.
func (r *Runner) Rewind(ctx context.Context, loc Location, key string) (*State, error) {
	return r.update(ctx, loc, func(st *State) error {
		k, err := lookupKey(st, key)
		if err != nil {
			return err
		}
		c := &st.Control
		t := st.index(k)
		for i, sk := range c.Order {
			s := c.Steps[sk]
			switch {
			case i < t:
				if s.Status != StatusCompleted {
					s.Skipped = true
				}
				s.Status = StatusCompleted
			case i == t:
				s.Status, s.Confirmed, s.Skipped = StatusRunning, false, false
			default:
				s.Status, s.Confirmed, s.Skipped = StatusPending, false, false
			}
			c.Steps[sk] = s
		}
		c.Status, c.CurrentStep = StatusRunning, k
		clearInterrupt(c)
		return nil
	})
}

// Resume clears an interruption. When the user interrupted at a
// user_confirmation step, their message was the answer the step asked for,
// so the step counts as confirmed.
func (r *Runner) Resume(ctx context.Context, loc Location) (*State, error) {
	return r.update(ctx, loc, func(st *State) error {
		c := &st.Control
		if c.Status == StatusCompleted {
			return fmt.Errorf("%w: %s; nothing to resume", ErrWorkflowDone, c.Workflow)
		}
		if key, s, ok := st.Current(); ok && c.Interrupted && c.InterruptedBy == InterruptedByUser && s.Mode == ModeUserConfirmation {
			s.Confirmed = true
			c.Steps[key] = s
		}
		clearInterrupt(c)
		return nil
	})
}

// DefaultInterruptReason is the reference's reason when none is given.
const DefaultInterruptReason = "needs user input"

// Interrupt marks the workflow interrupted, so the Stop hook lets the agent
// stop; by is one of the InterruptedBy constants.
func (r *Runner) Interrupt(ctx context.Context, loc Location, reason, by string) (*State, error) {
	if strings.TrimSpace(reason) == "" {
		reason = DefaultInterruptReason
	}
	return r.update(ctx, loc, func(st *State) error {
		return interrupt(st, reason, by)
	})
}

func interrupt(st *State, reason, by string) error {
	c := &st.Control
	if c.Status == StatusCompleted {
		return fmt.Errorf("%w: %s; nothing to interrupt", ErrWorkflowDone, c.Workflow)
	}
	c.Interrupted, c.InterruptReason, c.InterruptedBy = true, reason, by
	c.StopBlocks = 0
	return nil
}

// Abort ends the workflow at loc by removing its state file, and returns
// the state it had.
func (r *Runner) Abort(ctx context.Context, loc Location) (*State, error) {
	unlock, err := r.lockState(ctx, loc.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := ReadState(loc.Path)
	if err != nil && !errors.Is(err, ErrInvalidState) {
		return nil, err
	}
	if err := os.Remove(loc.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("removing ASF state: %w", err)
	}
	return st, nil
}

// Validation is the outcome of validating one skill.
type Validation struct {
	Skill string `json:"skill"`
	// ASF is true when the skill declares execution.calls.
	ASF   bool   `json:"asf"`
	Steps int    `json:"steps"`
	Error string `json:"error,omitempty"`
	err   error
}

// Err is the plan error, nil when the skill is valid.
func (v Validation) Err() error { return v.err }

// Validate plans each named skill, or every skill in the search path when
// none is named (the first copy of each name, as lookups see them). A skill
// without calls is valid when it loads.
func (r *Runner) Validate(ctx context.Context, names []string) ([]Validation, error) {
	if len(names) == 0 {
		var err error
		if names, err = r.allSkills(); err != nil {
			return nil, err
		}
	}
	var out []Validation
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := Validation{Skill: n}
		p, err := r.Plan(ctx, n)
		switch {
		case err == nil:
			v.ASF, v.Steps = true, len(p.Steps)
		case errors.Is(err, ErrNotWorkflow):
		default:
			v.err, v.Error = err, err.Error()
			var pe *PlanError
			v.ASF = errors.As(err, &pe)
		}
		out = append(out, v)
	}
	return out, nil
}

// allSkills lists the skill names in the search path, sorted per root.
func (r *Runner) allSkills() ([]string, error) {
	seen := map[string]bool{}
	var names []string
	for _, root := range r.opts.SkillDirs {
		entries, err := os.ReadDir(root)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing skills in %s: %w", root, err)
		}
		for _, e := range entries {
			if seen[e.Name()] {
				continue
			}
			if fi, err := os.Stat(filepath.Join(root, e.Name(), "SKILL.md")); err == nil && fi.Mode().IsRegular() {
				seen[e.Name()] = true
				names = append(names, e.Name())
			}
		}
	}
	return names, nil
}
