package main

import (
	"fmt"
	"path/filepath"

	"github.com/skillpm/skillpm/engine"
	"github.com/spf13/cobra"
)

type pullFlags struct {
	regFlags
	out string
}

type pullJSON struct {
	Name         string `json:"name"`
	Version      string `json:"version"`
	Repository   string `json:"repository"`
	Digest       string `json:"digest"`
	Dir          string `json:"dir"`
	Tree         string `json:"tree"`
	TreeVerified bool   `json:"treeVerified"`
	Files        int    `json:"files"`
	Bytes        int64  `json:"bytes"`
}

func newPullCmd(g *globals) *cobra.Command {
	var f pullFlags
	c := &cobra.Command{
		Use:   "pull REF",
		Short: "Fetch a published skill and unpack it for inspection",
		Long: `Pull fetches a published skill (every byte checked against its digest) and
unpacks it with the bounded, safe unpacker into --output-dir DIR (default ./NAME), which
must not exist. The unpacked files are checked against the manifest's tree
hash. Nothing is installed: use it to read a skill before trusting it.

Exit status: 4 when no version matches, 6 when the registry fails after
retries or serves content that does not match its digest.`,
		Example: `  skillpm pull web-research
  skillpm pull web-research@^1 --output-dir /tmp/web-research
  skillpm pull ghcr.io/acme/skills/web-research@1.2.0 --output-dir ./inspect`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runPull(c, g, &f, args[0])
		},
	}
	c.Flags().StringVar(&f.out, "output-dir", "", "`DIR` to unpack into (must not exist; default ./NAME)")
	f.addRegistry(c)
	f.addPlainHTTP(c)
	return c
}

func runPull(c *cobra.Command, g *globals, f *pullFlags, arg string) error {
	ctx := c.Context()
	e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: f.registry, lenientEnv: true, noPolicy: true})
	if err != nil {
		return err
	}
	res, err := e.Pull(ctx, engine.PullRequest{Ref: arg, Dir: f.out})
	if err != nil {
		return sourceErr(g, f.registry, err)
	}
	m, dest := res.Version, res.Dir
	md := m.Metadata
	if g.json() {
		abs, _ := filepath.Abs(dest)
		return g.writeJSON(pullJSON{Name: md.Name, Version: md.Version, Repository: res.Location.String(),
			Digest: m.Descriptor.Digest.String(), Dir: abs, Tree: res.Summary.TreeHash, TreeVerified: res.TreeVerified,
			Files: res.Summary.Files, Bytes: res.Summary.Bytes})
	}
	check := "matches the manifest"
	if !res.TreeVerified {
		check = "NOT checked: the artifact carries no tree hash"
	}
	fmt.Fprintf(g.stdout, "pulled %s@%s (%s) into %s: %s, %s; tree %s %s\n", md.Name, md.Version, m.Descriptor.Digest,
		dest, plural(res.Summary.Files, "file"), regBytes(res.Summary.Bytes), res.Summary.TreeHash, check)
	return nil
}
