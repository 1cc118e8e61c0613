package registry

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/sign"
	"golang.org/x/sync/errgroup"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
)

// Signatures are OCI referrers of the skill manifest in exactly the layout
// `cosign sign` (v3, new bundle format) writes (artifact.md, Signatures):
//
//	artifactType  application/vnd.dev.sigstore.bundle.v0.3+json
//	config        the empty descriptor {} (application/vnd.oci.empty.v1+json),
//	              its artifactType set to the bundle type, as cosign does
//	layers[0]     the bundle JSON, same media type, titled BundleTitle
//	subject       the skill manifest (mediaType, digest, size)
//	annotations   dev.sigstore.bundle.content, dev.sigstore.bundle.predicateType,
//	              org.opencontainers.image.created
//
// Registries with the referrers API index them themselves; on those without
// it (distribution, GHCR, Docker Hub) oras-go maintains the referrers tag
// schema (an index tagged sha256-<hex>), which cosign reads too. Directories
// of OCI layouts record the referrer in index.json, by digest.

const (
	// BundleTitle is the org.opencontainers.image.title of a signature's
	// bundle layer, so that `oras pull` saves it under a sensible name.
	BundleTitle = "signature.sigstore.json"

	// MaxSignatures bounds how many bundle referrers of one manifest are
	// read, newest first; the rest are reported as unreadable, never
	// silently dropped. It is far above what honest signing attaches, so a
	// flood of junk referrers must be that large to push a real
	// signature out, and reading that many stays bounded work.
	MaxSignatures = 4096
)

// AttachOptions controls [Repository.AttachBundle].
type AttachOptions struct {
	// Created is written as org.opencontainers.image.created, as cosign
	// does; zero means now. The CLI passes SOURCE_DATE_EPOCH when it is set
	// ([SourceDateEpoch]).
	Created time.Time
	// PredicateType is the in-toto predicate type the bundle's statement
	// carries, written as dev.sigstore.bundle.predicateType; "" means
	// sign.PredicateType (a signature). Audit attestations use theirs.
	PredicateType string
}

// AttachSignature attaches a Sigstore bundle that signs subject (a skill
// manifest of this repository) as a referrer in cosign's layout, and
// returns the referrer manifest's descriptor. It does not check what the
// bundle signs: a bundle for another digest is attached as given and never
// verifies for subject.
func (r *Repository) AttachSignature(ctx context.Context, subject ocispec.Descriptor, bundle []byte, opts AttachOptions) (ocispec.Descriptor, error) {
	opts.PredicateType = sign.PredicateType
	return r.AttachBundle(ctx, subject, bundle, opts)
}

