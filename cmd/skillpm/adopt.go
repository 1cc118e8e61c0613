package main

import (
	"fmt"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

func newAdoptCmd(g *globals) *cobra.Command {
	var rf rootFlags
	var reg regFlags
	var trust trustFlags
	var from string
	c := &cobra.Command{
		Use:   "adopt NAME",
		Short: "Take a skill placed by hand or by another tool under management",
		Long: `Adopt records a skill that is in a host's root but was not installed by
skillpm (list shows it unmanaged), after checking that it loads. It looks
in the default source (--from, else the configuration's registry) for a
published version of the same name whose files are exactly the folder's:
each candidate is fetched, unpacked and its tree hash compared with the
folder's, computed under the root's lock. When one matches and its
signatures verify under the trust policy, the receipt records that
version, its digest and the tier its signers give. Otherwise the skill is
recorded as experimental, and adopt says why. From then on list marks it
edited when its files change, and remove and update treat it like any
installed skill. A symlinked skill folder (as the skills CLI makes) is
refused: install the skill with skillpm instead.`,
		Example: `  skillpm adopt pdf --host claude
  skillpm adopt pdf --host cursor --scope project --from ghcr.io/acme/skills`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			roots, err := rf.targets(g.defaultHost())
			if err != nil {
				return err
			}
			client, err := regClient(g, &reg)
			if err != nil {
				return err
			}
			policy, vopts, err := trust.load(c.Context(), g)
			if err != nil {
				return err
			}
			graph, err := projectGraph(client, g, from, &resolve.Manifest{})
			if err != nil {
				return err
			}
			key, err := graph.Namespace().Key(args[0])
			if err != nil {
				return withCode(exitUsage, err)
			}
			opts := install.AdoptOptions{Client: client, Repository: graph.Namespace().Repository(key), Policy: policy, Trust: vopts.Trust}
			var out []*install.Adopted
			for _, r := range roots {
				a, err := install.Adopt(c.Context(), r.Dir, args[0], opts)
				if err != nil {
					return err
				}
				out = append(out, a)
				if !g.json() {
					from := ""
					if a.Origin != "" {
						from = " (" + a.Origin + ")"
					}
					fmt.Fprintf(g.stdout, "%s: adopted %s %s as %s%s\n", r.Dir, a.Record.Name, dash(a.Record.Version), a.Record.Tier, from)
					if a.Why != "" {
						fmt.Fprintf(g.stdout, "  experimental: %s\n", a.Why)
					} else {
						fmt.Fprintf(g.stdout, "  its files are %s@%s (%s), signed by %s\n", a.Record.Source, a.Record.Version, a.Record.Digest, a.Record.Signers[0])
					}
				}
			}
			if g.json() {
				return writeJSON(g.stdout, map[string]any{"adopted": out})
			}
			return nil
		},
	}
	rf.register(c)
	reg.addPlainHTTP(c)
	trust.register(c)
	c.Flags().StringVar(&from, "from", "", "`SOURCE` to look for a published copy in: a registry namespace or oci-layout:DIR (default: the configuration's registry)")
	return c
}
