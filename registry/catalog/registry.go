// Package catalog is the registry as the resolver sees it: a
// [resolve.Catalog] over a [registry.Client] ([Registry]), fetching ahead of
// the solver ([Registry.Prefetch]), the rule qualifying a version's
// requirements that every catalog shares ([QualifyRequires]), and the copy
// of a lock's skills into a layout ([CopyLock]). It sits above the registry
// client so that the transport does not depend on the resolver.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
)

// Registry is the catalog `skillpm lock` and install resolve against: every source
// a project's skills reach, seen through [registry.Provider] (so it shares
// the Client's caches: tags, tag to digest, and manifests by digest in
// memory and on disk) under the solver names of a [resolve.Namespace].
//
// A bare name is a skill in the namespace's default source; a name with a
// registry or layout in it is looked up there, and "embedded/NAME" in the
// embedded registry. The dependencies of a version come back qualified:
// a bare dependency lives in the namespace of the skill that needs it, so
// a skill from ghcr.io/acme/skills needing "code" gets
// ghcr.io/acme/skills/code and never a "code" from another registry.
//
// A repository that does not exist, or a name that cannot name one, is an
// error wrapping both resolve.ErrNotFound (the solver then explains that
// nothing provides it) and the registry's error. Registry implements
// resolve.Catalog; it is safe for concurrent use.
type Registry struct {
	ns       resolve.Namespace
	def      registry.Provider
	embedded registry.Provider
	// pre, when set by Prefetch, fetches ahead of the solver.
	pre *prefetcher
}

var _ resolve.Catalog = (*Registry)(nil)

// New returns the catalog of namespace ns over c. Nothing is contacted
// until a name is looked up.
func New(c *registry.Client, ns resolve.Namespace) (*Registry, error) {
	var def registry.Source
	if ns.Default != "" && ns.Default != source.Embedded {
		spec, err := source.Parse(ns.Default)
		if err != nil {
			return nil, err
		}
		if def, err = c.OpenSource(spec); err != nil {
			return nil, err
		}
	}
	return &Registry{ns: ns, def: registry.Provider{Client: c, Default: def}, embedded: registry.Provider{Client: c}}, nil
}

// DefaultSource returns the source of the namespace's bare names; nil
// means the embedded registry.
func (g *Registry) DefaultSource() registry.Source { return g.def.Default }

// Namespace returns the namespace of the catalog's names.
func (g *Registry) Namespace() resolve.Namespace { return g.ns }

// route returns the adapter and the name it understands for a solver name.
func (g *Registry) route(key string) (registry.Provider, string) {
	if rest, ok := strings.CutPrefix(key, source.Embedded+"/"); ok && !strings.Contains(rest, "/") {
		return g.embedded, rest
	}
	return g.def, key
}

// notFound makes a missing repository or a name that cannot be one the
// solver's "no versions" rather than a failed solve.
func notFound(err error) error {
	if err != nil && (errors.Is(err, registry.ErrNotFound) || errors.Is(err, registry.ErrInvalidRef)) && !errors.Is(err, resolve.ErrNotFound) {
		return fmt.Errorf("%w: %w", resolve.ErrNotFound, err)
	}
	return err
}

// Versions returns every published version of the skill key names.
func (g *Registry) Versions(ctx context.Context, key string) ([]*semver.Version, error) {
	rs, name := g.route(key)
	vs, err := rs.Versions(ctx, name)
	return vs, notFound(err)
}

// Dependencies returns the requirements of version v of key, by solver
// name. A dependency named twice (a bare name and its full reference)
// gets both ranges.
func (g *Registry) Dependencies(ctx context.Context, key string, v *semver.Version) (map[string]string, error) {
	out, err := g.dependencies(ctx, key, v)
	if p := g.pre; p != nil && err == nil {
		for dep, rng := range out {
			g.warm(p, dep, rng)
		}
	}
	return out, err
}

func (g *Registry) dependencies(ctx context.Context, key string, v *semver.Version) (map[string]string, error) {
	rs, name := g.route(key)
	raw, err := rs.Dependencies(ctx, name, v)
	if err != nil {
		return nil, err
	}
	return QualifyRequires(g.ns, key, v, raw)
}

// QualifyRequires qualifies the requirements of version v of key as the
// solver sees them: each name in ns relative to key (a name that does not
// qualify is left as written, so looking it up fails and rules the version
// out with the name in the explanation), and two ranges for one skill
// joined. Every catalog of skills (the registry, the sparse index) answers
// with it, so they cannot disagree.
func QualifyRequires(ns resolve.Namespace, key string, v *semver.Version, raw map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(raw))
	for dep, rng := range raw {
		q, err := ns.Qualify(key, dep)
		if err != nil {
			q = dep
		}
		if prev, ok := out[q]; ok && prev != rng {
			if strings.Contains(prev, "||") || strings.Contains(rng, "||") {
				return nil, fmt.Errorf("%s@%s: %w: dependency %s is required twice, as %q and %q", key, v, registry.ErrInvalidArtifact, q, prev, rng)
			}
			rng = prev + ", " + rng
		}
		out[q] = rng
	}
	return out, nil
}

// Describe returns the manifest digest and tree hash of version v of key,
// from the manifest alone.
func (g *Registry) Describe(ctx context.Context, key string, v *semver.Version) (resolve.Artifact, error) {
	rs, name := g.route(key)
	r, err := rs.Repository(name)
	if err != nil {
		return resolve.Artifact{}, err
	}
	m, err := r.Metadata(ctx, v)
	if err != nil {
		return resolve.Artifact{}, err
	}
	return resolve.Artifact{Digest: m.Descriptor.Digest.String(), Tree: m.Metadata.Tree}, nil
}