// AttachBundle attaches a Sigstore bundle (v0.3, a DSSE envelope of an
// in-toto statement of type opts.PredicateType) to subject as an OCI
// referrer in cosign's layout. Attaching the same bundle with the same
// created time twice is a no-op: the referrer manifest has the same digest.
func (r *Repository) AttachBundle(ctx context.Context, subject ocispec.Descriptor, bundle []byte, opts AttachOptions) (ocispec.Descriptor, error) {
	if subject.MediaType != ocispec.MediaTypeImageManifest {
		return ocispec.Descriptor{}, fmt.Errorf("%s: %w: a signature's subject must be an OCI image manifest, not %q", r.loc, ErrInvalidOptions, subject.MediaType)
	}
	if err := subject.Digest.Validate(); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("%s: %w: subject digest: %v", r.loc, ErrInvalidOptions, err)
	}
	if len(bundle) == 0 || len(bundle) > sign.MaxBundleSize {
		return ocispec.Descriptor{}, fmt.Errorf("%s@%s: %w: a bundle must hold 1 to %d bytes, not %d", r.loc, subject.Digest, ErrTooLarge, sign.MaxBundleSize, len(bundle))
	}
	predicate := opts.PredicateType
	if predicate == "" {
		predicate = sign.PredicateType
	}
	created := opts.Created
	if created.IsZero() {
		created = time.Now()
	}
	annotations := sign.ReferrerAnnotations()
	annotations[sign.AnnotationBundlePredicateType] = predicate
	annotations[ocispec.AnnotationCreated] = created.UTC().Format(time.RFC3339)

	st, release, err := r.src.OpenWrite(ctx, r.name)
	if err != nil {
		return ocispec.Descriptor{}, r.fail("attach signature", err)
	}
	defer release()
	defer r.c.forget(r.loc.String())
	if rr, ok := st.(*remote.Repository); ok {
		// Keep the replaced tag-schema index rather than deleting it, as
		// cosign does: many registries refuse deletes, and a failed delete
		// after a successful attach is not worth failing the command.
		rr.SkipReferrersGC = true
	}
	plain := ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}
	if ok, err := st.Exists(ctx, plain); err != nil {
		return ocispec.Descriptor{}, r.fail("attach signature", err)
	} else if !ok {
		return ocispec.Descriptor{}, fmt.Errorf("%s@%s: cannot attach a signature to a manifest the repository does not hold: %w", r.loc, subject.Digest, ErrNotFound)
	}

	empty := ocispec.DescriptorEmptyJSON
	layer := content.NewDescriptorFromBytes(sign.BundleMediaType, bundle)
	for _, b := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{empty, empty.Data}, {layer, bundle}} {
		if err := pushBlob(ctx, st, b.desc, b.data); err != nil {
			return ocispec.Descriptor{}, r.fail("attach signature", err)
		}
	}
	empty.Data = nil // cosign does not inline the empty config
	empty.ArtifactType = sign.BundleMediaType
	layer.Annotations = map[string]string{ocispec.AnnotationTitle: BundleTitle}
	desc, err := oras.PackManifest(ctx, st, oras.PackManifestVersion1_1, sign.BundleMediaType, oras.PackManifestOptions{
		Subject:             &plain,
		Layers:              []ocispec.Descriptor{layer},
		ConfigDescriptor:    &empty,
		ManifestAnnotations: annotations,
	})
	if err != nil {
		return ocispec.Descriptor{}, r.fail("attach signature", err)
	}
	return desc, nil
}

// pushBlob pushes data as desc unless the target already has it.
func pushBlob(ctx context.Context, st Storage, desc ocispec.Descriptor, data []byte) error {
	ok, err := st.Exists(ctx, desc)
	if err != nil || ok {
		return err
	}
	err = st.Push(ctx, desc, bytes.NewReader(data))
	if errors.Is(err, errdef.ErrAlreadyExists) {
		return nil
	}
	return err
}

// Referrers lists the manifests whose subject is subject, of artifactType
// when it is not "": through the registry's referrers API, else its
// referrers tag schema (oras-go falls back by itself), or an OCI layout's
// index. The list is what the source says; [Repository.Bundles] checks
// every entry.
func (r *Repository) Referrers(ctx context.Context, subject ocispec.Descriptor, artifactType string) ([]ocispec.Descriptor, error) {
	key := "referrers " + r.loc.String() + "@" + subject.Digest.String() + " " + artifactType
	if l, ok := r.c.keptListing(key); ok {
		return l.Descriptors, nil
	}
	st, err := r.reader(ctx)
	if err != nil {
		return nil, err
	}
	gs, ok := st.(content.ReadOnlyGraphStorage)
	if !ok {
		return nil, fmt.Errorf("%s: %w: the source cannot list referrers", r.loc, ErrInvalidOptions)
	}
	plain := ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}
	if plain.MediaType == "" {
		plain.MediaType = ocispec.MediaTypeImageManifest
	}
	var refs []ocispec.Descriptor
	if rr, ok := gs.(*remote.Repository); ok {
		refs, err = r.remoteReferrers(ctx, rr, plain, artifactType)
	} else {
		refs, err = orasregistry.Referrers(ctx, gs, plain, artifactType)
	}
	if err != nil {
		return nil, r.fail("list referrers of "+subject.Digest.String(), err)
	}
	if r.remote() {
		r.c.keepListing(ctx, listing{Key: key, Descriptors: refs})
	}
	return refs, nil
}

