package main

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/gitsource"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/spf13/cobra"
)

// gitCache opens the cache of fetched git repositories: "git" in the
// content cache, so that skillpm cache prune empties it too.
func gitCache(offline bool) (*gitsource.Cache, error) {
	dir, err := registry.DefaultCacheDir()
	if err != nil {
		return nil, err
	}
	return gitsource.New(gitsource.Options{Dir: filepath.Join(dir, "git"), Offline: offline}), nil
}

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

// gitLocals builds each skill of a git reference (those named by --skill
// when given) as install builds a local directory, recording the
// repository (credentials removed) and commit as the artifact's source
// and revision.
func gitLocals(c *cobra.Command, g *globals, cache *gitsource.Cache, raw string, pick []string) ([]install.Local, func(), error) {
	gs, err := gitExport(c, g, cache, raw)
	if err != nil {
		return nil, func() {}, err
	}
	created, err := registry.SourceDateEpoch(os.Getenv)
	if err != nil {
		gs.done()
		return nil, func() {}, withCode(exitUsage, err)
	}
	var out []install.Local
	found := map[string]bool{}
	var have []string
	for _, s := range gs.skills {
		origin := s.Ref(gs.res).String()
		base := path.Base("/" + s.Path)
		if s.Path == "" {
			base = path.Base(gs.res.Ref.Path)
		}
		have = append(have, base)
		if len(pick) > 0 && !slices.Contains(pick, base) {
			continue
		}
		a, err := registry.Build(c.Context(), s.Dir, registry.BuildOptions{Created: created, NoVCS: true,
			Source: gs.res.Ref.Remote(), Revision: gs.res.Commit})
		if err != nil {
			gs.done()
			var ve *skill.ValidationError
			if errors.As(err, &ve) {
				printDiagnostics(g.stderr, ve.Diagnostics)
				return nil, func() {}, withCode(exitValidation, fmt.Errorf("%s: %s, not installed", origin, plural(len(ve.Diagnostics.Errors()), "error")))
			}
			return nil, func() {}, withCode(exitValidation, fmt.Errorf("%s: %w", origin, err))
		}
		found[base], found[a.Skill.Name] = true, true
		out = append(out, install.Local{Dir: s.Dir, Origin: origin, Artifact: a})
	}
	for _, p := range pick {
		if !found[p] {
			gs.done()
			return nil, func() {}, withCode(exitResolution, fmt.Errorf("%s: no skill %s (it has %s)", gs.res.Ref, p, strings.Join(have, ", ")))
		}
	}
	return out, gs.done, nil
}

// gitExit maps gitsource errors to exit codes.
func gitExit(err error) error {
	switch {
	case errors.Is(err, gitsource.ErrInvalidRef), errors.Is(err, gitsource.ErrUnknownHost):
		return withCode(exitUsage, err)
	case errors.Is(err, gitsource.ErrRevNotFound), errors.Is(err, gitsource.ErrNoSkill):
		return withCode(exitResolution, err)
	case errors.Is(err, gitsource.ErrUnsafeTree):
		return withCode(exitValidation, err)
	case errors.Is(err, gitsource.ErrFetch), errors.Is(err, gitsource.ErrOffline):
		return withCode(exitRegistry, err)
	}
	return withCode(exitFailure, err)
}
