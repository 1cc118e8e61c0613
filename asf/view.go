package asf

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
)

// Headings the CLI shows above a step, as the reference words them.
const (
	HeadingInit    = "Follow the instructions below exactly."
	HeadingNext    = "Next step exists. Follow the instructions below exactly."
	HeadingRewind  = "Workflow rewound. Follow the instructions below exactly."
	HeadingResume  = "Resuming workflow. Follow the instructions below exactly."
	HeadingCurrent = "Current step. Follow the instructions below exactly."
)

// CompletedMessage is what the reference prints when the last step is done.
const CompletedMessage = "ALL STEPS COMPLETED - workflow done."

// View is what an agent needs to see of a workflow: where it stands, the
// current step's instructions and the command that completes the step.
type View struct {
	Workflow        string `json:"workflow"`
	Task            string `json:"task"`
	Status          string `json:"status"`
	Interrupted     bool   `json:"interrupted"`
	InterruptReason string `json:"interruptReason,omitempty"`
	Position        int    `json:"position"`
	Total           int    `json:"total"`
	// Step is the current step, nil once the workflow has completed.
	Step *StepView `json:"step,omitempty"`
	// Command completes the current step.
	Command string `json:"command,omitempty"`
	// ResumeCommand clears the interruption, when there is one.
	ResumeCommand string `json:"resumeCommand,omitempty"`
	StatePath     string `json:"statePath"`
	Session       string `json:"session,omitempty"`
}

// StepView is the current step with its instructions.
type StepView struct {
	Key      string   `json:"key"`
	Skill    string   `json:"skill"`
	File     string   `json:"file"`
	Mode     string   `json:"mode"`
	Kind     string   `json:"kind"`
	CallPath []string `json:"callPath"`
	Path     string   `json:"path"`
	// Text is the step file, or the called skill's SKILL.md body.
	Text string `json:"text"`
}

// maxStepBytes bounds a step file read for display.
const maxStepBytes = 1 << 20

// View reads the current step's instructions from disk (as the reference
// does, so an edited step file shows its new text).
func (r *Runner) View(st *State, loc Location) (*View, error) {
	pos, total := st.Position()
	v := &View{
		Workflow:        st.Control.Workflow,
		Task:            st.Task(),
		Status:          st.Status,
		Interrupted:     st.Control.Interrupted,
		InterruptReason: st.Control.InterruptReason,
		Position:        pos,
		Total:           total,
		StatePath:       loc.Path,
		Session:         loc.Session,
	}
	key, s, ok := st.Current()
	if !ok {
		return v, nil
	}
	text, err := stepText(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(s.CallPath, " > "), err)
	}
	v.Step = &StepView{Key: key, Skill: s.Skill, File: s.File, Mode: s.Mode, Kind: s.Kind,
		CallPath: s.CallPath, Path: s.Path, Text: text}
	if s.Mode == ModeUserConfirmation && !s.Confirmed {
		v.Command = r.command(loc, "complete", key, "--confirmed")
	} else {
		v.Command = r.command(loc, "complete", key)
	}
	if v.Interrupted {
		v.ResumeCommand = r.command(loc, "resume")
	}
	return v, nil
}

func stepText(s StepState) (string, error) {
	p := s.Path
	if p == "" {
		return "", fmt.Errorf("%w: the state has no path for %s", ErrStepFileNotFound, s.File)
	}
	if err := notSymlink(p); err != nil {
		return "", err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrStepFileNotFound, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStepBytes))
	if err != nil {
		return "", err
	}
	if s.Kind == KindSkill {
		if sk, _ := skill.Parse(p, data, skill.Options{Mode: skill.Lenient}); sk != nil {
			return strings.TrimLeft(sk.Body, "\n"), nil
		}
	}
	return string(data), nil
}

const rule = "━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━"

// Render is the text an agent reads: the reference runtime's layout (a
// "[position/total] KEY" banner, the step file, the completion command)
// plus the call path, the task and the state of the gate.
func (v *View) Render(heading string) string {
	var b strings.Builder
	if v.Step == nil {
		b.WriteString(CompletedMessage + "\n")
		return b.String()
	}
	s := v.Step
	fmt.Fprintf(&b, "\n[%d/%d] %s\n%s\n%s\n%s\n", v.Position, v.Total, s.Key, rule, heading, rule)
	fmt.Fprintf(&b, "Workflow:  %s\n", v.Workflow)
	if v.Task != "" {
		fmt.Fprintf(&b, "Task:      %s\n", v.Task)
	}
	fmt.Fprintf(&b, "Call path: %s\n", strings.Join(s.CallPath, " > "))
	mode := s.Mode
	if s.Mode == ModeUserConfirmation {
		mode = "user confirmation"
	}
	fmt.Fprintf(&b, "Step:      %s (%s)\n", s.Key, mode)
	if v.Interrupted {
		fmt.Fprintf(&b, "Interrupted: %s\nTo go on:  %s\n", v.InterruptReason, v.ResumeCommand)
	}
	b.WriteString("\n")
	b.WriteString(s.Text)
	if !strings.HasSuffix(s.Text, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("\n━━━ ASF Runtime ━━━\n\n")
	if s.Mode == ModeUserConfirmation {
		b.WriteString("This step asks for the user's confirmation. Ask the user, then stop and wait\nfor the answer. Only once the user has confirmed, run:\n\n")
		fmt.Fprintf(&b, "```bash\n%s\n```\n\n", v.Command)
		b.WriteString("The runtime will print the next step.\n")
		return b.String()
	}
	b.WriteString("When this step is complete, run:\n\n")
	fmt.Fprintf(&b, "```bash\n%s\n```\n\n", v.Command)
	b.WriteString("The runtime will print the next step. Follow it immediately unless the step asks for user confirmation.\n")
	return b.String()
}

// command is a skillpm asf command line an agent can paste: the
// subcommand, its arguments, then the flags that select the same state.
func (r *Runner) command(loc Location, args ...string) string {
	parts := []string{r.opts.Command, "asf"}
	for _, a := range append(args, loc.Args...) {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// Command is like command but for any skillpm subcommand (run), with the
// state flags of loc.
func (r *Runner) Command(loc Location, args ...string) string {
	parts := []string{r.opts.Command}
	for _, a := range append(args, loc.Args...) {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote quotes s for a POSIX shell: bare when safe, in double quotes
// when that needs no escapes ("<task>", as the reference prints it), else in
// single quotes.
func shellQuote(s string) string {
	switch {
	case shellSafe.MatchString(s):
		return s
	case !strings.ContainsAny(s, "\"$`\\!\n"):
		return `"` + s + `"`
	default:
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
}
