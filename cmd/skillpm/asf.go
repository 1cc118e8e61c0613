package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/asf"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/spf13/cobra"
)

// asfFlags are the flags every asf command and run share: where skills are
// found and where the workflow state lives.
type asfFlags struct {
	skillsRoots []string
	state       string
	stateRoot   string
	session     string
	host        oneHost
}

func (f *asfFlags) register(c *cobra.Command, persistent bool) {
	fs := c.Flags()
	if persistent {
		fs = c.PersistentFlags()
	}
	fs.StringArrayVar(&f.skillsRoots, "skills-root", nil, "a `DIR` of skills searched before the hosts' roots (repeatable; default $"+asf.EnvSkillsRoot+")")
	fs.StringVar(&f.state, "state", "", "the state `FILE` (default: $"+asf.EnvState+", the session's file, or .workflow/state.json in a git worktree)")
	fs.StringVar(&f.stateRoot, "state-root", "", "the `DIR` of session state files (default: the host's, e.g. ~/.claude/state/asf)")
	fs.StringVar(&f.session, "session", "", "the agent session `ID`: state in <state root>/ID.json (default $"+asf.EnvSession+")")
	bindOneHost(fs, &f.host, asf.DefaultHost, "the agent `HOST` whose state root and hook format to use")
}

// asfSetup is what a command needs: the runner, the environment and the
// state choice.
type asfSetup struct {
	runner *asf.Runner
	env    asf.Env
	so     asf.StateOptions
}

func (f *asfFlags) setup() (*asfSetup, error) {
	env, err := processEnv()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(env.Table().IDs(), f.host.name) {
		return nil, fmt.Errorf("%w %q (known: %s)", asf.ErrUnknownHost, f.host.name, strings.Join(env.Table().IDs(), ", "))
	}
	return &asfSetup{
		runner: asf.New(asf.Options{SkillDirs: asf.SearchPath(f.skillsRoots, env)}),
		env:    env,
		so:     asf.StateOptions{Path: f.state, Root: f.stateRoot, Session: f.session, Host: f.host.name},
	}, nil
}

// located is setup then location: what every command on one workflow
// starts with.
func (f *asfFlags) located() (*asfSetup, asf.Location, error) {
	s, err := f.setup()
	if err != nil {
		return nil, asf.Location{}, err
	}
	loc, err := s.location()
	return s, loc, err
}

func (s *asfSetup) location() (asf.Location, error) {
	return asf.ResolveState(s.so, s.env)
}

// silentError carries an exit code for an error already printed.
type silentError struct{ err error }

// Error is empty: the root command prints nothing for an empty message.
func (e silentError) Error() string { return "" }

// Unwrap returns the error that was printed.
func (e silentError) Unwrap() error { return e.err }

// asfRunE prints failures of the reference-compatible commands as the
// reference runtime does, "ERROR: …" on stderr, and keeps skillpm's exit
// codes. Usage errors still go through the root's "skillpm: …" path.
func asfRunE(g *globals, fn func(c *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		err := fn(c, args)
		if err == nil || isUsageError(err) {
			return err
		}
		fmt.Fprintf(g.stderr, "ERROR: %s\n", withFlagHints(err.Error(), err))
		return except("asf", silentError{err})
	}
}

