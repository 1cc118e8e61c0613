package asf

import (
	"strings"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// Sentinel errors. Callers test them with errors.Is; the messages that wrap
// them say which skill, step or file is concerned.
var (
	// ErrSymlink reports a state file, lock, state directory or step
	// reached through a symbolic link: the runner follows none, so a link
	// planted in a skill or a worktree cannot make it read or write
	// elsewhere.
	ErrSymlink = errdef.New(errdef.Validation, "symbolic link refused")

	// ErrSkillNotFound means no search root holds <root>/<name>/SKILL.md.
	ErrSkillNotFound = errdef.New(errdef.NotFound, "skill not found")
	// ErrInvalidSkillName means a skill name is empty or contains a path.
	ErrInvalidSkillName = errdef.New(errdef.Usage, "invalid skill name")
	// ErrNotWorkflow means the skill declares no execution.calls.
	ErrNotWorkflow = errdef.New(errdef.Validation, "not an ASF workflow")
	// ErrStepFileNotFound means a step call names a file the skill lacks.
	ErrStepFileNotFound = errdef.New(errdef.Validation, "step file not found")
	// ErrCycle means a skill calls itself, directly or through others.
	ErrCycle = errdef.New(errdef.Validation, "call cycle")
	// ErrTooDeep means skill calls nest deeper than Options.MaxDepth.
	ErrTooDeep = errdef.New(errdef.Validation, "skill calls nested too deeply")
	// ErrInvalidSkill means a SKILL.md in the workflow does not load.
	ErrInvalidSkill = errdef.New(errdef.Validation, "invalid skill")

	// ErrNoWorkflow means the state location holds no workflow.
	ErrNoWorkflow = errdef.New(errdef.NotFound, "no ASF workflow")
	// ErrWorkflowRunning means init found an unfinished workflow.
	ErrWorkflowRunning = errdef.New(errdef.Conflict, "a workflow is already running")
	// ErrWorkflowDone means the workflow has completed all its steps.
	ErrWorkflowDone = errdef.New(errdef.Conflict, "workflow already completed")
	// ErrUnknownStep means a step key is not in the workflow.
	ErrUnknownStep = errdef.New(errdef.NotFound, "step not found")
	// ErrNotCurrentStep means complete named a step other than the current one.
	ErrNotCurrentStep = errdef.New(errdef.Conflict, "not the current step")
	// ErrStepDone means complete named a step that is already completed.
	ErrStepDone = errdef.New(errdef.Conflict, "step already completed")
	// ErrNeedsConfirmation means a user_confirmation step was completed
	// without the user's confirmation.
	ErrNeedsConfirmation = errdef.New(errdef.Conflict, "step needs the user's confirmation")
	// ErrInvalidState means the state file does not hold a workflow state.
	ErrInvalidState = errdef.New(errdef.Validation, "invalid ASF state file")
	// ErrLocked means another process held the state lock too long.
	ErrLocked = errdef.New(errdef.Conflict, "ASF state is locked")
	// ErrInvalidSession means a session id could escape the state root.
	ErrInvalidSession = errdef.New(errdef.Usage, "invalid session id")
	// ErrUnknownHost means a host name is not in the hosts table.
	ErrUnknownHost = errdef.New(errdef.Usage, "unknown host")

	// ErrNoStateRoot means a host's state root cannot be resolved (it
	// lies under a home directory the process does not have); the caller
	// must say where the state is.
	ErrNoStateRoot = errdef.New(errdef.Usage, "no state root")
	// ErrUnknownScope means a settings scope is neither user nor project.
	ErrUnknownScope = errdef.New(errdef.Usage, "unknown scope")
	// ErrNoSettingsPath means the user settings file cannot be located;
	// the caller must name it or use the project scope.
	ErrNoSettingsPath = errdef.New(errdef.Usage, "no user settings file")

	// ErrHooksUnsupported means a host has no hook protocol the runner
	// can answer; the message says why.
	ErrHooksUnsupported = errdef.New(errdef.Usage, "host has no runner hooks")
	// ErrHookPayload means a hook payload is not the host's JSON.
	ErrHookPayload = errdef.New(errdef.Usage, "invalid hook payload")
	// ErrSettings means a host settings file cannot be merged safely.
	ErrSettings = errdef.New(errdef.Validation, "invalid host settings file")
)

// markedError adds a sentinel to err without changing its message or its
// class, so that a front end can key its hint on the sentinel.
type markedError struct{ err, mark error }

func (e *markedError) Error() string        { return e.err.Error() }
func (e *markedError) Unwrap() error        { return e.err }
func (e *markedError) Is(target error) bool { return target == e.mark }

// PlanError is a failure while expanding execution.calls. Path is the call
// path to the failing call, root skill first.
type PlanError struct {
	Path []string
	Err  error
}

// Error renders "fix > diagnosis > 009-missing.md: step file not found: …".
func (e *PlanError) Error() string {
	return strings.Join(e.Path, " > ") + ": " + e.Err.Error()
}

// Unwrap returns the cause, one of the sentinel errors or a
// *skill.ValidationError.
func (e *PlanError) Unwrap() error { return e.Err }

// Class is errdef.Validation: a workflow that does not expand is a skill
// that breaks a rule, whatever the cause below it.
func (e *PlanError) Class() errdef.Class { return errdef.Validation }
