package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/pkg/skill"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
)

// DefaultMirrorJobs is how many skills a mirror copies at once when
// MirrorOptions.Jobs is zero.
const DefaultMirrorJobs = 8

// maxInMemoryBlob is the largest blob a copy holds in memory, so that the
// retrying transport can send it again; larger blobs are streamed.
const maxInMemoryBlob = 32 << 20

// smallBlob is the size up to which a blob of a new version is sent
// without checking whether the destination has it.
const smallBlob = 256 << 10

// MirrorOptions controls [Client.Mirror].
type MirrorOptions struct {
	// Names are the skills to copy; empty means every skill the source
	// lists ([Client.SourceNames]).
	Names []string
	// Jobs bounds how many skills are copied at once; 0 means
	// DefaultMirrorJobs.
	Jobs int
	// Verify, when set, verifies every version at the source before it is
	// copied: a version it refuses (no signature verifies for it) or, with
	// MinTier, whose effective tier is lower is not copied. Package
	// registry/policycheck makes one from a trust policy.
	Verify VersionCheck
	// MinTier refuses versions whose effective tier is below it; it needs
	// Verify.
	MinTier skill.Tier
	// Since, when not zero, limits the copy to the versions with something
	// created at or after it: the manifest's or a referrer's
	// org.opencontainers.image.created annotation. A version with no
	// created annotation anywhere is always considered (and skipped by
	// digest when the destination has it).
	Since time.Time
	// OnVersion, when set, is called once per version handled, from the
	// goroutine that handled it (possibly concurrently).
	OnVersion func(MirroredVersion)
}

// Validate reports options Mirror would refuse.
func (o MirrorOptions) Validate() error {
	if o.Jobs < 0 {
		return fmt.Errorf("%w: Jobs must not be negative", ErrInvalidOptions)
	}
	if o.MinTier != "" && !o.MinTier.Valid() {
		return fmt.Errorf("%w: unknown tier %q", ErrInvalidOptions, o.MinTier)
	}
	if o.MinTier != "" && o.Verify == nil {
		return fmt.Errorf("%w: MinTier needs Verify (the tier comes from verified signatures)", ErrInvalidOptions)
	}
	return nil
}

// A VersionCheck vets version (its SemVer tag) of repo, whose manifest is
// m, before [Client.Mirror] copies it, and returns the effective tier it
// vouches for. An error wrapping ErrUnverified refuses the version (the
// tier returned is still reported); any other error fails it.
type VersionCheck func(ctx context.Context, repo *Repository, version string, m *SkillVersion) (skill.Tier, error)

// MirrorStatus is what happened to one version.
type MirrorStatus string

// The outcomes of copying one version.
const (
	// MirrorCopied: the manifest or at least one referrer was copied.
	MirrorCopied MirrorStatus = "copied"
	// MirrorPresent: the destination already held the manifest under its
	// tag and every referrer, by digest; nothing was sent.
	MirrorPresent MirrorStatus = "present"
	// MirrorRefused: verification or the tier floor refused it.
	MirrorRefused MirrorStatus = "refused"
	// MirrorOlder: nothing of it was created since MirrorOptions.Since.
	MirrorOlder MirrorStatus = "older"
	// MirrorFailed: the copy failed; Err says why.
	MirrorFailed MirrorStatus = "failed"
)

// MirroredVersion is the outcome of one version of one skill.
type MirroredVersion struct {
	// Name and Version identify it.
	Name, Version string
	// Digest is the manifest digest, the same at both ends.
	Digest string
	// Status is what happened.
	Status MirrorStatus
	// Referrers is how many referrers (signatures, countersignatures) the
	// version has at the source; ReferrersCopied how many were sent.
	Referrers, ReferrersCopied int
	// BlobsCopied counts the blobs sent (configs and layers, referrers'
	// included).
	BlobsCopied int
	// Tier is the effective tier when verified.
	Tier skill.Tier
	// Err says why it was refused or failed.
	Err error
}

