package main

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/sparse"
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
		Use:   "build [--registry SOURCE]",
		Short: "Write the search index and the sparse index of SOURCE (SOURCE/skillpm-index)",
		Long: `Index build reads every skill of SOURCE (--registry: a registry namespace,
oci-layout:DIR or "embedded"; default the configuration's registry) and
pushes its search index to SOURCE/skillpm-index, tag latest: an artifact of
type application/vnd.skillpm.index.v1 whose one JSON layer lists, per
skill, its versions with their manifest digests and the latest version's
description, claimed tier and permissions. skillpm search reads it.

It also writes the sparse index, tag sparse-v1: one document per skill
listing every version's manifest and layer digests, requirements, claimed
tier and permissions, from which install and update resolve a whole graph
in two round trips when a signer the trust policy names for the index (a
rule scoped to SOURCE/skillpm-index itself) signed it and it has not expired:
it is valid for seven days, so rebuild and sign it again before then (see
docs/sparse-index.md). With --names only those skills' documents are
rewritten; publish and mirror keep an existing sparse index up to date.

The skills are SOURCE's _catalog where the registry has one, else the
directory's layouts; --names FILE (one name a line) for registries without
_catalog. --sign --key K (or --keyless) signs the index like a skill.`,
		Example: `  skillpm index build --registry ghcr.io/acme/skills --names skills.txt --sign --key market.key
  skillpm index build --registry oci-layout:./mirror`,
		Args: func(c *cobra.Command, args []string) error {
			if err := cobra.MaximumNArgs(1)(c, args); err != nil {
				return usageErrorf(c, err)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			sopts, err := f.signFlags.publishOptions(ctx, g)
			if err != nil {
				return err
			}
			src, err := f.source(g, args)
			if err != nil {
				return err
			}
			var names []string
			if f.names != "" {
				if names, err = readNames(f.names); err != nil {
					return err
				}
			}
			e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: cmp.Or(src, f.registry), lenientEnv: true})
			if err != nil {
				return err
			}
			res, err := e.BuildIndex(ctx, engine.BuildIndexRequest{Names: names, Jobs: f.jobs, Sign: sopts})
			if errors.Is(err, registry.ErrNoCatalog) {
				return fmt.Errorf("%w: give --names FILE", err)
			} else if err != nil && src == "" {
				return sourceErr(g, f.registry, err)
			} else if err != nil {
				return err
			}
			return printIndex(g, indexOutput(res))
		},
	}
	f.signFlags.register(c, true)
	c.Flags().StringVar(&f.names, "names", "", "read the skill names from `FILE` (one a line) instead of the source's listing")
	c.Flags().IntVar(&f.jobs, "jobs", registry.DefaultMirrorJobs, "read `N` skills at once")
	f.addPlainHTTP(c)
	bindRegistry(c, &f.registryOption, "`SOURCE` to index: a registry namespace, oci-layout:DIR or embedded (default: the configuration's registry)")
	return c
}

// source is the source to index as an argument older releases took
// (deprecated: a warning), else "": --registry, else the configuration's
// registry (engine.BuildIndexRequest.Source).
func (f *indexBuildFlags) source(g *globals, args []string) (string, error) {
	if len(args) == 0 {
		return "", nil
	}
	if f.registry != "" {
		return "", classed(errdef.Usage, fmt.Errorf("index build: give the source once, as --registry %s (not also as an argument)", f.registry))
	}
	deprecatedPositional(g, "index build SOURCE", "index build --registry SOURCE")
	return args[0], nil
}

// indexOutput is index build's JSON document.
func indexOutput(res *engine.BuildIndexResult) indexJSON {
	sp := res.Sparse
	return indexJSON{Source: res.Source.String(), Repository: res.Source.Locate(registry.IndexRepository).String(), Digest: res.Descriptor.Digest.String(), Skills: res.Skills, Signature: res.Signed,
		Sparse: &sparseJSON{Tag: sparse.Tag, Digest: sp.Descriptor.Digest.String(), Skills: sp.Skills, Changed: append([]string{}, sp.Changed...), Signature: res.SparseSigned}}
}

// printIndex renders what index build wrote: JSON, or the search index,
// the sparse index and their signatures.
func printIndex(g *globals, j indexJSON) error {
	if g.json() {
		return g.writeJSON(j)
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
