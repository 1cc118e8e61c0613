package main

import (
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/registry"
	"github.com/spf13/cobra"
)

type bundleFlags struct {
	regFlags
	out string
}

type bundleJSON struct {
	Directory string              `json:"directory"`
	Skills    []mirrorVersionJSON `json:"skills"`
}

func newBundleCmd(g *globals) *cobra.Command {
	var f bundleFlags
	c := &cobra.Command{
		Use:   "bundle REF... --output-dir DIR",
		Short: "Write the skills named, with their dependencies and signatures, to an OCI layout directory",
		Long: `Bundle resolves the skills named (with their dependencies, as install
would) and writes exactly those versions, each with every signature and
countersignature attached to it, into DIR: one OCI image layout per skill,
the shape of oci-layout: sources. Digests are unchanged, so signatures still
verify. It is for air-gapped machines and OEM images:

  skillpm install --registry oci-layout:DIR ...

installs from it with no network. DIR must be empty or hold only a previous
bundle of the same skills.`,
		Example: `  skillpm bundle fix@^1 web-research --output-dir ./bundle
  skillpm bundle ghcr.io/acme/skills/fix@1.2.0 --output-dir ./image/skills-bundle`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runBundle(c, g, &f, args)
		},
	}
	c.Flags().StringVar(&f.out, "output-dir", "", "write the bundle to `DIR` (required)")
	f.addRegistry(c)
	f.addPlainHTTP(c)
	return c
}

func runBundle(c *cobra.Command, g *globals, f *bundleFlags, args []string) error {
	ctx := c.Context()
	if f.out == "" {
		return usageErrorf(c, fmt.Errorf("-o DIR is required"))
	}
	e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: f.registry, warn: resolverWarn(g)})
	if err != nil {
		return err
	}
	res, err := e.Bundle(ctx, engine.BundleRequest{Refs: args, Dir: f.out})
	var ie *engine.InstallError
	switch {
	case errors.As(err, &ie):
		return lockExit(ie.Manifest, ie.Err)
	case err != nil:
		return err
	}
	return printBundle(g, res, f.out)
}

// printBundle renders what a bundle wrote: JSON, or a line per skill and
// how to install from it.
func printBundle(g *globals, res *registry.MirrorResult, out string) error {
	dst := res.To
	if g.json() {
		j := bundleJSON{Directory: dst.String(), Skills: []mirrorVersionJSON{}}
		for _, v := range res.Versions {
			j.Skills = append(j.Skills, mirrorVersionDoc(v))
		}
		return g.writeJSON(j)
	}
	for _, v := range res.Versions {
		fmt.Fprintf(g.stdout, "%s %s  %s  %s\n", v.Name, v.Version, shortDigest(v.Digest), plural(v.Referrers, "signature"))
	}
	if !g.quiet {
		fmt.Fprintf(g.stderr, "wrote %s to %s; install with: skillpm install --registry %s\n", plural(len(res.Versions), "skill"), out, dst)
	}
	return nil
}