// remoteReferrers lists referrers on a registry, learning once per host
// whether it has the referrers API. oras-go learns it once per repository,
// which costs a failed request for every skill on a registry without it.
func (r *Repository) remoteReferrers(ctx context.Context, rr *remote.Repository, subject ocispec.Descriptor, artifactType string) ([]ocispec.Descriptor, error) {
	var gs content.ReadOnlyGraphStorage = rr
	has, known := r.c.referrersAPI(r.loc.Registry)
	if !known {
		// Ask the API alone: it either answers, or says it is not there.
		if err := rr.SetReferrersCapability(true); err != nil {
			return orasregistry.Referrers(ctx, rr, subject, artifactType)
		}
		refs, err := orasregistry.Referrers(ctx, rr, subject, artifactType)
		if err == nil {
			r.c.setReferrersAPI(r.loc.Registry, true)
			return refs, nil
		}
		if !errors.Is(err, errdef.ErrUnsupported) {
			return nil, err
		}
		r.c.setReferrersAPI(r.loc.Registry, false)
		// A fresh repository starts out knowing: the tag schema it is.
		fresh, err := r.reader(ctx)
		if err != nil {
			return nil, err
		}
		var ok bool
		if gs, ok = fresh.(content.ReadOnlyGraphStorage); !ok {
			return nil, fmt.Errorf("%s: %w: the source cannot list referrers", r.loc, ErrInvalidOptions)
		}
	}
	if !has && !r.mayHaveReferrersTag(subject) {
		return nil, nil
	}
	return orasregistry.Referrers(ctx, gs, subject, artifactType)
}

// mayHaveReferrersTag reports whether the referrers tag schema's tag for
// subject may exist: false only when the repository's tag list, already
// read by this Client, lacks it. Installing a set of skills from a
// registry without the referrers API then costs no failed request per
// skill.
func (r *Repository) mayHaveReferrersTag(subject ocispec.Descriptor) bool {
	r.c.mu.Lock()
	tags, ok := r.c.tags[r.loc.String()]
	r.c.mu.Unlock()
	return !ok || slices.Contains(tags, strings.Replace(subject.Digest.String(), ":", "-", 1))
}

// Bundle is one Sigstore bundle attached to a manifest, read and checked
// against its digest.
type Bundle struct {
	// Referrer is the referrer manifest that carries the bundle.
	Referrer ocispec.Descriptor
	// Created is the referrer's org.opencontainers.image.created, as
	// written by whoever attached it (unauthenticated).
	Created string
	// Bundle is the bundle JSON, at most sign.MaxBundleSize bytes.
	Bundle []byte
}

// UnreadableBundle is a referrer that looked like a bundle but could not be
// read as one. It never counts as a signature.
type UnreadableBundle struct {
	// Referrer is the referrer manifest, as the listing described it.
	Referrer ocispec.Descriptor
	// Err says why; it wraps ErrInvalidArtifact, ErrTooLarge, ErrNotFound
	// or ErrDigestMismatch.
	Err error
}

// BundleSet is what [Repository.Bundles] found for one manifest.
type BundleSet struct {
	// Subject is the manifest the bundles are attached to.
	Subject ocispec.Descriptor
	// Bundles are the readable bundles, oldest first (by their created
	// annotation, then referrer digest), so output is stable whatever order
	// the registry lists them in.
	Bundles []Bundle
	// Unreadable are the referrers that could not be read as bundles.
	Unreadable []UnreadableBundle
}

// Raw returns the bundles' JSON in order, as sign.VerifyAll takes them.
func (s *BundleSet) Raw() [][]byte {
	out := make([][]byte, len(s.Bundles))
	for i, b := range s.Bundles {
		out[i] = b.Bundle
	}
	return out
}

// VersionSignature is a signature attached to a published skill version
// by one signing (or found attached already: Unchanged).
type VersionSignature struct {
	// Attached names the version signed, who signed it and the
	// signature's digest.
	Attached
	// Unchanged says the key had signed it already: nothing was attached.
	Unchanged bool `json:"unchanged"`
	// Junk counts referrers posing as signatures that are not readable
	// bundles (someone may be flooding the version).
	Junk int `json:"junkReferrers,omitempty"`
}