// MirrorResult is what [Client.Mirror] did, version by version, sorted by
// name then version order at the source, and between which sources.
type MirrorResult struct {
	// From is the source mirrored, nil for a copy of pinned versions
	// from their own sources ([Client.CopyPinned]); To the destination.
	From, To Source
	Versions []MirroredVersion
}

// Count returns how many versions ended with status s.
func (r *MirrorResult) Count(s MirrorStatus) int {
	n := 0
	for _, v := range r.Versions {
		if v.Status == s {
			n++
		}
	}
	return n
}

// Err returns the first failure (not refusal), or nil.
func (r *MirrorResult) Err() error {
	for _, v := range r.Versions {
		if v.Status == MirrorFailed {
			return v.Err
		}
	}
	return nil
}

// SourceNames lists the skills src holds: a directory of layouts lists
// its subdirectories, a registry its `_catalog` (the repositories under the
// source's namespace that are skill names; the search index repository is
// left out). A registry without `_catalog` (GHCR, Docker Hub) is
// ErrNoCatalog: name the skills, or read them from a names file.
func (c *Client) SourceNames(ctx context.Context, src Source) ([]string, error) {
	var names []string
	switch s := src.(type) {
	case Names:
		ns, err := s.Names(ctx)
		if err != nil {
			return nil, err
		}
		names = ns
	case *remoteSource:
		ns, err := s.catalog(ctx)
		if err != nil {
			return nil, err
		}
		names = ns
	default:
		return nil, fmt.Errorf("%s: %w", src, ErrNoCatalog)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == IndexRepository })
	sort.Strings(names)
	return slices.Compact(names), nil
}

// catalog reads the registry's _catalog and keeps the repositories
// directly under the namespace.
func (s *remoteSource) catalog(ctx context.Context) ([]string, error) {
	reg, err := remote.NewRegistry(s.host)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidRef, s.host, err)
	}
	reg.Client = s.c.http
	reg.PlainHTTP = s.plain
	prefix := ""
	if s.namespace != "" {
		prefix = s.namespace + "/"
	}
	var names []string
	pg := s.c.pager(s.host, "the repository catalog")
	err = reg.Repositories(ctx, "", func(repos []string) error {
		if err := pg.page(repos); err != nil {
			return err
		}
		for _, r := range repos {
			n, ok := strings.CutPrefix(r, prefix)
			if ok && skill.ValidName(n) {
				names = append(names, n)
			}
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		if errors.Is(err, ErrHostile) {
			return nil, err
		}
		if isNotFound(err) || errors.Is(err, errdef.ErrUnsupported) || strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "403") {
			return nil, fmt.Errorf("%s: %w (%v)", s.spec, ErrNoCatalog, err)
		}
		return nil, &RequestError{Op: "list repositories", Registry: s.host, Err: err}
	}
	return names, nil
}

// Mirror copies skills from src to dst: every version (SemVer tag) with
// its manifest, config, layer and every referrer (signatures,
// countersignatures), byte for byte, so digests and signatures are
// unchanged. What dst already holds is skipped by digest (the version's
// tag resolving to the same manifest, a referrer manifest that exists), so
// a mirror that was interrupted is resumed by running it again. Registries
// with and without the referrers API work both ways: oras-go lists
// referrers through the API or the tag schema, and writes the tag schema
// where the destination has no API.
//
// The error is for options and for sources that cannot be listed; each
// version's outcome, failures included, is in the result.
func (c *Client) Mirror(ctx context.Context, src, dst Source, opts MirrorOptions) (*MirrorResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	names := opts.Names
	if len(names) == 0 {
		var err error
		if names, err = c.SourceNames(ctx, src); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		if !skill.ValidName(n) {
			return nil, fmt.Errorf("%w: %q is not a skill name", ErrInvalidRef, n)
		}
	}
	jobs := opts.Jobs
	if jobs == 0 {
		jobs = DefaultMirrorJobs
	}
	results := make([][]MirroredVersion, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobs)
	for i, name := range names {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = c.mirrorSkill(ctx, src, dst, name, opts)
		}()
	}
	wg.Wait()
	res := &MirrorResult{From: src, To: dst}
	for _, r := range results {
		res.Versions = append(res.Versions, r...)
	}
	return res, ctx.Err()
}

