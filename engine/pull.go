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
	// Prerelease lets a range select pre-releases.
	Prerelease bool
}

// PullResult is a version Pull unpacked: its manifest, what was unpacked and
// whether the files match the tree hash the manifest records.
type PullResult struct {
	*registry.PullResult
	// Repository is the skill's repository.
	Repository *registry.Repository
	// Dir is the directory the files are in.
	Dir string
}

// Pull unpacks the files of the version r.Ref names into r.Dir, as
// `skillpm pull` does: nothing is installed, verified or recorded; the
// files are checked against the manifest's tree hash, and on any error
// the directory is left absent.
func (e *Engine) Pull(ctx context.Context, r PullRequest) (*PullResult, error) {
	repo, m, err := e.resolveRef(ctx, r.Ref, r.Prerelease)
	if err != nil {
		return nil, err
	}
	dir := r.Dir
	if dir == "" {
		dir = repo.Name()
	}
	res, err := repo.Pull(ctx, m, dir, registry.PullOptions{})
	if err != nil {
		return nil, err
	}
	return &PullResult{PullResult: res, Repository: repo, Dir: dir}, nil
}
