package skill

import (
	"context"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Result is one skill of a validated set.
type Result struct {
	Dir         string      `json:"dir"`
	Skill       *Skill      `json:"-"`
	Diagnostics Diagnostics `json:"diagnostics"`
}

// LoadSet loads and validates several skills together: the tools each one
// provides count as known to the tools_required of the others, as they do
// when the skills are installed side by side.
func LoadSet(ctx context.Context, dirs []string, opts Options) []Result {
	out := make([]Result, len(dirs))
	var provided []string
	for i, dir := range dirs {
		s, ds := Load(ctx, dir, opts)
		out[i] = Result{Dir: dir, Skill: s, Diagnostics: ds}
		if s != nil {
			provided = append(provided, s.ToolNames()...)
			for _, t := range s.Gaia.Tools {
				provided = append(provided, t.Name)
			}
		}
	}
	if len(provided) == 0 {
		return out
	}
	base := opts.KnownTools
	if base == nil {
		base = DefaultKnownTools()
	}
	withSet := opts
	withSet.KnownTools = base.WithTools("the other skills being validated", provided)
	for i := range out {
		if out[i].Diagnostics.Has(CodeToolUnknown) {
			out[i].Skill, out[i].Diagnostics = Load(ctx, out[i].Dir, withSet)
		}
	}
	return out
}

// FindSkills walks root and returns every directory holding a SKILL.md (in
// any letter case), sorted. VCS folders are skipped. A skill nested inside
// another skill is returned too.
func FindSkills(ctx context.Context, root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".hg", ".svn", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.EqualFold(d.Name(), SkillFile) {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}

// Summary counts what a validation of several skills found.
type Summary struct {
	// Skills is how many skills were checked, Valid how many have no
	// error.
	Skills int `json:"skills"`
	Valid  int `json:"valid"`
	// Errors and Warnings count the diagnostics of every skill.
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// Codes counts the diagnostics by code.
	Codes map[string]int `json:"codes"`
}

// Summarize counts rs.
func Summarize(rs []Result) Summary {
	s := Summary{Skills: len(rs), Codes: map[string]int{}}
	for _, r := range rs {
		if !r.Diagnostics.HasErrors() {
			s.Valid++
		}
		for _, d := range r.Diagnostics {
			s.Codes[d.Code]++
			if d.Severity == Error {
				s.Errors++
			} else {
				s.Warnings++
			}
		}
	}
	return s
}
