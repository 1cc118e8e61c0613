package engine

import (
	"context"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/resolve"
)

// AdoptRequest is one adoption: a skill placed in a root by hand or by
// another tool, taken under management.
type AdoptRequest struct {
	// Name is the skill's folder name in each root.
	Name string
	// Target overrides the Engine's Target; with neither, the configured
	// host's (else install.DefaultHost's) user root.
	Target Target
}

// Adoption is what Adopt recorded in one root.
type Adoption struct {
	Root install.Root
	*install.Adopted
}

// Adopt records r.Name in each target root, as `skillpm adopt` does: a
// version published under the name in the source of bare names whose
// files are exactly the folder's, verified under the trust policy, is
// recorded with its digest and tier; anything else is recorded
// experimental, with why (install.Adopt). A failure returns the roots
// adopted so far with it.
func (e *Engine) Adopt(ctx context.Context, r AdoptRequest) ([]Adoption, error) {
	def := e.opts.Host
	if def == "" {
		def = install.DefaultHost
	}
	p, err := placedRoots(e.env, e.target(r.Target), def)
	if err != nil {
		return nil, err
	}
	graph, err := e.graph(&resolve.Manifest{})
	if err != nil {
		return nil, err
	}
	key, err := graph.Namespace().Key(r.Name)
	if err != nil {
		return nil, invalid(err)
	}
	policy, trust, err := e.trustPolicy(ctx)
	if err != nil {
		return nil, err
	}
	opts := install.AdoptOptions{Client: e.client, Repository: graph.Namespace().Repository(key), Policy: policy, Trust: trust, LockWait: e.opts.LockWait}
	var out []Adoption
	for _, root := range p.Roots {
		a, err := install.Adopt(ctx, root.Dir, r.Name, opts)
		if err != nil {
			return out, err
		}
		out = append(out, Adoption{Root: root, Adopted: a})
	}
	return out, nil
}
