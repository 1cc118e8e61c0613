package engine

import (
	"context"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/sign"
)

// SparseRefresh is what re-describing skills in a source's sparse index
// did. Neither failure is an operation's error: the skills are in the
// registry, and installs read it (with a warning) while the index is
// stale or unsigned.
type SparseRefresh struct {
	// Source is the source whose index it is.
	Source registry.Source
	// Result is the index written; nil when Err is set.
	Result *sparse.UpdateResult
	// Err is why the index was not updated.
	Err error
	// Signed says the new index was signed with the key given; SignErr
	// why it was not although a key was given. Without a key it is
	// written unsigned, and installs ignore it until it is signed.
	Signed  bool
	SignErr error
}

// RefreshSparse re-describes names in src's sparse index after they
// changed (a publish, a signature), where src has an index or create is
// set, and signs the new index when opts gives a key. It returns nil
// when there was nothing to do: no names, no index, or no document
// changed.
func (e *Engine) RefreshSparse(ctx context.Context, src registry.Source, names []string, create bool, opts *sign.SignOptions) *SparseRefresh {
	if len(names) == 0 {
		return nil
	}
	out := &SparseRefresh{Source: src}
	res, err := sparse.Update(ctx, e.client, src, sparse.UpdateOptions{Names: names, IfExists: !create})
	if err != nil {
		out.Err = err
		return out
	}
	if res.Descriptor.Digest == "" || len(res.Changed)+len(res.Removed) == 0 {
		return nil
	}
	out.Result = res
	if opts == nil || opts.Key == nil {
		return out
	}
	repo, err := e.client.Repository(src, sparse.Repository)
	if err == nil {
		_, err = e.SignDigest(ctx, repo, res.Descriptor, sparse.Tag, *opts)
	}
	out.Signed, out.SignErr = err == nil, err
	return out
}