func newAsfCmd(g *globals) *cobra.Command {
	f := &asfFlags{}
	c := &cobra.Command{
		Use:   "asf",
		Short: "Run ASF workflows step by step (compatible with the ASF reference runtime)",
		Long: `The asf commands run skills whose SKILL.md declares execution.calls, one
step at a time, with the ASF reference runtime's commands, step keys and
state file (plus the spec's session snapshot).

Skills are looked up as <root>/<name>/SKILL.md in --skills-root (or
$ASF_SKILLS_ROOT, a list), then in the hosts' discovery roots (skillpm
hosts): every project root (./.agents/skills, ./.claude/skills,
./.codex/skills, ./.opencode/skills, …) before every user root
(~/.agents/skills, $CLAUDE_CONFIG_DIR/skills, …), so a project's skills
shadow the user's.

State lives in --state FILE; else, with --session ID (or a hook payload's
session_id), in <state root>/ID.json, the root being the host's
(~/.claude/state/asf, $CODEX_HOME/state/asf, ~/.local/share/opencode/state/asf,
…) or --state-root; else in $ASF_STATE; else in the session $ASF_SESSION
names; else in .workflow/state.json at the top of the git worktree; else in
<state root>/workspace-<hash>.json for the directory. A session ID is 1-128
letters, digits, '.', '_' or '-', starting with a letter or digit. Changes
are locked (<state>.lock) and written atomically.

Like the reference runtime, failures print "ERROR: …" on stderr. A workflow
that does not expand (cycle, missing skill or step file) exits 3, usage
errors 2, other failures 1.

One deliberate difference from the reference: a called skill without
execution.calls becomes one step (key: its name uppercased, e.g. CODE) whose
instructions are its SKILL.md body; the reference skips it.

` + exitCodesHelp,
		Example: `  skillpm asf inspect fix
  skillpm asf init fix "Fix the login bug" --session 1f2e
  skillpm asf complete DIAGNOSIS_001_CAPTURE_CLASSIFY --session 1f2e
  skillpm asf hooks install --host claude`,
		Args: exactArgs(0),
		// Without a command it is a usage error (exit 2), as in the reference.
		RunE: func(c *cobra.Command, args []string) error {
			return &usageError{errors.New("skillpm asf needs a command (init, current, complete, status, …): see skillpm asf --help")}
		},
	}
	f.register(c, true)
	c.AddCommand(
		newAsfInitCmd(g, f),
		newAsfInspectCmd(g, f),
		newAsfCompleteCmd(g, f),
		newAsfStepCmd(g, f, "rewind", "rewind STEP_KEY", "Make a step current again: it and the steps after it are redone",
			"  skillpm asf rewind DIAGNOSIS_002_REFERENCE_CHECK", 1),
		newAsfStepCmd(g, f, "resume", "resume", "Clear an interruption and show the current step",
			"  skillpm asf resume --session 1f2e", 0),
		newAsfInterruptCmd(g, f),
		newAsfStepCmd(g, f, "current", "current", "Show the current step and the command that completes it",
			"  skillpm asf current --session 1f2e", 0),
		newAsfStatusCmd(g, f),
		newAsfAbortCmd(g, f),
		newAsfValidateCmd(g, f),
		newAsfHookCmd(g, f),
		newAsfHooksCmd(g, f),
	)
	return c
}

// printView prints the current step, or the completion message.
func printView(g *globals, s *asfSetup, st *asf.State, loc asf.Location, heading string) error {
	v, err := s.runner.View(st, loc)
	if err != nil {
		return err
	}
	if g.json() {
		return g.writeJSON(v)
	}
	_, err = io.WriteString(g.stdout, v.Render(heading))
	return err
}

func newAsfInitCmd(g *globals, f *asfFlags) *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "init SKILL TASK...",
		Short: "Start a workflow and show its first step",
		Long: `Init expands SKILL's execution.calls into steps, writes a fresh state with
the first step running, and prints that step. Nothing is written when the
workflow does not expand. A workflow still running in the same state is
kept unless --force.`,
		Example: `  skillpm asf init fix "Fix the login bug"`,
		Args:    minArgs(2),
		RunE: asfRunE(g, func(c *cobra.Command, args []string) error {
			s, loc, err := f.located()
			if err != nil {
				return err
			}
			st, err := s.runner.Init(c.Context(), loc, args[0], strings.Join(args[1:], " "), asf.InitOptions{Force: force})
			if err != nil {
				return err
			}
			return printView(g, s, st, loc, asf.HeadingInit)
		}),
	}
	c.Flags().BoolVar(&force, "force", false, "replace a workflow that is still running in this state")
	return c
}