// Signatures returns the signature bundles attached to subject: the
// bundle referrers whose predicate type is cosign's signature type (or
// unstated). See [Repository.Bundles].
func (r *Repository) Signatures(ctx context.Context, subject ocispec.Descriptor) (*BundleSet, error) {
	return r.Bundles(ctx, subject, sign.PredicateType)
}

// Bundles returns the Sigstore bundles attached to subject whose referrer
// annotation states predicateType (or states none; the statement itself is
// checked when the bundle is verified). Every referrer manifest and bundle
// is fetched bounded (Limits.MaxManifestBytes, sign.MaxBundleSize) and
// checked against its digest. A referrer that is malformed, too large,
// gone, about another subject or beyond MaxSignatures is listed in
// Unreadable with why; a referrer of another kind (an SBOM, another
// predicate) is left out. The error is for a registry that cannot be read
// at all.
func (r *Repository) Bundles(ctx context.Context, subject ocispec.Descriptor, predicateType string) (*BundleSet, error) {
	refs, err := r.Referrers(ctx, subject, "")
	if err != nil {
		return nil, err
	}
	return r.bundles(ctx, subject, refs, predicateType)
}

// bundles reads the bundles of predicateType among refs, a listing of
// subject's referrers. Referrers of another kind are filtered out from
// the listing alone; the others are read in orderCandidates' order
// (honestly dated and exactly typed first, newest first), several at a
// time, up to MaxSignatures, so that a flood of junk attached before (or
// after, or dated after) a real signature costs bounded work and does
// not hide it.
func (r *Repository) bundles(ctx context.Context, subject ocispec.Descriptor, refs []ocispec.Descriptor, predicateType string) (*BundleSet, error) {
	set := &BundleSet{Subject: subject}
	seen := map[digest.Digest]bool{}
	var cands []ocispec.Descriptor
	for _, ref := range refs {
		if seen[ref.Digest] || !maybeBundle(ref, predicateType) {
			continue
		}
		seen[ref.Digest] = true
		cands = append(cands, ref)
	}
	orderCandidates(cands, predicateType, time.Now())
	if len(cands) > MaxSignatures {
		for _, ref := range cands[MaxSignatures:] {
			set.Unreadable = append(set.Unreadable, UnreadableBundle{Referrer: ref,
				Err: fmt.Errorf("%w: more than %d bundles are attached to %s; this one (dated in the future, listed without its type, or among the oldest) was not read", ErrTooLarge, MaxSignatures, subject.Digest)})
		}
		cands = cands[:MaxSignatures]
	}
	type read struct {
		b    Bundle
		skip bool
		err  error
	}
	got := make([]read, len(cands))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(bundleReaders)
	for i, ref := range cands {
		g.Go(func() error {
			b, skip, err := r.readBundle(gctx, subject, ref, predicateType)
			if err != nil && fatalFetch(err) {
				return err
			}
			got[i] = read{b, skip, err}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, g := range got {
		switch {
		case g.err != nil:
			set.Unreadable = append(set.Unreadable, UnreadableBundle{Referrer: cands[i], Err: g.err})
		case !g.skip:
			set.Bundles = append(set.Bundles, g.b)
		}
	}
	slices.SortFunc(set.Bundles, func(a, b Bundle) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), cmp.Compare(a.Referrer.Digest, b.Referrer.Digest))
	})
	return set, nil
}

// maxCreatedSkew is how far in the future a referrer's created time may
// be before it is taken for what it is: a claim no honest signer makes.
const maxCreatedSkew = 5 * time.Minute

// orderCandidates sorts listed bundle referrers into the order they are
// read in, so that the MaxSignatures bound falls on junk first: referrers
// dated in the future (by more than maxCreatedSkew: no signature was made
// then, and a flood dated there would otherwise sort before every real
// one) go last, then those without a readable date; within each, those
// whose listing states the bundle type and predicate exactly come before
// those read on the benefit of the doubt; then newest first, by digest
// on ties.
func orderCandidates(cands []ocispec.Descriptor, predicateType string, now time.Time) {
	class := func(d ocispec.Descriptor) int {
		c := 0
		t, err := time.Parse(time.RFC3339, d.Annotations[ocispec.AnnotationCreated])
		switch {
		case err != nil:
			c = 2
		case t.After(now.Add(maxCreatedSkew)):
			c = 4
		}
		if d.ArtifactType != sign.BundleMediaType || d.Annotations[sign.AnnotationBundlePredicateType] != predicateType {
			c++
		}
		return c
	}
	slices.SortStableFunc(cands, func(a, b ocispec.Descriptor) int {
		return cmp.Or(cmp.Compare(class(a), class(b)),
			cmp.Compare(b.Annotations[ocispec.AnnotationCreated], a.Annotations[ocispec.AnnotationCreated]),
			cmp.Compare(a.Digest, b.Digest))
	})
}

