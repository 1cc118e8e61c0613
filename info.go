package skillpm

import (
	"context"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
)

// Info is a published version and the versions its repository has.
type Info struct {
	Repository *registry.Repository
	// Manifest is the version the reference selected (its metadata,
	// layer and raw manifest).
	Manifest *registry.Manifest
	// Versions are every version the repository has.
	Versions []*semver.Version
}

// Info fetches what `skillpm info` shows: the version ref selects and
// every version of its repository. Only manifests are read, never layers.
func (e *Engine) Info(ctx context.Context, ref string, pre bool) (*Info, error) {
	repo, m, err := e.Resolve(ctx, ref, pre)
	if err != nil {
		return nil, err
	}
	return e.InfoManifest(ctx, repo, m)
}

// InfoManifest is Info for a version already fetched.
func (e *Engine) InfoManifest(ctx context.Context, repo *registry.Repository, m *registry.Manifest) (*Info, error) {
	vs, err := repo.Versions(ctx)
	if err != nil {
		return nil, err
	}
	return &Info{Repository: repo, Manifest: m, Versions: vs}, nil
}

// Sign signs the version ref selects and attaches the signature, as
// `skillpm sign` does: idempotently for keys (SignDigest).
func (e *Engine) Sign(ctx context.Context, ref string, opts sign.SignOptions, pre bool) (*Signed, error) {
	repo, m, err := e.Resolve(ctx, ref, pre)
	if err != nil {
		return nil, err
	}
	return e.SignDigest(ctx, repo, m.Descriptor, m.Metadata.Version, opts)
}