func newAsfInspectCmd(g *globals, f *asfFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "inspect SKILL",
		Short: "Say whether a skill is a runnable ASF workflow (JSON)",
		Long: `Inspect prints, as JSON like the reference runtime: skill, skillPath,
exists, asf, executable, reason, runtimeCommand, and the expanded steps when
executable. A missing or call-less skill exits 0 (it is an answer); a
workflow that does not expand prints its reason and exits 3.`,
		Example: `  skillpm asf inspect fix`,
		Args:    exactArgs(1),
		RunE: asfRunE(g, func(c *cobra.Command, args []string) error {
			s, loc, err := f.located()
			if err != nil {
				return err
			}
			in, ierr := s.runner.Inspect(c.Context(), args[0], loc)
			if in != nil {
				if err := g.writeJSON(in); err != nil {
					return err
				}
			}
			return ierr
		}),
	}
}

func newAsfCompleteCmd(g *globals, f *asfFlags) *cobra.Command {
	var o asf.CompleteOptions
	c := &cobra.Command{
		Use:   "complete STEP_KEY",
		Short: "Complete the current step and show the next one",
		Long: `Complete marks the current step completed and prints the next step, or
"ALL STEPS COMPLETED - workflow done." after the last. Only the current step
can be completed unless --force (the steps jumped over are marked skipped).
A user_confirmation step (ask_user: true) needs --confirmed, given once the
user has confirmed, unless resume recorded the user's answer.`,
		Example: `  skillpm asf complete DIAGNOSIS_001_CAPTURE_CLASSIFY
  skillpm asf complete DIAGNOSIS_007_EXPLAIN_CONFIRM --confirmed`,
		Args: exactArgs(1),
		RunE: asfRunE(g, func(c *cobra.Command, args []string) error {
			s, loc, err := f.located()
			if err != nil {
				return err
			}
			st, err := s.runner.Complete(c.Context(), loc, args[0], o)
			if err != nil {
				return err
			}
			return printView(g, s, st, loc, asf.HeadingNext)
		}),
	}
	c.Flags().BoolVar(&o.Force, "force", false, "complete a step other than the current one, skipping those before it")
	c.Flags().BoolVar(&o.Confirmed, "confirmed", false, "the user confirmed (needed for user_confirmation steps)")
	return c
}

// newAsfStepCmd builds rewind, resume and current, which differ only in
// the runner call and the heading.
func newAsfStepCmd(g *globals, f *asfFlags, name, use, short, example string, nargs int) *cobra.Command {
	return &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		Args:    exactArgs(nargs),
		RunE: asfRunE(g, func(c *cobra.Command, args []string) error {
			s, loc, err := f.located()
			if err != nil {
				return err
			}
			var st *asf.State
			heading := asf.HeadingCurrent
			switch name {
			case "rewind":
				st, err = s.runner.Rewind(c.Context(), loc, args[0])
				heading = asf.HeadingRewind
			case "resume":
				st, err = s.runner.Resume(c.Context(), loc)
				heading = asf.HeadingResume
			default:
				st, err = s.runner.Load(c.Context(), loc)
			}
			if err != nil {
				return err
			}
			return printView(g, s, st, loc, heading)
		}),
	}
}

func newAsfInterruptCmd(g *globals, f *asfFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "interrupt [REASON...]",
		Short: "Pause the workflow so the agent may stop (e.g. to ask the user)",
		Long: `Interrupt marks the workflow interrupted with REASON (default "needs user
input"): the Stop hook then lets the agent stop. resume continues.`,
		Example: `  skillpm asf interrupt "which database is in production?"`,
		RunE: asfRunE(g, func(c *cobra.Command, args []string) error {
			s, loc, err := f.located()
			if err != nil {
				return err
			}
			st, err := s.runner.Interrupt(c.Context(), loc, strings.Join(args, " "), asf.InterruptedByAgent)
			if err != nil {
				return err
			}
			if g.json() {
				v, err := s.runner.View(st, loc)
				if err != nil {
					return err
				}
				return g.writeJSON(v)
			}
			fmt.Fprintf(g.stdout, "Workflow interrupted: %s\n", st.Control.InterruptReason)
			if !g.quiet {
				fmt.Fprintf(g.stdout, "To continue, run: %s\n", s.runner.Command(loc, "asf", "resume"))
			}
			return nil
		}),
	}
}

