package main

import (
	"fmt"

	"github.com/skillpm/skillpm/install"
	"github.com/spf13/cobra"
)

func newAdoptCmd(g *globals) *cobra.Command {
	var rf rootFlags
	c := &cobra.Command{
		Use:   "adopt NAME",
		Short: "Take a skill placed by hand or by another tool under management",
		Long: `Adopt records a skill that is in a host's root but was not installed by
skillpm (list shows it unmanaged), after checking that it loads. It is
recorded as experimental: nothing vouches for its files. From then on list
marks it edited when its files change, and remove and update treat it like
any installed skill. A symlinked skill folder (as the skills CLI makes) is
refused: install the skill with skillpm instead.`,
		Example: `  skillpm adopt pdf --host claude
  skillpm adopt pdf --host cursor --scope project`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			roots, err := rf.targets(g.defaultHost())
			if err != nil {
				return err
			}
			var out []*install.Adopted
			for _, r := range roots {
				a, err := install.Adopt(c.Context(), r.Dir, args[0], install.AdoptOptions{})
				if err != nil {
					return err
				}
				out = append(out, a)
				if !g.json() {
					from := ""
					if a.Origin != "" {
						from = " (" + a.Origin + ")"
					}
					fmt.Fprintf(g.stdout, "%s: adopted %s %s as experimental%s\n", r.Dir, a.Record.Name, dash(a.Record.Version), from)
				}
			}
			if g.json() {
				return writeJSON(g.stdout, map[string]any{"adopted": out})
			}
			return nil
		},
	}
	rf.register(c)
	return c
}
