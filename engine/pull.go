package engine

import (
	"context"

	"github.com/skillpm/skillpm/registry"
)

// PullRequest names a published version Pull unpacks, and where.
type PullRequest struct {
	// Ref names the version, as for Verify.
	Ref string
	// Dir is the directory to create; "" means one named after the skill
	// in the working directory. It must not exist.
	Dir string
}

// Pull unpacks the files of the version r.Ref names into r.Dir, as
// `skillpm pull` does: nothing is installed, verified or recorded; the
// files are checked against the manifest's tree hash, and on any error
// the directory is left absent. The result is the registry's: the
// repository and version pulled, the directory and what it holds.
func (e *Engine) Pull(ctx context.Context, r PullRequest) (*registry.PullResult, error) {
	repo, m, err := e.resolveRef(ctx, r.Ref)
	if err != nil {
		return nil, err
	}
	dir := r.Dir
	if dir == "" {
		dir = repo.Name()
	}
	return repo.Pull(ctx, m, dir, registry.PullOptions{})
}