// asfStatusJSON is `asf status --output json`.
type asfStatusJSON struct {
	StatePath string     `json:"statePath"`
	Scope     string     `json:"scope"`
	Session   string     `json:"session,omitempty"`
	State     *asf.State `json:"state"`
}

func newAsfStatusCmd(g *globals, f *asfFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "List the workflow's steps and where it stands",
		Long: `Status shows the workflow, its task, where its state lives, and every step
with its status. With no workflow it says so and exits 0.`,
		Example: `  skillpm asf status --session 1f2e
  skillpm asf status --output json`,
		Args: exactArgs(0),
		RunE: asfRunE(g, func(c *cobra.Command, args []string) error {
			s, loc, err := f.located()
			if err != nil {
				return err
			}
			st, err := s.runner.Load(c.Context(), loc)
			if errors.Is(err, asf.ErrNoWorkflow) {
				if g.json() {
					return g.writeJSON(asfStatusJSON{StatePath: loc.Path, Scope: loc.Scope, Session: loc.Session})
				}
				fmt.Fprintf(g.stdout, "no ASF workflow (state: %s)\n", loc.Path)
				return nil
			}
			if err != nil {
				return err
			}
			if g.json() {
				return g.writeJSON(asfStatusJSON{StatePath: loc.Path, Scope: loc.Scope, Session: loc.Session, State: st})
			}
			printStatus(g.stdout, st, loc)
			return nil
		}),
	}
}

func printStatus(w io.Writer, st *asf.State, loc asf.Location) {
	c := st.Control
	fmt.Fprintf(w, "workflow %s: %s", c.Workflow, st.Status)
	if c.Interrupted {
		fmt.Fprintf(w, " (%s)", c.InterruptReason)
	}
	fmt.Fprintln(w)
	if t := st.Task(); t != "" {
		fmt.Fprintf(w, "task:  %s\n", t)
	}
	fmt.Fprintf(w, "state: %s (%s)\n", loc.Path, loc.Scope)
	for _, k := range c.Order {
		s := c.Steps[k]
		mark := "[ ]"
		switch {
		case s.Status == asf.StatusCompleted && s.Skipped:
			mark = "[-]"
		case s.Status == asf.StatusCompleted:
			mark = "[x]"
		case s.Status == asf.StatusRunning:
			mark = "[>]"
		}
		note := ""
		if s.Mode == asf.ModeUserConfirmation {
			note = "  (user confirmation)"
			if s.Confirmed {
				note = "  (confirmed)"
			}
		}
		fmt.Fprintf(w, "  %s %-36s %s%s\n", mark, k, strings.Join(s.CallPath, " > "), note)
	}
}

func newAsfAbortCmd(g *globals, f *asfFlags) *cobra.Command {
	return &cobra.Command{
		Use:     "abort",
		Short:   "End the workflow and remove its state",
		Example: `  skillpm asf abort --session 1f2e`,
		Args:    exactArgs(0),
		RunE: asfRunE(g, func(c *cobra.Command, args []string) error {
			s, loc, err := f.located()
			if err != nil {
				return err
			}
			st, err := s.runner.Abort(c.Context(), loc)
			if err != nil {
				return err
			}
			name := "(unreadable state)"
			if st != nil {
				name = st.Control.Workflow
			}
			if g.json() {
				return g.writeJSON(map[string]any{"aborted": true, "workflow": name, "statePath": loc.Path})
			}
			fmt.Fprintf(g.stdout, "Workflow %s aborted; removed %s\n", name, loc.Path)
			return nil
		}),
	}
}