// mirrorSkill copies every version of one skill.
func (c *Client) mirrorSkill(ctx context.Context, src, dst Source, name string, opts MirrorOptions) []MirroredVersion {
	fail := func(err error) []MirroredVersion {
		mv := MirroredVersion{Name: name, Status: MirrorFailed, Err: err}
		if opts.OnVersion != nil {
			opts.OnVersion(mv)
		}
		return []MirroredVersion{mv}
	}
	repo, err := c.Repository(src, name)
	if err != nil {
		return fail(err)
	}
	vs, err := repo.Versions(ctx)
	if err != nil {
		return fail(err)
	}
	cp, err := c.openCopy(ctx, repo, dst)
	if err != nil {
		return fail(err)
	}
	defer cp.release()
	var out []MirroredVersion
	for _, v := range vs {
		if ctx.Err() != nil {
			break
		}
		mv := cp.version(ctx, v.Original(), "", opts)
		if mv.Status == MirrorCopied || mv.Status == MirrorPresent {
			if err := cp.statusTag(ctx, v.Original()); err != nil {
				mv.Status, mv.Err = MirrorFailed, err
			}
		}
		if opts.OnVersion != nil {
			opts.OnVersion(mv)
		}
		out = append(out, mv)
	}
	return out
}

// copier copies versions of one repository to the same name in another
// source. The destination is opened on first write, so that a refused
// skill leaves no trace there (a layout directory is created on open).
type copier struct {
	c      *Client
	repo   *Repository
	src    ReadStorage
	dstSrc Source
	dst    Storage
	dstLoc Location
	done   func()
}

func (c *Client) openCopy(ctx context.Context, repo *Repository, dst Source) (*copier, error) {
	st, err := repo.reader(ctx)
	if err != nil {
		return nil, err
	}
	return &copier{c: c, repo: repo, src: st, dstSrc: dst, dstLoc: dst.Locate(repo.name)}, nil
}

// open opens the destination repository for writing, once.
func (cp *copier) open(ctx context.Context) error {
	if cp.dst != nil {
		return nil
	}
	ds, release, err := cp.dstSrc.OpenWrite(ctx, cp.repo.name)
	if err != nil {
		return cp.dstErr("open", err)
	}
	if rr, ok := ds.(*remote.Repository); ok {
		// As AttachBundle: keep replaced tag-schema indexes rather than
		// deleting them, since many registries refuse deletes.
		rr.SkipReferrersGC = true
	}
	cp.dst, cp.done = ds, release
	return nil
}

// release closes the destination, if it was opened.
func (cp *copier) release() {
	if cp.done != nil {
		cp.done()
		cp.c.forget(cp.dstLoc.String())
	}
}

