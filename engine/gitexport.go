package engine

import (
	"context"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/gitsource"
)

// gitExport is what a git reference holds, exported into a temporary
// directory: the resolved commit and its skills. Done removes the
// export.
type gitExport struct {
	// Resolved is the reference resolved to a commit.
	Resolved *gitsource.Resolved
	// Skills are the skills of the tree, each in its exported directory.
	Skills []gitsource.Skill
	// Done removes the exported tree.
	Done func()
}

// exportGit resolves the git reference raw through cache and exports its
// skills. notes, when set, receives the reference's note and the cache's
// warning, prefixed "note: " and "warning: ". Failures of gitsource are
// marked errGit.
func exportGit(ctx context.Context, cache *gitsource.Cache, raw string, notes func(string)) (*gitExport, error) {
	if notes == nil {
		notes = func(string) {}
	}
	ref, err := gitsource.Parse(raw)
	if err != nil {
		return nil, gitErr(err)
	}
	if ref.Note != "" {
		notes("note: " + ref.Note)
	}
	res, err := cache.Resolve(ctx, ref)
	if err != nil {
		return nil, gitErr(err)
	}
	if res.Warning != "" {
		notes("warning: " + res.Warning)
	}
	tmp, err := os.MkdirTemp("", "skillpm-git-")
	if err != nil {
		return nil, err
	}
	done := func() { os.RemoveAll(tmp) }
	skills, err := cache.Export(ctx, res, filepath.Join(tmp, "tree"))
	if err != nil {
		done()
		return nil, gitErr(err)
	}
	return &gitExport{Resolved: res, Skills: skills, Done: done}, nil
}
