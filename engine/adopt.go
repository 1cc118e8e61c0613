package engine

import (
	"context"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/resolve"
)

// AdoptRequest is one adoption: a skill placed in a root by hand or by
// another tool, taken under management.
type AdoptRequest struct {
	// Name is the skill's folder name in each root.
	Name string
}

// AdoptResult is what Adopt recorded, root by root.
type AdoptResult struct {
	Roots []install.Adoption
}

// Adopt records r.Name in each root of the Engine's Target (without one,
// the configured host's, else install.DefaultHost's, user root), as
// `skillpm adopt` does: a version published under the name in the source
// of bare names whose files are exactly the folder's, verified under the
// trust policy, is recorded with its digest and tier; anything else is
// recorded experimental, with why (install.Adopt). The result is never
// nil: on a failure it holds the roots adopted before it.
func (e *Engine) Adopt(ctx context.Context, r AdoptRequest) (*AdoptResult, error) {
	out := &AdoptResult{}
	return out, e.adopt(ctx, r, out)
}

// adopt is Adopt, adding each root's adoption to out as it is done.
func (e *Engine) adopt(ctx context.Context, r AdoptRequest, out *AdoptResult) error {
	p, err := roots.Placed(e.env, e.opts.Target)
	if err != nil {
		return targetErr(err)
	}
	graph, err := e.graph(&resolve.Manifest{})
	if err != nil {
		return err
	}
	key, err := graph.Namespace().Key(r.Name)
	if err != nil {
		return invalid(err)
	}
	policy, trust, err := e.trustPolicy(ctx)
	if err != nil {
		return err
	}
	opts := install.AdoptOptions{Client: e.client, Repository: graph.Namespace().Repository(key), Policy: policy, Trust: trust, LockWait: e.opts.LockWait}
	for _, root := range p.Roots {
		a, err := install.Adopt(ctx, root.Dir, r.Name, opts)
		if err != nil {
			return err
		}
		out.Roots = append(out.Roots, install.Adoption{Root: root, Adopted: a})
	}
	return nil
}
