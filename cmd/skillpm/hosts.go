package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/skillpm/skillpm/hosts"
	"github.com/spf13/cobra"
)

func newHostsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "hosts [ID...]",
		Short: "Show the agent hosts skillpm knows and where each reads skills",
		Long: `Hosts prints the hosts table: for each agent host its user and project
discovery roots (the first of each is where install writes), the
environment variables that move them, the roots it reads besides its own,
which copy it loads when a name repeats, whether it follows symlinks,
whether it is present on this machine (a config folder or a binary on
$PATH, as the table says each is found), and the source of each fact.
Roots are shown resolved for this environment.

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
			views, err := env.Views(c.Context(), args)
			if err != nil {
				return err
			}
			if g.json() {
				return g.writeJSON(map[string]any{"hosts": views})
			}
			printHosts(g.stdout, views)
			return nil
		},
	}
}

// printHosts renders the hosts table as text.
func printHosts(w io.Writer, views []hosts.View) {
	for i, v := range views {
		if i > 0 {
			fmt.Fprintln(w)
		}
		builtin := ""
		if !v.Builtin {
			builtin = " (from the hosts file)"
		}
		present := "not found"
		if v.Present {
			present = "present: " + v.PresentBy
		}
		fmt.Fprintf(w, "%s  %s%s  [%s]\n", v.ID, v.Name, builtin, present)
		if len(v.User) == 0 {
			fmt.Fprintf(w, "  user       none: %s\n", v.NoUser)
		}
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
			if s.UnlessEnv != "" {
				order[len(order)-1] += " (unless $" + s.UnlessEnv + " is set)"
			}
		}
		fmt.Fprintf(w, "  reads      %s\n", strings.Join(order, ", "))
		fmt.Fprintf(w, "  duplicates %s; symlinks %s\n", v.Duplicates, v.Symlinks)
		for _, s := range v.Citations {
			fmt.Fprintf(w, "  source     %s: %s\n", s.Fact, s.Ref)
		}
	}
}
