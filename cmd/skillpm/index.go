package main

import (
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/spf13/cobra"
)

func newIndexCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "index",
		Short: "Build a source's search index",
	}
	c.AddCommand(newIndexBuildCmd(g))
	return c
}

type indexBuildFlags struct {
	regFlags
	signFlags
	names string
	jobs  int
}

type indexJSON struct {
	Source     string      `json:"source"`
	Repository string      `json:"repository"`
	Digest     string      `json:"digest"`
	Skills     int         `json:"skills"`
	Signature  *signedJSON `json:"signature,omitempty"`
}

func newIndexBuildCmd(g *globals) *cobra.Command {
	var f indexBuildFlags
	c := &cobra.Command{
		Use:   "build SRC",
		Short: "Write the search index of SRC (SRC/skillpm-index:latest)",
		Long: `Index build reads every skill of SRC (a registry namespace, oci-layout:DIR
or "embedded") and pushes its search index to SRC/skillpm-index, tag latest:
an artifact of type application/vnd.skillpm.index.v1 whose one JSON layer
lists, per skill, its versions with their manifest digests and the latest
version's description, claimed tier and permissions. skillpm search reads it.

The skills are SRC's _catalog where the registry has one, else the
directory's layouts; --names FILE (one name a line) for registries without
_catalog. --sign --key K (or --keyless) signs the index like a skill.`,
		Example: `  skillpm index build ghcr.io/acme/skills --names skills.txt --sign --key market.key
  skillpm index build oci-layout:./mirror`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			var sopts *sign.SignOptions
			if f.signFlags.wanted() {
				o, err := f.signFlags.options(ctx, g)
				if err != nil {
					return err
				}
				sopts = &o
			}
			client, err := regClient(g, &f.regFlags)
			if err != nil {
				return err
			}
			src, err := openSourceArg(client, args[0])
			if err != nil {
				return err
			}
			opts := registry.IndexOptions{Jobs: f.jobs}
			if f.names != "" {
				if opts.Names, err = readNames(f.names); err != nil {
					return err
				}
			}
			idx, err := client.BuildIndex(ctx, src, opts)
			if err != nil {
				if errors.Is(err, registry.ErrNoCatalog) {
					return withCode(exitUsage, fmt.Errorf("%w: give --names FILE", err))
				}
				return regExit(err)
			}
			desc, err := client.PushIndex(ctx, src, idx)
			if err != nil {
				return regExit(err)
			}
			repo, err := client.Repository(src, registry.IndexRepository)
			if err != nil {
				return regExit(err)
			}
			j := indexJSON{Source: src.String(), Repository: repo.Location().String(), Digest: desc.Digest.String(), Skills: len(idx.Skills)}
			if sopts != nil {
				if j.Signature, err = signAttach(ctx, repo, desc, registry.IndexTag, *sopts); err != nil {
					return err
				}
			}
			if g.json() {
				return writeJSON(g.stdout, j)
			}
			fmt.Fprintf(g.stdout, "indexed %s: %s:%s (%s)\n", plural(j.Skills, "skill"), j.Repository, registry.IndexTag, j.Digest)
			if j.Signature != nil {
				warnJunk(g.stderr, j.Signature)
				printSigned(g.stdout, j.Signature, "signed")
			}
			return nil
		},
	}
	f.signFlags.register(c, true)
	c.Flags().StringVar(&f.names, "names", "", "read the skill names from `FILE` (one a line) instead of the source's listing")
	c.Flags().IntVar(&f.jobs, "jobs", registry.DefaultMirrorJobs, "read `N` skills at once")
	f.addPlainHTTP(c)
	return c
}
