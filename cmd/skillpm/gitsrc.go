package main

import (
	"fmt"
	"os"
	"path/filepath"

	spm "github.com/skillpm/skillpm"
	"github.com/skillpm/skillpm/gitsource"
	"github.com/spf13/cobra"
)

// gitCache opens the cache of fetched git repositories (skillpm.GitCache).
func gitCache(offline bool) (*gitsource.Cache, error) { return spm.GitCache(offline) }

// gitSkills is what a git reference holds, exported into a temporary
// directory that done removes.
type gitSkills struct {
	res    *gitsource.Resolved
	skills []gitsource.Skill
	done   func()
}

// gitExport resolves ref (notes and cache warnings on stderr) and exports
// its skills, keeping those named in pick (by folder name or skill name)
// when pick is not empty.
func gitExport(c *cobra.Command, g *globals, cache *gitsource.Cache, raw string) (*gitSkills, error) {
	ref, err := gitsource.Parse(raw)
	if err != nil {
		return nil, gitExit(err)
	}
	if ref.Note != "" {
		fmt.Fprintln(g.stderr, "note: "+ref.Note)
	}
	res, err := cache.Resolve(c.Context(), ref)
	if err != nil {
		return nil, gitExit(err)
	}
	if res.Warning != "" {
		fmt.Fprintln(g.stderr, "warning: "+res.Warning)
	}
	tmp, err := os.MkdirTemp("", "skillpm-git-")
	if err != nil {
		return nil, err
	}
	done := func() { os.RemoveAll(tmp) }
	skills, err := cache.Export(c.Context(), res, filepath.Join(tmp, "tree"))
	if err != nil {
		done()
		return nil, gitExit(err)
	}
	return &gitSkills{res: res, skills: skills, done: done}, nil
}

// gitExit gives a gitsource error the exit code of its class.
func gitExit(err error) error { return classExit(err) }
