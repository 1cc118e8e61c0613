package sparse

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// Catalog answers the resolver from a loaded index for the skills of the
// index's namespace whose documents are loaded, and from next (the
// registry) for every other skill. It records which skills it answered,
// so that an installer knows whose manifests to check against the index.
type Catalog struct {
	ix   *Index
	next resolve.Catalog

	mu     sync.Mutex
	used   map[string]bool
	missed map[string]bool
	pins   map[string]string
}

var _ resolve.Catalog = (*Catalog)(nil)

// Catalog returns the resolver's view of the loaded index over next.
func (ix *Index) Catalog(next resolve.Catalog) *Catalog {
	return &Catalog{ix: ix, next: next, used: map[string]bool{}, missed: map[string]bool{}, pins: map[string]string{}}
}

// Pin records that version of solver name key is known (from a lock or a
// receipt) as the manifest digest: where the index states another digest
// for it, next answers for that version, as it would without an index,
// so that a version republished since it was locked is never taken from
// the index behind the lock's back.
func (c *Catalog) Pin(key, version, digest string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pins[key+"@"+version] = digest
}

// version returns the entry's version v of key, nil when next must answer
// (no entry, not listed, or pinned to another digest).
func (c *Catalog) version(key string, v *semver.Version) (*Entry, *Version) {
	e := c.entry(key)
	if e == nil {
		return nil, nil
	}
	iv := e.Find(v.Original())
	c.mu.Lock()
	pinned, ok := c.pins[key+"@"+v.Original()]
	c.mu.Unlock()
	if iv != nil && ok && pinned != iv.Manifest {
		return nil, nil
	}
	return e, iv
}

// entry returns the loaded entry of solver name key, nil when the index
// does not answer for it.
func (c *Catalog) entry(key string) *Entry {
	src, name := c.next.Namespace().Split(key)
	if src != c.ix.Source {
		return nil
	}
	e := c.ix.Entries[name]
	c.mu.Lock()
	defer c.mu.Unlock()
	if e == nil || e.Doc == nil {
		c.missed[key] = true
		return nil
	}
	c.used[key] = true
	return e
}

// Entry returns the index entry that answered for solver name key, nil
// when the registry did.
func (c *Catalog) Entry(key string) *Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.used[key] {
		return nil
	}
	_, name := c.next.Namespace().Split(key)
	return c.ix.Entries[name]
}

// Missed returns the solver names of the index's namespace that the index
// did not list (or whose documents were not loaded), sorted: the registry
// answered for them.
func (c *Catalog) Missed() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for k := range c.missed {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Namespace returns next's namespace.
func (c *Catalog) Namespace() resolve.Namespace { return c.next.Namespace() }

// Versions returns the versions the index lists, oldest first.
func (c *Catalog) Versions(ctx context.Context, key string) ([]*semver.Version, error) {
	e := c.entry(key)
	if e == nil {
		return c.next.Versions(ctx, key)
	}
	vs := make([]*semver.Version, 0, len(e.Doc.Versions))
	for _, v := range e.Doc.Versions {
		sv, err := semver.StrictNewVersion(v.Version)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: version %q", key, ErrInvalidIndex, v.Version)
		}
		vs = append(vs, sv)
	}
	slices.SortFunc(vs, func(a, b *semver.Version) int { return a.Compare(b) })
	return vs, nil
}

// Dependencies returns the requirements of version v of key, qualified
// like catalog.Registry qualifies them.
func (c *Catalog) Dependencies(ctx context.Context, key string, v *semver.Version) (map[string]string, error) {
	e, iv := c.version(key, v)
	if e == nil {
		return c.next.Dependencies(ctx, key, v)
	}
	if iv == nil {
		return nil, fmt.Errorf("%s@%s: %w: %w", key, v, resolve.ErrNotFound, ErrStale)
	}
	out, err := catalog.QualifyRequires(c.next.Namespace(), key, v, iv.Requires)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidIndex, err)
	}
	return out, nil
}

// Describe returns the manifest digest and tree hash the index states.
func (c *Catalog) Describe(ctx context.Context, key string, v *semver.Version) (resolve.Artifact, error) {
	e, iv := c.version(key, v)
	if e == nil {
		return c.next.Describe(ctx, key, v)
	}
	if iv == nil {
		return resolve.Artifact{}, fmt.Errorf("%s@%s: %w: %w", key, v, resolve.ErrNotFound, ErrStale)
	}
	return resolve.Artifact{Digest: iv.Manifest, Tree: iv.Tree}, nil
}
