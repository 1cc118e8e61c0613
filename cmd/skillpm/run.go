package main

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/asf"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/spf13/cobra"
)

// runJSON is `skillpm run --output json`.
type runJSON struct {
	Inspection *asf.Inspection `json:"inspection"`
	View       *asf.View       `json:"view"`
}

func newRunCmd(g *globals) *cobra.Command {
	f := &asfFlags{}
	var force bool
	c := &cobra.Command{
		Use:   "run SKILL TASK...",
		Short: "Start an installed ASF workflow for a task (the /asf SKILL TASK adapter)",
		Long: `Run is the /asf SKILL TASK adapter: it normalizes SKILL ("/fix" is fix),
inspects it, and starts the workflow only when the skill exists and its
execution.calls expand into steps; otherwise it says why and exits non-zero
(1 when the skill is missing or is not a workflow, 3 when its calls do not
expand). It then prints the first step and the command that completes it;
continue with skillpm asf complete|current|status.

Skills and state are found as for skillpm asf (see skillpm asf --help).`,
		Example: `  skillpm run fix "Fix the login bug"
  skillpm run /fix "Fix the login bug" --session 1f2e
  skillpm run fix "Fix the login bug" --skills-root ./skills`,
		Args: minArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			s, loc, err := f.located()
			if err != nil {
				return err
			}
			in, err := s.runner.Inspect(c.Context(), args[0], loc)
			if err != nil {
				return except("asf", fmt.Errorf("cannot run %s: %w", args[0], err))
			}
			switch {
			case !in.Exists:
				return classed(errdef.Internal, fmt.Errorf("cannot run %s: %s; install it or pass --skills-root DIR", in.Skill, in.Reason))
			case !in.Executable:
				return classed(errdef.Internal, fmt.Errorf("cannot run %s: it is not an ASF workflow (%s), so there are no steps to run; read %s and follow it directly",
					in.Skill, in.Reason, in.SkillPath))
			}
			st, err := s.runner.Init(c.Context(), loc, in.Skill, strings.Join(args[1:], " "), asf.InitOptions{Force: force})
			if err != nil {
				return except("asf", err)
			}
			v, err := s.runner.View(st, loc)
			if err != nil {
				return err
			}
			if g.json() {
				return g.writeJSON(runJSON{Inspection: in, View: v})
			}
			if !g.quiet {
				fmt.Fprintf(g.stderr, "skillpm: %s: %s; state in %s\n", in.Skill, in.Reason, loc.Path)
			}
			_, err = fmt.Fprint(g.stdout, v.Render(asf.HeadingInit))
			return err
		},
	}
	f.register(c, false)
	c.Flags().BoolVar(&force, "force", false, "replace a workflow that is still running in this state")
	return c
}
