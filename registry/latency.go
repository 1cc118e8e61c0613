package registry

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// cachedManifest returns the manifest whose digest is d from memory or
// the content cache, or nil when neither holds it. The cached bytes are
// verified against d before they are parsed, so a manifest asked for by
// digest (a lock's, a receipt's) costs no request once it has been seen,
// not even the HEAD that would tell its size.
func (r *Repository) cachedManifest(ctx context.Context, d digest.Digest) (*SkillVersion, error) {
	p, err := r.c.cache.path(d)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.Mode().IsRegular()) {
		return nil, nil
	}
	if err != nil {
		return nil, nil
	}
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: d, Size: fi.Size()}
	if desc.Size > r.c.opts.Limits.MaxManifestBytes {
		return nil, nil
	}
	f, err := r.c.cache.open(ctx, desc)
	if err != nil || f == nil {
		return nil, err
	}
	f.Close()
	return r.Manifest(ctx, desc)
}

// Pin tells the Client that version of this repository is the manifest
// d, as a lock or an install receipt records it, when that manifest is in
// the content cache: the resolver then reads the version's requirements
// from there instead of asking the registry for the tag. Published
// versions are immutable (a publish of other content under a published
// version is ErrImmutable), so a tag's digest once seen stays true; what
// is installed is still fetched and verified by digest. A manifest not
// cached, or not this skill at that version, pins nothing.
func (r *Repository) Pin(ctx context.Context, version string, d digest.Digest) {
	m, err := r.cachedManifest(ctx, d)
	if err != nil || m == nil || m.Metadata.Name != r.name || m.Metadata.Version != version {
		return
	}
	key := r.loc.String() + ":" + Tag(version)
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if _, ok := r.c.resolved[key]; !ok {
		r.c.resolved[key] = m.Descriptor
	}
}
