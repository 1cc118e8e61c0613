package engine

import (
	"context"

	"github.com/skillpm/skillpm/registry"
)

// SourceNamesRequest names the source whose skills SourceNames lists.
type SourceNamesRequest struct {
	// Source is a registry namespace, oci-layout:DIR or "embedded"; ""
	// means the source of bare names (Options.Source, else
	// FallbackSource, else the embedded registry).
	Source string
}

// SourceNames lists the names of the skills r.Source holds, for a front
// end's completions and "did you mean" hints. A registry that does not
// list its repositories is registry.ErrNoCatalog.
func (e *Engine) SourceNames(ctx context.Context, r SourceNamesRequest) ([]string, error) {
	var src registry.Source
	var err error
	if r.Source == "" {
		src, err = e.openSource(e.opts.Source)
	} else {
		src, err = openSourceArg(e.client, r.Source)
	}
	if err != nil {
		return nil, err
	}
	return e.client.SourceNames(ctx, src)
}
