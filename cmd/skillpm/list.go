package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/spf13/cobra"
)

func newListCmd(g *globals) *cobra.Command {
	var rf rootFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List installed skills per host and root",
		Long: `List shows every skill in the discovery roots, with version, tier and
source. With --host, it shows what that host itself loads: every root it
reads (its own and other hosts', see skillpm hosts) in its precedence
order; a copy hidden by an earlier one of the same name is marked shadowed
(or conflict, for a host that does not pick the same copy every time);
folders the host ignores (a lower-case skill.md, a symlink it does not
follow) are marked ignored. Without --host, every host's own roots are
listed once. Skills skillpm did not install are marked unmanaged, and
installed skills whose files were edited by hand are marked edited. A
skill installed with --link shows the copy its link points to, the copy
the links that point to it, and both the hosts that read them. -q prints
only the names, once each.`,
		Example: `  skillpm list
  skillpm list --host claude --scope project
  skillpm list --root ./image/skills --output json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			e, err := openEngine(c.Context(), g, engineFlags{rf: &rf, lenientEnv: len(rf.roots) > 0})
			if err != nil {
				return err
			}
			res, err := e.List(c.Context(), engine.ListRequest{})
			if err != nil {
				return rootsErr(g, err)
			}
			return printList(g, res)
		},
	}

	rf.register(c)
	return c
}

// printList renders what list found: the names (-q), JSON, or a table
// with each skill's status; pending transactions as notes on stderr.
func printList(g *globals, res *engine.ListResult) error {
	items := res.Skills
	if g.quiet && !g.json() {
		// -q: the names only, once each, as a script wants them.
		seen := map[string]bool{}
		for _, l := range items {
			if !seen[l.Name] {
				seen[l.Name] = true
				fmt.Fprintln(g.stdout, termText(l.Name))
			}
		}
		return nil
	}
	for _, p := range res.Pending {
		fmt.Fprintln(g.stderr, "note: "+p)
	}
	if g.json() {
		if items == nil {
			items = []install.Listed{}
		}
		out := map[string]any{"skills": items}
		if len(res.Advisories) > 0 {
			out["advisories"] = res.Advisories
		}
		return g.writeJSON(out)
	}
	advised := map[string][]string{} // dir -> "advisory ID (kind)"
	for _, a := range res.Advisories {
		advised[a.Dir] = append(advised[a.Dir], "advisory "+a.ID+" ("+a.Kind+")")
	}
	if len(items) == 0 {
		fmt.Fprintln(g.stdout, "no skills installed in the searched roots")
		return nil
	}
	tw := tabwriter.NewWriter(g.tableOut(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tSCOPE\tNAME\tVERSION\tTIER\tSOURCE\tSTATUS")
	for _, l := range items {
		status := "ok"
		switch {
		case l.Pending != "":
			status = "interrupted " + l.Pending + " (the next skillpm command completes it)"
		case l.Ignored != "":
			status = "ignored: " + l.Ignored
		case l.Invalid:
			status = "invalid"
		case l.ConflictsWith != "":
			status = "conflict: " + string(l.Root.Host) + " loads this or " + l.ConflictsWith + ", not always the same"
		case l.ShadowedBy != "":
			status = "shadowed by " + l.ShadowedBy
		case l.Drift != "":
			status = "drift: " + l.Drift + " (skillpm install --frozen says what changed)"
		case l.Edited:
			status = "edited"
		case !l.Managed && l.Origin != "":
			status = "unmanaged: " + l.Origin
		case !l.Managed:
			status = "unmanaged"
		}
		if l.Managed && l.Mode == install.ModeLink {
			status += "; link to " + l.Link
		}
		if len(l.LinkedFrom) > 0 {
			status += "; linked from " + strings.Join(l.LinkedFrom, ", ")
		}
		if l.Managed && len(l.ReadBy) > 1 {
			status += "; read by " + strings.Join(l.ReadBy, ", ")
		}
		if as := advised[l.Dir]; len(as) > 0 {
			status += "; named by " + strings.Join(as, ", ") + " (skillpm doctor)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", l.Root.Host, l.Root.Scope, termText(l.Name), termText(dash(l.Version)), termText(dash(string(l.Tier))), termText(dash(l.Source)), termText(status))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
