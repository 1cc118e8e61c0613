package engine

import (
	"context"
	"fmt"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/sign"
)

// refreshSparse re-describes names in src's sparse index after they
// changed (a publish, a signature, a mirror), where src has an index or
// create is set, and signs the new index when opts gives a key. Nothing
// is done without names, without an index, or when no document changed.
//
// Its outcome goes to Options.Log, not to the operation's result or
// error: the skills are in the registry whatever happens to the index,
// and installs read the registry (with a warning) while the index is
// stale or unsigned. A failure or an unsigned index is a warning; the
// index written is a note.
func (e *Engine) refreshSparse(ctx context.Context, src registry.Source, names []string, create bool, opts *sign.SignOptions) {
	if len(names) == 0 {
		return
	}
	res, err := sparse.Update(ctx, e.client, src, sparse.UpdateOptions{Names: names, IfExists: !create})
	if err != nil {
		e.warn(fmt.Sprintf("the sparse index of %s was not updated (installs read the registry until skillpm index build --registry %s): %v", src, src, err))
		return
	}
	if res.Descriptor.Digest == "" || len(res.Changed)+len(res.Removed) == 0 {
		return
	}
	signed := ""
	switch {
	case opts == nil || opts.Key == nil:
		e.warn(fmt.Sprintf("the sparse index %s@%s was updated unsigned: installs ignore it until it is signed (skillpm index build --registry %s --sign)", res.Location, res.Descriptor.Digest, src))
	default:
		repo, err := e.client.Repository(src, sparse.Repository)
		if err == nil {
			_, err = e.signDigest(ctx, repo, res.Descriptor, sparse.Tag, *opts)
		}
		if err != nil {
			e.warn(fmt.Sprintf("the sparse index %s@%s was updated but not signed: %v", res.Location, res.Descriptor.Digest, err))
			return
		}
		signed = ", signed"
	}
	e.note(fmt.Sprintf("updated the sparse index %s:%s (%s%s)", res.Location, sparse.Tag, res.Descriptor.Digest, signed))
}
