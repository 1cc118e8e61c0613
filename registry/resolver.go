package registry

import (
	"context"
	"fmt"
	"maps"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/source"
)

// Provider answers the solver (a resolve.Provider) from a Client:
// versions per name and dependencies per version, read from manifests
// alone (never a layer) and cached by digest in the Client and the content
// cache, so a repeated resolve makes no request for what it has seen.
//
// A name with a registry in it ("ghcr.io/acme/skills/web-research",
// "oci-layout:DIR/x") is looked up there; a bare name in Default. Missing
// skills and versions are errors wrapping ErrNotFound.
type Provider struct {
	// Client does the work.
	Client *Client
	// Default is the source of bare names; nil means the embedded registry.
	Default Source
}

// Repository opens the repository a solver name stands for: a bare name
// in Default, a name with a registry or layout in it there.
func (s Provider) Repository(name string) (*Repository, error) {
	ref, err := source.ParseName(name)
	if err != nil {
		return nil, fmt.Errorf("%w: a dependency name is NAME or REGISTRY/NAMESPACE/NAME, without a version", err)
	}
	return s.Client.OpenRef(ref, s.Default)
}

// Versions returns every published version of name, oldest first,
// pre-releases included (the resolver decides whether it wants them).
func (s Provider) Versions(ctx context.Context, name string) ([]*semver.Version, error) {
	r, err := s.Repository(name)
	if err != nil {
		return nil, err
	}
	return r.Versions(ctx)
}

// Dependencies returns the ranges version v of name requires, by
// dependency name, from its manifest's dev.skillpm.skill.requires
// annotation. The map is the caller's to keep.
func (s Provider) Dependencies(ctx context.Context, name string, v *semver.Version) (map[string]string, error) {
	r, err := s.Repository(name)
	if err != nil {
		return nil, err
	}
	m, err := r.Metadata(ctx, v)
	if err != nil {
		return nil, err
	}
	return maps.Clone(m.Metadata.Requires), nil
}
