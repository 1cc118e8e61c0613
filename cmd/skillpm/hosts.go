package main

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/hosts"
	"github.com/spf13/cobra"
)

// hostView is one host of `skillpm hosts`: the table row plus its roots as
// this environment resolves them.
type hostView struct {
	hosts.Host
	UserDirs    []string `json:"userDirs"`
	ProjectDirs []string `json:"projectDirs"`
	Reads       []string `json:"reads"`
}

func newHostsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "hosts [ID...]",
		Short: "Show the agent hosts skillpm knows and where each reads skills",
		Long: `Hosts prints the hosts table: for each agent host its user and project
discovery roots (the first of each is where install writes), the
environment variables that move them, the roots it reads besides its own,
which copy it loads when a name repeats, whether it follows symlinks, and
the source of each fact. Roots are shown resolved for this environment.

The table is built in; a hosts file ($SKILLPM_HOSTS, else
$XDG_CONFIG_HOME/skillpm/hosts.yaml) can add hosts in the same shape.`,
		Example: `  skillpm hosts
  skillpm hosts claude codex
  skillpm hosts --output json`,
		RunE: func(c *cobra.Command, args []string) error {
			env, err := processEnv()
			if err != nil {
				return err
			}
			t := env.Table()
			ids := args
			if len(ids) == 0 {
				ids = t.IDs()
			}
			var views []hostView
			for _, id := range ids {
				h, err := t.Get(id)
				if err != nil {
					return &usageError{err}
				}
				v := hostView{Host: h, UserDirs: []string{}, ProjectDirs: []string{}, Reads: []string{}}
				for _, d := range h.User {
					v.UserDirs = append(v.UserDirs, resolved(d, env))
				}
				for _, d := range h.Project {
					v.ProjectDirs = append(v.ProjectDirs, resolved(d, env))
				}
				roots, err := t.SearchRoots(id, env)
				if err != nil {
					return err
				}
				for _, r := range roots {
					if r.Host != id || !own(h, r, env) {
						v.Reads = append(v.Reads, r.Dir)
					}
				}
				views = append(views, v)
			}
			if g.json() {
				return writeJSON(g.stdout, map[string]any{"hosts": views})
			}
			w := g.stdout
			for i, v := range views {
				if i > 0 {
					fmt.Fprintln(w)
				}
				builtin := ""
				if !v.Builtin {
					builtin = " (from the hosts file)"
				}
				fmt.Fprintf(w, "%s  %s%s\n", v.ID, v.Name, builtin)
				for j, d := range v.User {
					fmt.Fprintf(w, "  user       %s  = %s\n", d, v.UserDirs[j])
				}
				if len(v.Project) == 0 {
					fmt.Fprintf(w, "  project    none: %s\n", v.NoProject)
				}
				for j, d := range v.Project {
					fmt.Fprintf(w, "  project    %s  = %s\n", d, v.ProjectDirs[j])
				}
				var order []string
				for _, s := range v.Search {
					switch {
					case s.Dir != nil:
						order = append(order, s.Dir.String())
					case s.Host != "":
						order = append(order, s.Host+"/"+string(s.Scope))
					default:
						order = append(order, string(s.Scope))
					}
				}
				fmt.Fprintf(w, "  reads      %s\n", strings.Join(order, ", "))
				fmt.Fprintf(w, "  duplicates %s; symlinks %s\n", v.Duplicates, v.Symlinks)
				for _, s := range v.Sources {
					fmt.Fprintf(w, "  source     %s: %s\n", s.Fact, s.Ref)
				}
			}
			return nil
		},
	}
}

func resolved(d hosts.Dir, env hosts.Env) string {
	p, err := d.Resolve(env)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return p
}

// own reports whether r is one of h's own roots rather than one it reads
// besides them.
func own(h hosts.Host, r hosts.Root, env hosts.Env) bool {
	for _, d := range append(append([]hosts.Dir{}, h.User...), h.Project...) {
		if p, err := d.Resolve(env); err == nil && p == r.Dir {
			return true
		}
	}
	return false
}