// version copies one version (by its SemVer tag string). want, when not
// "", is the manifest digest the tag must hold (a lockfile's).
func (cp *copier) version(ctx context.Context, version, want string, opts MirrorOptions) MirroredVersion {
	mv := MirroredVersion{Name: cp.repo.name, Version: version}
	failed := func(err error) MirroredVersion {
		mv.Status, mv.Err = MirrorFailed, err
		return mv
	}
	tag := Tag(version)
	desc, raw, err := cp.fetchTag(ctx, tag)
	if err != nil {
		return failed(err)
	}
	mv.Digest = desc.Digest.String()
	if want != "" && want != mv.Digest {
		return failed(fmt.Errorf("%s@%s: %w: the lock pins %s but the tag now holds %s", cp.repo.loc, version, ErrImmutable, want, mv.Digest))
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return failed(fmt.Errorf("%s@%s: %w: %v", cp.repo.loc, version, ErrInvalidArtifact, err))
	}
	plain := ocispec.Descriptor{MediaType: desc.MediaType, Digest: desc.Digest, Size: desc.Size}
	refs, err := cp.repo.Referrers(ctx, plain, "")
	if err != nil {
		return failed(err)
	}
	mv.Referrers = len(refs)
	if !opts.Since.IsZero() && !cp.changedSince(ctx, m, refs, opts.Since) {
		mv.Status = MirrorOlder
		return mv
	}
	if opts.Verify != nil {
		sm, err := cp.repo.Manifest(ctx, desc)
		if err != nil {
			return failed(err)
		}
		tier, err := opts.Verify(ctx, cp.repo, version, sm)
		mv.Tier = tier
		switch {
		case errors.Is(err, ErrUnverified):
			mv.Status, mv.Err = MirrorRefused, err
			return mv
		case err != nil:
			return failed(err)
		}
		if err := mv.Tier.CheckMin(fmt.Sprintf("%s@%s", cp.repo.loc, version), opts.MinTier); err != nil {
			mv.Status, mv.Err = MirrorRefused, fmt.Errorf("%w: %w", err, ErrUnverified)
			return mv
		}
	}

	if err := cp.open(ctx); err != nil {
		return failed(err)
	}
	copied, fresh := false, false
	have, err := cp.dst.Resolve(ctx, tag)
	switch {
	case err == nil && have.Digest == desc.Digest:
	case err == nil || isNotFound(err):
		fresh = err != nil
		n, err := cp.manifest(ctx, desc, raw, m, tag, fresh)
		mv.BlobsCopied += n
		if err != nil {
			return failed(err)
		}
		copied = true
	default:
		return failed(cp.dstErr("resolve "+tag, err))
	}
	// What the destination already lists as referrers is skipped. A
	// version new to a registry has none there worth a request to find
	// out (pushing one again is harmless). Listing, rather than asking
	// whether each referrer manifest exists, also repairs a copy that was
	// interrupted between pushing a referrer and indexing it under the
	// referrers tag schema: the unlisted referrer is pushed, and indexed,
	// again.
	_, local := cp.dstSrc.(*layoutSource)
	listed := map[digest.Digest]bool{}
	if (!fresh || local) && len(refs) > 0 {
		gs, ok := cp.dst.(content.ReadOnlyGraphStorage)
		if !ok {
			return failed(fmt.Errorf("%s: %w: the destination cannot list referrers", cp.dstLoc, ErrInvalidOptions))
		}
		have, err := orasregistry.Referrers(ctx, gs, plain, "")
		if err != nil {
			return failed(cp.dstErr("list referrers of "+desc.Digest.String(), err))
		}
		for _, h := range have {
			listed[h.Digest] = true
		}
	}
	for _, ref := range refs {
		if listed[ref.Digest] {
			continue
		}
		if ref.Size < 0 || ref.Size > cp.c.opts.Limits.MaxManifestBytes {
			return failed(fmt.Errorf("%s@%s: referrer %s is %d bytes: %w", cp.repo.loc, version, ref.Digest, ref.Size, ErrTooLarge))
		}
		rraw, err := content.FetchAll(ctx, cp.src, ref)
		if err != nil {
			return failed(cp.fetchErr(ref, err))
		}
		var rm ocispec.Manifest
		if err := json.Unmarshal(rraw, &rm); err != nil {
			return failed(fmt.Errorf("%s@%s: referrer %s: %w: %v", cp.repo.loc, version, ref.Digest, ErrInvalidArtifact, err))
		}
		n, err := cp.manifest(ctx, ref, rraw, rm, "", fresh)
		mv.BlobsCopied += n
		if err != nil {
			return failed(err)
		}
		mv.ReferrersCopied++
		copied = true
	}
	mv.Status = MirrorPresent
	if copied {
		mv.Status = MirrorCopied
	}
	return mv
}