// bundleReaders bounds the referrers read at once.
const bundleReaders = 8

// maybeBundle reports whether a listed referrer may be a bundle of
// predicateType, from what the listing says. A listing that names the
// config's media type instead of the artifactType (as some registries do)
// is given the benefit of the doubt: the manifest itself decides.
func maybeBundle(ref ocispec.Descriptor, predicateType string) bool {
	if ref.MediaType != "" && ref.MediaType != ocispec.MediaTypeImageManifest {
		return false
	}
	switch ref.ArtifactType {
	case "", sign.BundleMediaType, ocispec.MediaTypeEmptyJSON:
	default:
		return false
	}
	p := ref.Annotations[sign.AnnotationBundlePredicateType]
	return p == "" || p == predicateType
}

// fatalFetch reports whether a fetch error means the source cannot be
// read (the network, a cancelled context) rather than that one referrer is
// bad.
func fatalFetch(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	return errors.Is(err, ErrRegistry) && !errors.Is(err, ErrDigestMismatch)
}

// readBundle fetches one referrer and its bundle. skip is true for a
// referrer that turns out to be something else than a bundle of
// predicateType.
func (r *Repository) readBundle(ctx context.Context, subject, ref ocispec.Descriptor, predicateType string) (Bundle, bool, error) {
	at := fmt.Sprintf("%s@%s: referrer %s", r.loc, subject.Digest, ref.Digest)
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: ref.Digest, Size: ref.Size}
	raw, err := r.fetchBytes(ctx, desc, r.c.opts.Limits.MaxManifestBytes, "signature manifest")
	if err != nil {
		return Bundle{}, false, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return Bundle{}, false, fmt.Errorf("%s: %w: not a manifest: %v", at, ErrInvalidArtifact, err)
	}
	artifactType := cmp.Or(m.ArtifactType, m.Config.MediaType)
	if (m.MediaType != "" && m.MediaType != ocispec.MediaTypeImageManifest) || artifactType != sign.BundleMediaType {
		return Bundle{}, true, nil
	}
	if p := m.Annotations[sign.AnnotationBundlePredicateType]; p != "" && p != predicateType {
		return Bundle{}, true, nil
	}
	if m.Subject == nil || m.Subject.Digest != subject.Digest {
		other := "none"
		if m.Subject != nil {
			other = m.Subject.Digest.String()
		}
		return Bundle{}, false, fmt.Errorf("%s: %w: its subject is %s, not this manifest (a stale or forged referrers index)", at, ErrInvalidArtifact, other)
	}
	if len(m.Layers) != 1 || m.Layers[0].MediaType != sign.BundleMediaType {
		return Bundle{}, false, fmt.Errorf("%s: %w: a signature referrer has exactly one %s layer", at, ErrInvalidArtifact, sign.BundleMediaType)
	}
	layer := m.Layers[0]
	if layer.Size > sign.MaxBundleSize {
		return Bundle{}, false, fmt.Errorf("%s: %w: its bundle is %d bytes, more than the %d allowed", at, ErrTooLarge, layer.Size, sign.MaxBundleSize)
	}
	data, err := r.fetchBytes(ctx, layer, sign.MaxBundleSize, "signature bundle")
	if err != nil {
		return Bundle{}, false, err
	}
	ref.MediaType, ref.ArtifactType = ocispec.MediaTypeImageManifest, artifactType
	ref.Annotations = maps.Clone(m.Annotations)
	return Bundle{Referrer: ref, Created: m.Annotations[ocispec.AnnotationCreated], Bundle: data}, false, nil
}
