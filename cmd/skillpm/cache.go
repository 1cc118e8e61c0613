package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/registry"
	"github.com/spf13/cobra"
)

func newCacheCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "cache",
		Short: "Show or empty the content cache",
		Long: `The content cache holds every manifest and blob skillpm fetched, by digest
($SKILLPM_CACHE, else $XDG_CACHE_HOME/skillpm), and in its git folder the
repositories git references were fetched from, shallow, by commit. Everything in it can be
fetched again, so emptying it is always safe.`,
		Example: `  skillpm cache dir
  skillpm cache prune`,
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
			_, err = fmt.Fprintln(g.stdout, dir)
			return err
		},
	}, &cobra.Command{
		Use:     "prune",
		Short:   "Delete everything in the cache",
		Example: "  skillpm cache prune",
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