// changedSince reports whether the manifest or a referrer was created at
// or after since, or carries no creation time at all.
func (cp *copier) changedSince(ctx context.Context, m ocispec.Manifest, refs []ocispec.Descriptor, since time.Time) bool {
	known := false
	check := func(s string) bool {
		if s == "" {
			return false
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return false
		}
		known = true
		return !t.Before(since)
	}
	if check(m.Annotations[ocispec.AnnotationCreated]) {
		return true
	}
	for _, ref := range refs {
		created, ok := ref.Annotations[ocispec.AnnotationCreated]
		if !ok && ref.Size > 0 && ref.Size <= cp.c.opts.Limits.MaxManifestBytes {
			// Some listings (a layout's) do not carry the annotations.
			if raw, err := content.FetchAll(ctx, cp.src, ref); err == nil {
				var rm ocispec.Manifest
				if json.Unmarshal(raw, &rm) == nil {
					created = rm.Annotations[ocispec.AnnotationCreated]
				}
			}
		}
		if check(created) {
			return true
		}
	}
	return !known
}

// manifest copies the blobs the destination lacks, then the manifest
// (tagged when tag is not ""). It returns how many blobs were sent.
//
// When fresh (the destination did not hold the version's tag), blobs of up
// to smallBlob bytes are sent without asking first: on a registry, asking
// costs a round trip, about what sending a small blob again would; larger
// blobs, and every blob of a layout, are checked first.
func (cp *copier) manifest(ctx context.Context, desc ocispec.Descriptor, raw []byte, m ocispec.Manifest, tag string, fresh bool) (int, error) {
	n := 0
	_, local := cp.dstSrc.(*layoutSource)
	blobs := append([]ocispec.Descriptor{m.Config}, m.Layers...)
	for _, b := range blobs {
		if b.Digest == "" {
			continue
		}
		if !fresh || local || b.Size > smallBlob {
			ok, err := cp.dst.Exists(ctx, b)
			if err != nil {
				return n, cp.dstErr("check blob "+b.Digest.String(), err)
			}
			if ok {
				continue
			}
		}
		if err := cp.blob(ctx, b); err != nil {
			return n, err
		}
		n++
	}
	if tag != "" {
		if rp, ok := cp.dst.(orasregistry.ReferencePusher); ok {
			if err := rp.PushReference(ctx, desc, bytes.NewReader(raw), tag); err != nil {
				return n, cp.dstErr("push manifest "+tag, err)
			}
			return n, nil
		}
	}
	if err := cp.dst.Push(ctx, desc, bytes.NewReader(raw)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return n, cp.dstErr("push manifest "+desc.Digest.String(), err)
	}
	if tag != "" {
		if err := cp.dst.Tag(ctx, desc, tag); err != nil {
			return n, cp.dstErr("tag "+tag, err)
		}
	}
	return n, nil
}

// fetchTag reads the manifest a tag holds at the source, bounded and
// verified against the digest the source states: in one request where the
// source can fetch by reference.
func (cp *copier) fetchTag(ctx context.Context, tag string) (ocispec.Descriptor, []byte, error) {
	max := cp.c.opts.Limits.MaxManifestBytes
	tooLarge := func(d ocispec.Descriptor) error {
		return fmt.Errorf("%s:%s: manifest is %d bytes, more than the %d allowed: %w", cp.repo.loc, tag, d.Size, max, ErrTooLarge)
	}
	if rf, ok := cp.src.(orasregistry.ReferenceFetcher); ok {
		d, rc, err := rf.FetchReference(ctx, tag)
		if err != nil {
			return d, nil, cp.repo.fail("pull manifest "+tag, err)
		}
		defer rc.Close()
		if d.Size < 0 || d.Size > max {
			return d, nil, tooLarge(d)
		}
		raw, err := content.ReadAll(rc, d)
		if err != nil {
			return d, nil, cp.fetchErr(d, err)
		}
		return d, raw, nil
	}
	d, err := cp.src.Resolve(ctx, tag)
	if err != nil {
		return d, nil, cp.repo.fail("resolve "+tag, err)
	}
	if d.Size < 0 || d.Size > max {
		return d, nil, tooLarge(d)
	}
	raw, err := content.FetchAll(ctx, cp.src, d)
	if err != nil {
		return d, nil, cp.fetchErr(d, err)
	}
	return d, raw, nil
}

