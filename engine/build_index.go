package engine

import (
	"context"
	"fmt"
	"os"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/sign"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/source"
)

// BuildIndexRequest is a build of a source's search index and sparse index.
type BuildIndexRequest struct {
	// Names are the skills to index; none means every skill the source
	// lists (a registry without _catalog needs them: registry.ErrNoCatalog).
	// The sparse index then rewrites only their documents.
	Names []string
	// Jobs bounds the skills read at once; 0 means the default.
	Jobs int
	// Sign, when set, signs both indexes (see Engine.Sign).
	Sign *sign.SignOptions
}

// BuildIndexResult is what an index build wrote.
type BuildIndexResult struct {
	// Source is the source indexed; both indexes live in its repository
	// registry.IndexRepository (Source.Locate gives where).
	Source registry.Source
	// Descriptor is the search index's manifest, tagged
	// registry.IndexTag; Skills how many skills it lists.
	Descriptor ocispec.Descriptor
	Skills     int
	// Signed is the search index's signature, when asked for.
	Signed *registry.VersionSignature
	// Sparse is the sparse index written, tagged sparse.Tag.
	Sparse *sparse.UpdateResult
	// SparseSigned is the sparse index's signature, when asked for.
	SparseSigned *registry.VersionSignature
}

// BuildIndex reads every skill of the Engine's source (Options.Source, a
// registry namespace, oci-layout:DIR or "embedded"; else FallbackSource,
// else the embedded registry), or r.Names of it, pushes its
// search index and its sparse index beside it and, when asked, signs
// both (idempotently, as Sign does).
func (e *Engine) BuildIndex(ctx context.Context, r BuildIndexRequest) (*BuildIndexResult, error) {
	src, err := e.openSource(e.opts.Source)
	if err != nil {
		return nil, err
	}
	if src.String() != e.client.Embedded().String() {
		if err := layoutExists(src.String()); err != nil {
			return nil, err
		}
	}
	idx, err := e.client.BuildIndex(ctx, src, registry.IndexOptions{Jobs: r.Jobs, Names: r.Names})
	if err != nil {
		return nil, err
	}
	desc, err := e.client.PushIndex(ctx, src, idx)
	if err != nil {
		return nil, err
	}
	repo, err := e.client.Repository(src, registry.IndexRepository)
	if err != nil {
		return nil, err
	}
	out := &BuildIndexResult{Source: src, Descriptor: desc, Skills: len(idx.Skills)}
	if r.Sign != nil {
		if out.Signed, err = e.signDigest(ctx, repo, desc, registry.IndexTag, *r.Sign); err != nil {
			return out, err
		}
	}
	if out.Sparse, err = sparse.Update(ctx, e.client, src, sparse.UpdateOptions{Names: r.Names, Jobs: r.Jobs}); err != nil {
		return out, err
	}
	if r.Sign != nil {
		if out.SparseSigned, err = e.signDigest(ctx, repo, out.Sparse.Descriptor, sparse.Tag, *r.Sign); err != nil {
			return out, err
		}
	}
	return out, nil
}

// layoutExists refuses a directory of layouts that does not exist (the
// embedded registry aside, which skillpm makes itself): an index
// describes the skills a registry holds, and pushing it would create the
// directory and report an empty registry.
func layoutExists(arg string) error {
	ss, err := source.Parse(arg)
	if err != nil || ss.Kind != source.KindLayout {
		return nil
	}
	if fi, err := os.Stat(ss.Location); err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: %s: %s is not a directory of published skills; publish to it first, or name the registry that holds them", errNoSuchSource, arg, ss.Location)
	}
	return nil
}
