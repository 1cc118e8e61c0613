package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/source"
)

// SearchRequest is one search of a source's index.
type SearchRequest struct {
	// Query is the words to look for.
	Query string
	// Limit bounds the hits returned.
	Limit int
	// NoVerify skips verifying the hits and the index under the policy.
	NoVerify bool
	// RequireSignedIndex refuses an index no trusted signature covers.
	RequireSignedIndex bool
}

// Search searches the index of the Engine's source (Options.Source, a
// registry namespace, oci-layout:DIR or "embedded"; else FallbackSource,
// else the embedded registry) as `skillpm search` does: hits and the
// index are verified under the trust policy unless NoVerify, and a source
// on this machine (the embedded registry, a layout directory) without an
// index gets one built first; a remote one is its maintainer's to build
// (registry.ErrNoIndex). An index built here is a note to Options.Log.
func (e *Engine) Search(ctx context.Context, r SearchRequest) (*policycheck.SearchResult, error) {
	if r.RequireSignedIndex && r.NoVerify {
		return nil, invalid(errors.New("requiring a signed index verifies its signatures; it cannot be combined with no verification"))
	}
	src, err := e.openSource(e.opts.Source)
	if err != nil {
		return nil, err
	}
	opts := policycheck.SearchOptions{Limit: r.Limit, RequireSignedIndex: r.RequireSignedIndex}
	if !r.NoVerify {
		policy, trust, err := e.trustPolicy(ctx)
		if err != nil {
			return nil, err
		}
		opts.Verify = &policycheck.VerifyOptions{Trust: trust, Policy: policy}
	}
	res, err := policycheck.Search(ctx, e.client, src, r.Query, opts)
	// A layout's index is built on first search; one built while the
	// layout was empty is built again, so that "holds no skills" is said
	// only of a layout that holds none.
	stale := err == nil && res.Indexed == 0
	if spec, perr := source.Parse(src.String()); (stale || errors.Is(err, registry.ErrNoIndex)) && perr == nil && spec.Kind == source.KindLayout {
		idx, err := e.client.BuildIndex(ctx, src, registry.IndexOptions{})
		if err != nil {
			return nil, err
		}
		if stale && len(idx.Skills) == 0 {
			return res, nil
		}
		if _, err := e.client.PushIndex(ctx, src, idx); err != nil {
			return nil, err
		}
		skills := fmt.Sprintf("%d skills", len(idx.Skills))
		if len(idx.Skills) == 1 {
			skills = "1 skill"
		}
		e.note(fmt.Sprintf("built the search index of %s (%s); skillpm index build --registry %s refreshes it", src, skills, src))
		return policycheck.Search(ctx, e.client, src, r.Query, opts)
	}
	return res, err
}
