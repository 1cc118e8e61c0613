package main

import (
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/spf13/cobra"
)

func newAdoptCmd(g *globals) *cobra.Command {
	var rf rootFlags
	var reg regFlags
	var trust trustFlags
	c := &cobra.Command{
		Use:   "adopt NAME",
		Short: "Take a skill placed by hand or by another tool under management",
		Long: `Adopt records a skill that is in a host's root but was not installed by
skillpm (list shows it unmanaged), after checking that it loads. It looks
in the default source (--registry, else the configuration's registry) for a
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
  skillpm adopt pdf --host cursor --scope project --registry ghcr.io/acme/skills`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			e, err := openEngine(c.Context(), g, engineFlags{reg: &reg, trust: &trust, from: reg.registry, rf: &rf})
			if err != nil {
				return err
			}
			done, err := e.Adopt(c.Context(), engine.AdoptRequest{Name: args[0]})
			if err != nil && !g.json() {
				_ = printAdopted(g, done.Roots) // the roots adopted before the failure
			}
			if mapped, ok := engineErr(g, err); ok && err != nil {
				return mapped
			} else if err != nil {
				return err
			}
			return printAdopted(g, done.Roots)
		},
	}
	rf.register(c)
	reg.addPlainHTTP(c)
	trust.register(c)
	bindRegistry(c, &reg.registryOption, "`SOURCE` to look for a published copy in: a registry namespace or oci-layout:DIR (default: the configuration's registry)", "from")
	return c
}

// printAdopted renders what adopt recorded: JSON, or per root the version
// and tier recorded and where the files came from (or why experimental).
func printAdopted(g *globals, done []install.Adoption) error {
	if g.json() {
		out := []*install.Adopted{}
		for _, a := range done {
			out = append(out, a.Adopted)
		}
		return g.writeJSON(map[string]any{"adopted": out})
	}
	for _, a := range done {
		from := ""
		if a.Origin != "" {
			from = " (" + a.Origin + ")"
		}
		fmt.Fprintf(g.stdout, "%s: adopted %s %s as %s%s\n", a.Root.Dir, a.Record.Name, dash(a.Record.Version), a.Record.Tier, from)
		if a.Why != "" {
			fmt.Fprintf(g.stdout, "  experimental: %s\n", a.Why)
		} else {
			fmt.Fprintf(g.stdout, "  its files are %s@%s (%s), signed by %s\n", a.Record.Source, a.Record.Version, a.Record.Digest, a.Record.Signers[0])
		}
	}
	return nil
}
