package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source"
	"github.com/spf13/cobra"
	"oras.land/oras-go/v2/content/oci"
)

type packFlags struct {
	layout string
	out    string
	noVCS  bool
}

type packJSON struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Digest   string `json:"digest"`
	Layer    string `json:"layer"`
	Size     int64  `json:"size"`
	Tree     string `json:"tree"`
	Files    int    `json:"files"`
	Layout   string `json:"ociLayout,omitempty"`
	Tag      string `json:"tag,omitempty"`
	TarGzip  string `json:"file,omitempty"`
	Manifest string `json:"manifest"`
}

func newPackCmd(g *globals) *cobra.Command {
	var f packFlags
	c := &cobra.Command{
		Use:   "pack DIR",
		Short: "Build a skill's OCI artifact without publishing it",
		Long: `Pack validates the skill in DIR as publish does and builds the same
artifact: into an OCI image layout (--oci-layout DIR writes DIR/NAME,
tagged with the version, the shape publish --registry oci-layout:DIR writes, so
that install, pull and info read it back as oci-layout:DIR/NAME; oras and
other OCI tools read it too) or as the bare layer (-o FILE.tar.gz, its
folder created when missing). It prints the manifest digest, which is what publish would
push: the same files always give the same digest (SOURCE_DATE_EPOCH adds a
created time).`,
		Example: `  skillpm pack ./web-research --oci-layout ./out
  skillpm pack ./web-research --output-file web-research.tar.gz`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runPack(c, g, &f, args[0])
		},
	}
	c.Flags().StringVar(&f.layout, "oci-layout", "", "write the artifact into the OCI image layout `DIR`")
	c.Flags().StringVar(&f.out, "output-file", "", "write the layer (the packed skill) to `FILE`")
	c.Flags().BoolVar(&f.noVCS, "no-vcs", false, "do not record the git origin and commit")
	return c
}

func runPack(c *cobra.Command, g *globals, f *packFlags, dir string) error {
	if (f.layout == "") == (f.out == "") {
		return classed(errdef.Usage, errors.New("give exactly one of --oci-layout DIR and --output-file FILE.tar.gz"))
	}
	a, err := regBuild(c, g, dir, f.noVCS)
	if err != nil {
		return err
	}
	j := packJSON{Name: a.Skill.Name, Version: a.Skill.Version, Digest: a.Descriptor.Digest.String(),
		Layer: a.Pack.Digest, Size: a.Pack.Size, Tree: a.Pack.TreeHash, Files: a.Pack.Files, Manifest: string(a.ManifestBytes)}
	if f.layout != "" {
		// DIR/NAME, as a directory of layouts holds a skill.
		j.Layout, j.Tag = filepath.Join(f.layout, a.Skill.Name), a.Tag()
		store, err := oci.NewWithContext(c.Context(), j.Layout)
		if err != nil {
			return fmt.Errorf("%s: %w", j.Layout, err)
		}
		loc := registry.Location{Registry: source.LayoutPrefix + f.layout, Repository: a.Skill.Name}
		if err := registry.PushArtifact(c.Context(), store, a, a.Tag(), loc, regProgress(g)); err != nil {
			return fmt.Errorf("%s: %w", j.Layout, err)
		}
	} else {
		if err := regWriteFile(f.out, a.Layer); err != nil {
			return err
		}
		j.TarGzip = f.out
	}
	if g.json() {
		return g.writeJSON(j)
	}
	if f.layout != "" {
		fmt.Fprintf(g.stdout, "packed %s@%s into %s (tag %s, read back as oci-layout:%s/%s): %s\n", j.Name, j.Version, j.Layout, j.Tag, f.layout, j.Name, j.Digest)
	} else {
		fmt.Fprintf(g.stdout, "packed %s@%s into %s (%s, %s, tree %s); manifest %s\n", j.Name, j.Version, f.out, regBytes(j.Size), plural(j.Files, "file"), j.Tree, j.Digest)
	}
	return nil
}

// regWriteFile writes data to path through a temporary file in the same
// directory, so a reader never sees half a file.
func regWriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
