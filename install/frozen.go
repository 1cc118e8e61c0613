package install

import (
	"context"
	"fmt"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/resolve"
)

// prefetchLocked starts downloading, by the digests the lock records,
// ls's layer and every referrer manifest and bundle it lists, into the
// content cache: in the same round trip as the manifest, which would
// otherwise have to arrive first to name the layer, and be followed by a
// referrers listing. It returns the lock's referrers, to verify from;
// refsFetched, which returns once their downloads have ended (so that the
// verification reads them from the cache instead of fetching them a
// second time); and wait, which returns once every download has ended
// (the layer's is shared with prepare's own fetch of it). Download errors
// are left to the reads that follow, which fetch again and report them.
func prefetchLocked(ctx context.Context, repo *registry.Repository, ls resolve.LockedSkill) (refs []ocispec.Descriptor, refsFetched, wait func()) {
	var wg, layerWG sync.WaitGroup
	if d, err := digest.Parse(ls.Layer.Digest); err == nil {
		layer := &registry.SkillVersion{OCI: ocispec.Manifest{Layers: []ocispec.Descriptor{{MediaType: registry.LayerMediaType, Digest: d, Size: ls.Layer.Size}}}}
		layerWG.Add(1)
		go func() {
			defer layerWG.Done()
			_ = repo.FetchLayer(ctx, layer)
		}()
	}
	for _, r := range ls.Referrers {
		rd, err := digest.Parse(r.Digest)
		bd, berr := digest.Parse(r.Bundle.Digest)
		if err != nil || berr != nil {
			continue
		}
		ref := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: rd, Size: r.Size}
		refs = append(refs, ref)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = repo.PrefetchReferrer(ctx, ref, ocispec.Descriptor{Digest: bd, Size: r.Bundle.Size})
		}()
	}
	// An empty list is a recorded answer (nothing verified), not "unknown".
	if refs == nil {
		refs = []ocispec.Descriptor{}
	}
	return refs, wg.Wait, func() { wg.Wait(); layerWG.Wait() }
}

// checkLockedLayer refuses a manifest that states another layer than the
// lock records for it: the lock's digest named the manifest, so one of
// the two was edited.
func checkLockedLayer(ls resolve.LockedSkill, m *registry.SkillVersion) error {
	l := m.Layer()
	if l.Digest.String() == ls.Layer.Digest && l.Size == ls.Layer.Size {
		return nil
	}
	return fmt.Errorf("%s@%s: %w: the lock records layer %s (%d bytes), the manifest %s states %s (%d bytes)",
		ls.Name, ls.Version, registry.ErrDigestMismatch, ls.Layer.Digest, ls.Layer.Size, m.Descriptor.Digest, l.Digest, l.Size)
}

// lockedContent returns what a lock records of a verified version for
// install --frozen to fetch by digest: its layer, and the referrers whose
// bundles verified (signatures, and audit attestations that count) with
// the bundle each lists, read from the content cache where verification
// just put them.
func lockedContent(ctx context.Context, repo *registry.Repository, m *registry.SkillVersion, v *policycheck.Verification, av *registry.AuditVerification) (*resolve.LockedBlob, []resolve.LockedReferrer, error) {
	l := m.Layer()
	layer := &resolve.LockedBlob{Digest: l.Digest.String(), Size: l.Size}
	var refs []ocispec.Descriptor
	if v != nil {
		for _, c := range v.Checks {
			if c.Signer != nil {
				refs = append(refs, c.Referrer)
			}
		}
	}
	if av != nil {
		for _, c := range av.Checks {
			if c.Signer != nil {
				refs = append(refs, c.Referrer)
			}
		}
	}
	var out []resolve.LockedReferrer
	seen := map[digest.Digest]bool{}
	for _, ref := range refs {
		if seen[ref.Digest] {
			continue
		}
		seen[ref.Digest] = true
		b, err := repo.ReferrerBundle(ctx, ref)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, resolve.LockedReferrer{Digest: ref.Digest.String(), Size: ref.Size,
			Bundle: resolve.LockedBlob{Digest: b.Digest.String(), Size: b.Size}})
	}
	return layer, out, nil
}