func newAsfValidateCmd(g *globals, f *asfFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "validate [SKILL...]",
		Short: "Check that workflows expand (every skill in the search path by default)",
		Long: `Validate expands each named skill's execution.calls, or every skill found in
the search path, and reports cycles, missing skills and missing step files
with their call paths. Prints "ASF validation passed" like the reference;
exits 3 when a workflow does not expand.`,
		Example: `  skillpm asf validate fix
  skillpm asf validate --skills-root ./skills`,
		RunE: asfRunE(g, func(c *cobra.Command, args []string) error {
			s, err := f.setup()
			if err != nil {
				return err
			}
			res, err := s.runner.Validate(c.Context(), args)
			if err != nil {
				return err
			}
			failed := 0
			for _, v := range res {
				if v.Err() != nil {
					failed++
				}
			}
			if err := printAsfValidation(g, res, failed); err != nil {
				return err
			}
			if failed > 0 {
				return classed(errdef.Validation, fmt.Errorf("ASF validation failed: %d of %d skills do not expand", failed, len(res)))
			}
			return nil
		}),
	}
}

// printAsfValidation renders what validate found: JSON, or a line per
// skill (failures on stderr) and "ASF validation passed" when none failed.
func printAsfValidation(g *globals, res []asf.Validation, failed int) error {
	if g.json() {
		if res == nil {
			res = []asf.Validation{}
		}
		return g.writeJSON(map[string]any{"skills": res, "failed": failed})
	}
	for _, v := range res {
		switch {
		case v.Err() != nil:
			fmt.Fprintf(g.stderr, "%s: %s\n", v.Skill, v.Error)
		case v.ASF && !g.quiet:
			fmt.Fprintf(g.stdout, "%s: %d steps\n", v.Skill, v.Steps)
		case !g.quiet:
			fmt.Fprintf(g.stdout, "%s: not a workflow (no execution.calls)\n", v.Skill)
		}
	}
	if failed == 0 {
		fmt.Fprintln(g.stdout, "ASF validation passed")
	}
	return nil
}

