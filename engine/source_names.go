package engine

import (
	"context"
)

// SourceNamesRequest names the source whose skills SourceNames lists.
type SourceNamesRequest struct {
	// Source is a registry namespace, oci-layout:DIR or "embedded"; ""
	// means the source of bare names (Options.Source, else
	// FallbackSource, else the embedded registry).
	Source string
}

// SourceNamesResult is what SourceNames lists.
type SourceNamesResult struct {
	Names []string
}

// SourceNames lists the names of the skills r.Source holds, for a front
// end's completions and "did you mean" hints. A registry that does not
// list its repositories is registry.ErrNoCatalog.
func (e *Engine) SourceNames(ctx context.Context, r SourceNamesRequest) (*SourceNamesResult, error) {
	src, err := e.sourceArg(r.Source)
	if err != nil {
		return nil, err
	}
	names, err := e.client.SourceNames(ctx, src)
	if err != nil {
		return nil, err
	}
	return &SourceNamesResult{Names: names}, nil
}
