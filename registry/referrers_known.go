package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/sign"
)

// knownReferrersDir is the directory of the content cache that holds the
// referrer listings [Repository.RememberReferrers] recorded, one file per
// subject digest. It is beside the blobs, which PruneCache alone manages.
const knownReferrersDir = "referrers"

// maxKnownReferrers bounds a recorded listing read back: a few signatures'
// descriptors take a few KiB.
const maxKnownReferrers = 1 << 20

// knownReferrers is the file a listing is recorded in.
type knownReferrers struct {
	// Repository is the repository the listing was read from; a listing
	// is only used for the same one.
	Repository string `json:"repository"`
	// Referrers are the referrer manifests' descriptors.
	Referrers []ocispec.Descriptor `json:"referrers"`
}

func (r *Repository) knownReferrersPath(subject digest.Digest) (string, error) {
	if err := subject.Validate(); err != nil {
		return "", fmt.Errorf("%w: digest %q: %v", ErrInvalidArtifact, subject, err)
	}
	return filepath.Join(r.c.cache.dir, knownReferrersDir, subject.Algorithm().String(), subject.Encoded()), nil
}

// RememberReferrers records refs, referrers of subject read from this
// repository, in the content cache's directory, so that a later process
// can read them by digest ([Repository.KnownReferrers]) instead of
// listing them again. Content-addressed like the blobs they name: a
// subject with another digest has its own record, and what is recorded
// is only where to look, never whether it verified.
func (r *Repository) RememberReferrers(subject digest.Digest, refs []ocispec.Descriptor) error {
	p, err := r.knownReferrersPath(subject)
	if err != nil {
		return err
	}
	data, err := json.Marshal(knownReferrers{Repository: r.loc.String(), Referrers: refs})
	if err != nil {
		return fmt.Errorf("%s@%s: recording its referrers: %w", r.loc, subject, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("content cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-"+subject.Encoded()+"-*")
	if err != nil {
		return fmt.Errorf("content cache: %w", err)
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), p)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("content cache: %w", werr)
	}
	return nil
}

// KnownReferrers returns the referrers of subject that
// [Repository.RememberReferrers] recorded for this repository; ok is
// false when there is no usable record. The listing is a hint: read it
// with [Repository.SignaturesFrom], which checks every referrer and
// bundle by digest and against subject, and verify what that returns.
func (r *Repository) KnownReferrers(subject digest.Digest) (refs []ocispec.Descriptor, ok bool) {
	p, err := r.knownReferrersPath(subject)
	if err != nil {
		return nil, false
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKnownReferrers+1))
	if err != nil || len(data) > maxKnownReferrers {
		return nil, false
	}
	var k knownReferrers
	if err := json.Unmarshal(data, &k); err != nil || k.Repository != r.loc.String() || len(k.Referrers) == 0 {
		return nil, false
	}
	return k.Referrers, true
}

// SignaturesFrom is [Repository.Signatures] over refs, a listing of
// subject's referrers obtained elsewhere (recorded by
// [Repository.RememberReferrers], or stated by a signed index) instead of
// asking the registry for one. Every referrer and bundle is still read by
// digest, from the content cache when it is there, and checked against
// subject: a listing can leave a signature out, never add one.
func (r *Repository) SignaturesFrom(ctx context.Context, subject ocispec.Descriptor, refs []ocispec.Descriptor) (*BundleSet, error) {
	return r.bundles(ctx, subject, refs, sign.PredicateType)
}

// ReferrerBundle returns the descriptor of the bundle blob that the
// referrer manifest ref lists (its one layer), reading ref by digest: from
// the content cache once a verification has read it. A lock records it so
// that a later install can fetch the bundle in the same round trip as
// the referrer manifest.
func (r *Repository) ReferrerBundle(ctx context.Context, ref ocispec.Descriptor) (ocispec.Descriptor, error) {
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: ref.Digest, Size: ref.Size}
	raw, err := r.fetchBytes(ctx, desc, r.c.opts.Limits.MaxManifestBytes, "signature manifest")
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil || len(m.Layers) != 1 {
		return ocispec.Descriptor{}, fmt.Errorf("%s: referrer %s: %w: not a manifest with one bundle layer", r.loc, ref.Digest, ErrInvalidArtifact)
	}
	return m.Layers[0], nil
}

// PrefetchReferrer puts the referrer manifest ref and the bundle blob it
// names into the content cache, both by digest and at once, each checked
// against its digest and bounded like a read of them. A later
// [Repository.SignaturesFrom] or VerifyWithAuditsFrom over ref then reads
// them from disk, checking what they say.
func (r *Repository) PrefetchReferrer(ctx context.Context, ref, bundle ocispec.Descriptor) error {
	ref = ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: ref.Digest, Size: ref.Size}
	bundle = ocispec.Descriptor{MediaType: sign.BundleMediaType, Digest: bundle.Digest, Size: bundle.Size}
	errc := make(chan error, 1)
	go func() {
		f, err := r.open(ctx, bundle, sign.MaxBundleSize, "signature bundle")
		if err == nil {
			err = f.Close()
		}
		errc <- err
	}()
	f, err := r.open(ctx, ref, r.c.opts.Limits.MaxManifestBytes, "signature manifest")
	if err == nil {
		err = f.Close()
	}
	if berr := <-errc; err == nil {
		err = berr
	}
	return err
}
