package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/resolve"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/registry"
	"github.com/spf13/cobra"
)

func newCacheCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "cache",
		Short: "Show or empty the content cache",
		Long: `The content cache holds every manifest and blob skillpm fetched, by digest
($SKILLPM_CACHE, else $XDG_CACHE_HOME/skillpm), and in its git folder the
repositories git references were fetched from, shallow, by commit.
Everything in it can be fetched again, so emptying it is always safe:
cache prune deletes the manifests and blobs nothing installed or locked
refers to, cache clean everything (the git cache too).`,
		Example: `  skillpm cache dir
  skillpm cache prune
  skillpm cache clean`,
	}
	c.AddCommand(&cobra.Command{
		Use:     "dir",
		Short:   "Print the cache directory",
		Example: "  skillpm cache dir",
		Args:    exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			dir, err := registry.DefaultCacheDir()
			if err != nil {
				return err
			}
			if g.json() {
				return g.writeJSON(map[string]any{"dir": dir})
			}
			_, err = fmt.Fprintln(g.stdout, dir)
			return err
		},
	}, &cobra.Command{
		Use:   "prune",
		Short: "Delete the cached content no install root or project lock refers to",
		Long: `Prune deletes the cached manifests and blobs that no skill installed in any
host's roots and no skills.lock in the current directory refers to (with
their signatures and attestations, which are kept with what they sign),
as uv cache prune does. cache clean empties the cache.`,
		Example: "  skillpm cache prune",
		Args:    exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			dir, err := registry.DefaultCacheDir()
			if err != nil {
				return err
			}
			var keep []string
			for _, r := range install.AllSearchRoots(osEnv()) {
				rec, err := install.ReadReceipts(r.Dir)
				if err != nil {
					return err
				}
				for _, s := range rec.Skills {
					keep = append(keep, s.Digest)
				}
			}
			_, lpath := lockPaths(&lockFlags{})
			if lock, err := resolve.ReadLockfile(c.Context(), lpath); err == nil {
				for _, s := range lock.Skills {
					keep = append(keep, s.Digest)
				}
			} else if !errors.Is(err, fs.ErrNotExist) {
				return classed(errdef.Usage, err)
			}
			res, err := registry.PruneCache(c.Context(), dir, keep)
			if err != nil {
				return fmt.Errorf("pruning the cache %s: %w", dir, err)
			}
			if g.json() {
				return g.writeJSON(map[string]any{"schema": schemaOf("cache.prune"), "dir": dir, "removed": res.Removed, "kept": res.Kept, "freed_bytes": res.Freed})
			}
			if !g.quiet {
				fmt.Fprintf(g.stdout, "removed %s (%d bytes) from %s; kept %d in use\n", plural(res.Removed, "cached blob"), res.Freed, dir, res.Kept)
			}
			return nil
		},
	}, &cobra.Command{
		Use:     "clean",
		Short:   "Delete everything in the cache",
		Example: "  skillpm cache clean",
		Args:    exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			dir, err := registry.DefaultCacheDir()
			if err != nil {
				return err
			}
			// The git cache lives inside the content cache (gitCache), so
			// it goes with it; say so, as it is what offline git installs
			// read.
			repos, _ := filepath.Glob(filepath.Join(dir, "git", "repos", "*.git"))
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("emptying the cache %s: %w", dir, err)
			}
			if g.json() {
				return g.writeJSON(map[string]any{"dir": dir, "emptied": true, "git_repositories_removed": len(repos)})
			}
			if !g.quiet {
				fmt.Fprintf(g.stdout, "emptied %s\n", dir)
				if len(repos) > 0 {
					fmt.Fprintf(g.stdout, "removed the git cache (%d repositories): git references need the network again\n", len(repos))
				}
			}
			return nil
		},
	})
	return c
}
