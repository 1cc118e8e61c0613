package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/spf13/cobra"
)

type doctorRoot struct {
	Host     string   `json:"host"`
	Scope    string   `json:"scope"`
	Dir      string   `json:"dir"`
	ReadBy   string   `json:"read_by"`
	Exists   bool     `json:"exists"`
	Skills   int      `json:"skills"`
	Journal  bool     `json:"pending_journal"`
	Staged   []string `json:"pending_staging,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

type doctorReport struct {
	Schema     string            `json:"schema"`
	Config     string            `json:"config"`
	Host       string            `json:"default_host"`
	Env        map[string]string `json:"env"`
	Policy     string            `json:"policy"`
	Registries []doctorRegistry  `json:"registries"`
	Roots      []doctorRoot      `json:"roots"`
	Project    *doctorProject    `json:"project,omitempty"`
	Problems   []string          `json:"problems"`
}

type doctorRegistry struct {
	Source    string `json:"source"`
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`
}

type doctorProject struct {
	Manifest string   `json:"manifest"`
	Lock     string   `json:"lock"`
	Drift    []string `json:"drift"`
}

func newDoctorCmd(g *globals) *cobra.Command {
	var f regFlags
	var policy policyOption
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the setup: roots per host, environment, policy, registries, pending work, lock drift",
		Long: `Doctor prints what skillpm would use here and what is wrong with it:
every host's discovery roots (which agent reads them, how many skills
skillpm installed there), the environment variables in effect, the
configuration and trust policy files in effect, whether the configured
and project registries answer, transactions a crash left pending, and, in
a project, where the installed skills differ from skills.lock.

Exit status: 0 when nothing is wrong, 1 when something is (each problem
is listed with what to do).`,
		Example: `  skillpm doctor
  skillpm doctor --output json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			e, err := openEngine(ctx, g, engineFlags{reg: &f, lenientEnv: true, policyFile: policy.policy})
			if err != nil {
				return err
			}
			res, err := e.Doctor(ctx, engine.DoctorRequest{})
			if err != nil {
				return err
			}
			rep := doctorView(g, res)
			if g.json() {
				if err := g.writeJSON(rep); err != nil {
					return err
				}
			} else {
				printDoctor(g, &rep)
			}
			if len(rep.Problems) > 0 {
				return classed(errdef.Internal, errOutdated)
			}
			return nil
		},
	}
	f.addPlainHTTP(c)
	bindPolicy(c.Flags(), &policy, "trust policy `FILE` to check (default: the search path)")
	return c
}

// doctorView words the engine's report for the command line: problems
// with what to run about them, the built-in policy and an ambiguous host
// spelled out.
func doctorView(g *globals, res *engine.DoctorResult) doctorReport {
	rep := doctorReport{Schema: schemaOf("doctor"), Config: g.config().File, Host: string(res.Host), Env: res.Env,
		Policy: res.Policy, Problems: []string{}, Registries: []doctorRegistry{}, Roots: []doctorRoot{}}
	if rep.Config == "" {
		rep.Config = "(none: defaults)"
	}
	if rep.Host == "" {
		rep.Host = "(ambiguous)"
	}
	if rep.Policy == "" {
		rep.Policy = "(built-in default: nothing is verified until a policy trusts a signer; write one and check it with skillpm policy check FILE; skillpm trust add KEY.pub trusts a signer)"
	}
	if g.cfgErr != nil {
		rep.Config = "(unreadable: ran on the defaults)"
		rep.Problems = append(rep.Problems, g.cfgErr.Error()+": fix the file, or point --config or $SKILLPM_CONFIG at another")
	}
	for _, p := range res.Problems {
		rep.Problems = append(rep.Problems, doctorProblem(g, p))
	}
	for _, r := range res.Roots {
		dr := doctorRoot{Host: string(r.Host), Scope: string(r.Scope), Dir: r.Dir, ReadBy: r.ReadBy, Exists: r.Exists,
			Skills: r.Skills, Journal: r.Journal, Staged: r.Staged}
		for _, p := range r.Problems {
			dr.Problems = append(dr.Problems, p.Error())
		}
		rep.Roots = append(rep.Roots, dr)
	}
	if m := res.Manifest; m != nil {
		rep.Project = &doctorProject{Manifest: m.File, Lock: projectOption{}.lockOf(m), Drift: []string{}}
		for _, d := range res.Drift {
			rep.Project.Drift = append(rep.Project.Drift, doctorProblem(g, d))
		}
	}
	for _, r := range res.Registries {
		dr := doctorRegistry{Source: r.Source, Reachable: r.Err == nil}
		if r.Err != nil {
			dr.Error = r.Err.Error()
		}
		rep.Registries = append(rep.Registries, dr)
	}
	return rep
}

// doctorProblem words one problem with the command that fixes it.
func doctorProblem(g *globals, err error) string {
	d, ok := errors.AsType[*install.LockDrift](err)
	if !ok {
		return rootsErr(g, projectOpenErr(err)).Error()
	}
	switch d.Kind {
	case install.DriftNoLock:
		return d.Error() + ": run skillpm install"
	case install.DriftNewer:
		return fmt.Sprintf("%s: run skillpm lock --upgrade %s (or skillpm update %s)", d, d.Name, d.Name)
	case install.DriftFiles:
		return d.Error() + ": look at what changed; skillpm install --frozen --force restores the locked files"
	}
	return d.Error() + ": run skillpm install --frozen"
}

func printDoctor(g *globals, rep *doctorReport) {
	w := g.stdout
	fmt.Fprintf(w, "configuration: %s\n", termText(rep.Config))
	fmt.Fprintf(w, "default host:  %s\n", termText(rep.Host))
	fmt.Fprintf(w, "trust policy:  %s\n", termText(rep.Policy))
	fmt.Fprintln(w, "environment:")
	if len(rep.Env) == 0 {
		fmt.Fprintln(w, "  (no overrides)")
	}
	for _, k := range slices.Sorted(maps.Keys(rep.Env)) {
		if v, ok := rep.Env[k]; ok {
			fmt.Fprintf(w, "  %s=%s\n", termText(k), termText(v))
		}
	}
	fmt.Fprintln(w, "registries:")
	for _, r := range rep.Registries {
		state := "reachable"
		if !r.Reachable {
			state = "UNREACHABLE: " + r.Error
		}
		fmt.Fprintf(w, "  %s: %s\n", termText(r.Source), termLines(state))
	}
	fmt.Fprintln(w, "roots:")
	absent := 0
	for _, r := range rep.Roots {
		// Most hosts' roots do not exist on a given machine: listed with -v
		// (and in the JSON), counted otherwise.
		if !r.Exists && !r.Journal && len(r.Staged) == 0 && !g.verbose() {
			absent++
			continue
		}
		state := "absent"
		if r.Exists {
			state = plural(r.Skills, "skill") + " installed by skillpm"
		}
		if r.Journal || len(r.Staged) > 0 {
			state += ", PENDING TRANSACTION"
		}
		fmt.Fprintf(w, "  %-8s %-7s %s  (%s; read by %s)\n", termText(string(r.Host)), r.Scope, termText(r.Dir), state, termText(fmt.Sprint(r.ReadBy)))
	}
	if absent > 0 {
		fmt.Fprintf(w, "  (%s that do not exist; -v lists them)\n", plural(absent, "more root"))
	}
	if rep.Project != nil {
		fmt.Fprintf(w, "project: %s, %s\n", termText(rep.Project.Manifest), termText(rep.Project.Lock))
		if len(rep.Project.Drift) == 0 {
			fmt.Fprintln(w, "  the installed skills match the lock")
		}
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "no problems found")
		return
	}
	fmt.Fprintf(w, "%s:\n", plural(len(rep.Problems), "problem"))
	for _, p := range rep.Problems {
		fmt.Fprintln(w, "  - "+termLines(strings.TrimSpace(p)))
	}
}