// blob copies one blob, verified against its digest: in memory when small
// (so a retry can send it again), streamed otherwise. A blob the source
// repository or one this Client already sent it to holds on the same
// registry is mounted from there (one request instead of a download and
// an upload's two) where the registry allows it; where it does not, the
// registry starts an upload and the blob is sent after all.
func (cp *copier) blob(ctx context.Context, b ocispec.Descriptor) error {
	if max := cp.c.opts.Limits.MaxLayerBytes; b.Size < 0 || b.Size > max {
		return fmt.Errorf("%s: blob %s is %d bytes, more than the %d allowed: %w", cp.repo.loc, b.Digest, b.Size, max, ErrTooLarge)
	}
	open := func() (io.ReadCloser, error) {
		switch {
		case b.Digest == ocispec.DescriptorEmptyJSON.Digest && b.Size == ocispec.DescriptorEmptyJSON.Size:
			// The empty config of every signature: its bytes are known.
			return io.NopCloser(bytes.NewReader(ocispec.DescriptorEmptyJSON.Data)), nil
		case b.Size <= maxInMemoryBlob:
			data, err := content.FetchAll(ctx, cp.src, b)
			if err != nil {
				return nil, cp.fetchErr(b, err)
			}
			return io.NopCloser(bytes.NewReader(data)), nil
		}
		rc, err := cp.src.Fetch(ctx, b)
		if err != nil {
			return nil, cp.fetchErr(b, err)
		}
		return struct {
			io.Reader
			io.Closer
		}{content.NewVerifyReader(rc, b), rc}, nil
	}
	host := cp.dstLoc.Registry
	if m, ok := cp.dst.(orasregistry.Mounter); ok {
		from := cp.c.mountable(host, b.Digest, cp.dstLoc.Repository)
		if _, remote := cp.repo.src.(*remoteSource); remote && from == "" && cp.repo.loc.Registry == host && cp.repo.loc.Repository != cp.dstLoc.Repository {
			// A copy within one registry (a promotion between namespaces)
			// mounts every blob from the source repository.
			from = cp.repo.loc.Repository
		}
		if from != "" {
			if err := m.Mount(ctx, b, from, open); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
				return cp.dstErr("mount blob "+b.Digest.String(), err)
			}
			cp.c.sent(host, b.Digest, cp.dstLoc.Repository)
			return nil
		}
	}
	body, err := open()
	if err != nil {
		return err
	}
	defer body.Close()
	if err := cp.dst.Push(ctx, b, body); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return cp.dstErr("push blob "+b.Digest.String(), err)
	}
	cp.c.sent(host, b.Digest, cp.dstLoc.Repository)
	return nil
}

// fetchErr reports a source read; content that does not match its digest
// is a *DigestMismatchError.
func (cp *copier) fetchErr(d ocispec.Descriptor, err error) error {
	if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, content.ErrTrailingData) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &DigestMismatchError{Registry: cp.repo.loc.Registry, Repository: cp.repo.loc.Repository, Digest: d.Digest.String(), Err: err}
	}
	return cp.repo.fail("fetch "+d.Digest.String(), err)
}

func (cp *copier) dstErr(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &RequestError{Op: op, Registry: cp.dstLoc.Registry, Repository: cp.dstLoc.Repository, Err: err}
}
