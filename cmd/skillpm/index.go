package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/sign"
	"github.com/spf13/cobra"
)

func newIndexCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "index",
		Short: "Build a source's search index and signed sparse index",
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
	Sparse     *sparseJSON `json:"sparse,omitempty"`
}

// sparseJSON describes the sparse index index build wrote.
type sparseJSON struct {
	Tag       string      `json:"tag"`
	Digest    string      `json:"digest"`
	Skills    int         `json:"skills"`
	Changed   []string    `json:"changed"`
	Signature *signedJSON `json:"signature,omitempty"`
}

func newIndexBuildCmd(g *globals) *cobra.Command {
	var f indexBuildFlags
	c := &cobra.Command{
		Use:   "build [SRC]",
		Short: "Write the search index and the sparse index of SRC (SRC/skillpm-index)",
		Long: `Index build reads every skill of SRC (a registry namespace, oci-layout:DIR
or "embedded"; default --registry, else the configuration's registry) and
pushes its search index to SRC/skillpm-index, tag latest: an artifact of
type application/vnd.skillpm.index.v1 whose one JSON layer lists, per
skill, its versions with their manifest digests and the latest version's
description, claimed tier and permissions. skillpm search reads it.

It also writes the sparse index, tag sparse-v1: one document per skill
listing every version's manifest and layer digests, requirements, claimed
tier and permissions, from which install and update resolve a whole graph
in two round trips when a signer the trust policy names signed it (see
docs/sparse-index.md). With --names only those skills' documents are
rewritten; publish and mirror keep an existing sparse index up to date.

The skills are SRC's _catalog where the registry has one, else the
directory's layouts; --names FILE (one name a line) for registries without
_catalog. --sign --key K (or --keyless) signs the index like a skill.`,
		Example: `  skillpm index build ghcr.io/acme/skills --names skills.txt --sign --key market.key
  skillpm index build oci-layout:./mirror`,
		Args: func(c *cobra.Command, args []string) error {
			if err := cobra.MaximumNArgs(1)(c, args); err != nil {
				return usageErrorf(c, err)
			}
			return nil
		},
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
			var src registry.Source
			if len(args) == 1 {
				src, err = openSourceArg(client, args[0])
			} else {
				src, err = regDefaultSource(client, g, &f.regFlags)
			}
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
			if j.Sparse, err = writeSparse(ctx, client, src, repo, opts.Names, f.jobs, sopts); err != nil {
				return err
			}
			return printIndex(g, j)
		},
	}
	f.signFlags.register(c, true)
	c.Flags().StringVar(&f.names, "names", "", "read the skill names from `FILE` (one a line) instead of the source's listing")
	c.Flags().IntVar(&f.jobs, "jobs", registry.DefaultMirrorJobs, "read `N` skills at once")
	f.addPlainHTTP(c)
	c.Flags().StringVar(&f.registry, "registry", "", "`SOURCE` to index when SRC is not given (default: the configuration's registry)")
	return c
}

// writeSparse writes src's sparse index (the documents of names, all
// when none) beside the search index in repo, and signs it with sopts
// when given.
func writeSparse(ctx context.Context, client *registry.Client, src registry.Source, repo *registry.Repository, names []string, jobs int, sopts *sign.SignOptions) (*sparseJSON, error) {
	sres, err := sparse.Update(ctx, client, src, sparse.UpdateOptions{Names: names, Jobs: jobs})
	if err != nil {
		return nil, regExit(err)
	}
	out := &sparseJSON{Tag: sparse.Tag, Digest: sres.Descriptor.Digest.String(), Skills: sres.Skills, Changed: append([]string{}, sres.Changed...)}
	if sopts != nil {
		if out.Signature, err = signAttach(ctx, repo, sres.Descriptor, sparse.Tag, *sopts); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// printIndex renders what index build wrote: JSON, or the search index,
// the sparse index and their signatures.
func printIndex(g *globals, j indexJSON) error {
	if g.json() {
		return writeJSON(g.stdout, j)
	}
	fmt.Fprintf(g.stdout, "indexed %s: %s:%s (%s)\n", plural(j.Skills, "skill"), j.Repository, registry.IndexTag, j.Digest)
	if j.Signature != nil {
		warnJunk(g.stderr, j.Signature)
		printSigned(g.stdout, j.Signature, "signed")
	}
	fmt.Fprintf(g.stdout, "sparse index: %s, %d rewritten: %s:%s (%s)\n", plural(j.Sparse.Skills, "skill"), len(j.Sparse.Changed), j.Repository, sparse.Tag, j.Sparse.Digest)
	if j.Sparse.Signature != nil {
		printSigned(g.stdout, j.Sparse.Signature, "signed")
	}
	return nil
}