func newAsfHookCmd(g *globals, f *asfFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "hook stop|prompt|read",
		Short: "Answer a host hook: reads its JSON payload on stdin",
		Long: `Hook reads a host's hook payload on stdin and answers in the host's format
(Claude Code: Stop, UserPromptSubmit, PreToolUse on Read; Codex, --host codex:
Stop and UserPromptSubmit, in the same format). The state is the
payload's session (session_id) unless --state or --session is given.

  stop    blocks stopping while an automatic step runs ({"decision":"block"}),
          allows when interrupted, at a user-confirmation step, or with no
          running workflow; after 5 blocked continuations in a row
          (stop_hook_active) it allows and marks the workflow interrupted
  prompt  a user prompt interrupts a running workflow and tells the agent how
          to resume or confirm; "/asf SKILL TASK" gets the run command
  read    reading a SKILL.md with execution.calls adds the init command

Allowing prints nothing. A payload or state the hook cannot read exits 1,
which Claude Code treats as a non-blocking error (the hook fails open).`,
		Example: `  skillpm asf hook stop < payload.json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 || (args[0] != asf.HookStop && args[0] != asf.HookPrompt && args[0] != asf.HookRead) {
				return usageErrorf(c, fmt.Errorf("want one of: %s", strings.Join(asf.HookKinds(), ", ")))
			}
			return nil
		},
		RunE: asfRunE(g, func(c *cobra.Command, args []string) error {
			if err := asf.HooksUnsupported(f.host.name); err != nil {
				return classed(errdef.Usage, err)
			}
			s, err := f.setup()
			if err != nil {
				return err
			}
			payload, err := io.ReadAll(io.LimitReader(g.stdin, 16<<20))
			if err != nil {
				return fmt.Errorf("reading the hook payload: %w", err)
			}
			res, err := s.runner.Hook(c.Context(), args[0], payload, asf.HookOptions{State: s.so, Env: s.env})
			if err != nil {
				return err
			}
			_, err = g.stdout.Write(res.Output)
			return err
		}),
	}
}

func newAsfHooksCmd(g *globals, f *asfFlags) *cobra.Command {
	c := &cobra.Command{
		Use:   "hooks",
		Short: "Install or remove the runner's hooks in a host's settings",
		Example: `  skillpm asf hooks install --host claude
  skillpm asf hooks install --host codex
  skillpm asf hooks uninstall --host claude --scope project`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	var scope, file, command string
	var dry bool
	mk := func(name, short string) *cobra.Command {
		sc := &cobra.Command{
			Use:   name,
			Short: short,
			Long: short + `.

For Claude Code the hooks are Stop and UserPromptSubmit ("skillpm asf hook
stop|prompt") and PreToolUse with matcher Read ("skillpm asf hook read"), in
~/.claude/settings.json (--scope user) or ./.claude/settings.json (--scope
project). For Codex they are Stop and UserPromptSubmit ("skillpm asf hook
stop|prompt --host codex"; Codex reads files through its shell, so there is
no read hook), in $CODEX_HOME/hooks.json (default ~/.codex/hooks.json) or
./.codex/hooks.json; Codex runs a new or changed hook only once it is
trusted: its next interactive session asks to review it. OpenCode has no
command hooks (its plugins cannot refuse to let the agent stop), and says
so. Every other key and hook entry is kept; install is idempotent;
uninstall removes only hooks whose command is "skillpm asf hook …". The file
is replaced atomically and keeps its mode.`,
			Example: "  skillpm asf hooks " + name + " --host claude --scope project",
			Args:    exactArgs(0),
			RunE: asfRunE(g, func(c *cobra.Command, args []string) error {
				if err := asf.HooksUnsupported(f.host.name); err != nil {
					return classed(errdef.Usage, err)
				}
				env, err := processEnv()
				if err != nil {
					return err
				}
				path := file
				if path == "" {
					if path, err = asf.HookSettingsPath(f.host.name, scope, env); err != nil {
						return classed(errdef.Usage, err)
					}
				} else {
					path = env.Abs(path)
				}
				o := asf.SettingsOptions{Command: command, DryRun: dry}
				var ch *asf.SettingsChange
				if name == "install" {
					ch, err = asf.InstallHooks(c.Context(), f.host.name, path, o)
				} else {
					ch, err = asf.UninstallHooks(c.Context(), f.host.name, path, o)
				}
				if err != nil {
					return err
				}
				return printSettingsChange(g, ch, name, dry)
			}),
		}
		bindScope(sc.Flags(), &scope, asf.ScopeUser, "`SCOPE` of the settings edited, user or project")
		sc.Flags().StringVar(&file, "settings", "", "edit this settings `FILE` instead")
		sc.Flags().StringVar(&command, "command", "", "the skillpm executable the hooks run (default skillpm, from PATH)")
		sc.Flags().BoolVar(&dry, "dry-run", false, "print the new settings instead of writing them")
		return sc
	}
	c.AddCommand(mk("install", "Add the runner's hooks to the host's settings"),
		mk("uninstall", "Remove the runner's hooks from the host's settings"))
	return c
}

func printSettingsChange(g *globals, ch *asf.SettingsChange, verb string, dry bool) error {
	if g.json() {
		return g.writeJSON(ch)
	}
	if dry {
		_, err := g.stdout.Write(ch.Content)
		return err
	}
	if !ch.Changed {
		if verb == "install" {
			fmt.Fprintf(g.stdout, "%s: hooks already installed, nothing changed\n", ch.File)
		} else {
			fmt.Fprintf(g.stdout, "%s: no skillpm hooks to remove, nothing changed\n", ch.File)
		}
		return nil
	}
	for _, r := range ch.Removed {
		fmt.Fprintf(g.stdout, "removed %s\n", r)
	}
	for _, a := range ch.Added {
		fmt.Fprintf(g.stdout, "added   %s\n", a)
	}
	fmt.Fprintf(g.stdout, "updated %s\n", ch.File)
	if ch.Note != "" {
		fmt.Fprintf(g.stdout, "note: %s\n", ch.Note)
	}
	return nil
}
