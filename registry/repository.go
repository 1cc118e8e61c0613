package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/source"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// Repository is one skill's repository in a source.
type Repository struct {
	c    *Client
	src  Source
	name string
	loc  Location
}

// Repository returns the repository of skill name in src. Nothing is
// contacted until a method needs it.
func (c *Client) Repository(src Source, name string) (*Repository, error) {
	if !skill.ValidName(name) {
		return nil, fmt.Errorf("%w: %q is not a skill name", ErrInvalidRef, name)
	}
	return &Repository{c: c, src: src, name: name, loc: src.Locate(name)}, nil
}

// OpenRef returns the repository a reference names; def is the source for
// bare names (nil: the embedded registry).
func (c *Client) OpenRef(ref source.Ref, def Source) (*Repository, error) {
	src, err := c.SourceFor(ref, def)
	if err != nil {
		return nil, err
	}
	return c.Repository(src, ref.Name)
}

// Name returns the skill name.
func (r *Repository) Name() string { return r.name }

// Source returns the source holding the repository.
func (r *Repository) Source() Source { return r.src }

// Location returns where the repository is.
func (r *Repository) Location() Location { return r.loc }

// fail turns an oras-go or I/O error into this package's: ErrNotFound for
// missing things, ErrUnauthorized for refused credentials, a
// *RequestError for the rest. Context errors pass through.
func (r *Repository) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var be *BudgetError
	if errors.As(err, &be) {
		return be
	}
	var ne *NetError
	var re *RequestError
	if errors.As(err, &ne) && !errors.As(err, &re) {
		return &RequestError{Op: op, Registry: r.loc.Registry, Repository: r.loc.Repository, Err: ne}
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrRegistry) || errors.Is(err, ErrInvalidRef) || errors.Is(err, ErrHostile) {
		return err
	}
	if errors.Is(err, errdef.ErrNotFound) {
		return fmt.Errorf("%s: %s: %w", op, r.loc, ErrNotFound)
	}
	if strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") && !errors.Is(err, ErrServerPlainHTTP) {
		err = fmt.Errorf("%w: %w", ErrServerPlainHTTP, err)
	}
	if errors.Is(err, auth.ErrBasicCredentialNotFound) {
		err = &AuthError{Registry: r.loc.Registry, Repository: r.loc.Repository, Status: http.StatusUnauthorized, Err: err}
	}
	var er *errcode.ErrorResponse
	if errors.As(err, &er) {
		switch er.StatusCode {
		case http.StatusNotFound:
			return fmt.Errorf("%s: %s: %w", op, r.loc, ErrNotFound)
		case http.StatusTooManyRequests, http.StatusRequestTimeout:
			err = statusError(er)
		case http.StatusUnauthorized, http.StatusForbidden:
			ae := &AuthError{Registry: r.loc.Registry, Repository: r.loc.Repository, Status: er.StatusCode, Method: er.Method, Err: err}
			if er.URL != nil {
				ae.Path = er.URL.Path
			}
			cred, cerr := r.c.credential(context.Background(), r.loc.Registry)
			ae.Stored = cerr == nil && cred != auth.EmptyCredential
			err = ae
		default:
			if er.StatusCode >= 500 {
				err = statusError(er)
			}
		}
	}
	return &RequestError{Op: op, Registry: r.loc.Registry, Repository: r.loc.Repository, Err: err}
}

// remote reports whether r is on a registry (not a layout directory,
// which needs no listing kept: it is read offline as it is).
func (r *Repository) remote() bool {
	_, ok := r.src.(*remoteSource)
	return ok
}

func (r *Repository) reader(ctx context.Context) (ReadStorage, error) {
	st, err := r.src.OpenRead(ctx, r.name)
	return st, r.fail("open", err)
}

// Tags lists the repository's tags, once per Client: later calls answer
// from memory until a publish through the Client changes them.
func (r *Repository) Tags(ctx context.Context) ([]string, error) {
	key := r.loc.String()
	r.c.mu.Lock()
	tags, ok := r.c.tags[key]
	r.c.mu.Unlock()
	if ok {
		return tags, nil
	}
	v, err := r.c.shared(ctx, "tags "+key, func(ctx context.Context) (any, error) {
		if l, ok := r.c.keptListing("tags " + key); ok {
			r.c.mu.Lock()
			r.c.tags[key] = l.Tags
			r.c.mu.Unlock()
			return l.Tags, nil
		}
		st, err := r.reader(ctx)
		if err != nil {
			return nil, err
		}
		tags := []string{}
		pg := r.c.pager(r.loc.Registry, "the tag list of "+r.loc.Repository)
		err = st.Tags(ctx, "", func(page []string) error {
			tags = append(tags, page...)
			return pg.page(page)
		})
		if err != nil {
			return nil, r.fail("list tags", err)
		}
		if r.remote() {
			r.c.keepListing(ctx, listing{Key: "tags " + key, Tags: tags})
		}
		r.c.mu.Lock()
		r.c.tags[key] = tags
		r.c.mu.Unlock()
		return tags, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]string), nil
}

// Versions returns every published version, oldest first: the tags that
// parse as strict SemVer ("_" read as "+"), pre-releases included. Other
// tags are ignored.
func (r *Repository) Versions(ctx context.Context) ([]*semver.Version, error) {
	tags, err := r.Tags(ctx)
	if err != nil {
		return nil, err
	}
	vs := make([]*semver.Version, 0, len(tags))
	for _, t := range tags {
		if v := VersionFromTag(t); v != nil {
			vs = append(vs, v)
		}
	}
	slices.SortFunc(vs, func(a, b *semver.Version) int { return a.Compare(b) })
	return vs, nil
}

// Resolved is a selector resolved to a manifest.
type Resolved struct {
	// Version is the version picked; nil when resolved by digest (read it
	// from the manifest's Metadata).
	Version *semver.Version
	// Descriptor describes the manifest.
	Descriptor ocispec.Descriptor
}

// Resolve picks the manifest a selector names: an exact version's tag, the
// newest version a range allows, the newest release, or a digest.
// Pre-releases are candidates only when the range names one or pre is
// true. Nothing matching is ErrNotFound, with the versions available.
func (r *Repository) Resolve(ctx context.Context, sel source.Selector, pre bool) (Resolved, error) {
	if sel.Kind == source.SelectDigest {
		st, err := r.reader(ctx)
		if err != nil {
			return Resolved{}, err
		}
		d, err := st.Resolve(ctx, sel.Digest.String())
		if err != nil {
			return Resolved{}, r.fail("resolve "+sel.Digest.String(), err)
		}
		return Resolved{Descriptor: d}, nil
	}
	v, err := r.pick(ctx, sel, pre)
	if err != nil {
		return Resolved{}, err
	}
	d, err := r.resolveTag(ctx, Tag(v.Original()))
	if errors.Is(err, ErrNotFound) {
		return Resolved{}, r.noMatch(ctx, v.String())
	}
	return Resolved{Version: v, Descriptor: d}, err
}

// pick returns the version a (non-digest) selector names. An exact version
// needs no request; a range or the newest release needs the tag list.
func (r *Repository) pick(ctx context.Context, sel source.Selector, pre bool) (*semver.Version, error) {
	if sel.Kind == source.SelectVersion {
		return sel.Version, nil
	}
	vs, err := r.Versions(ctx)
	if err != nil {
		return nil, err
	}
	for _, v := range slices.Backward(vs) {
		if sel.Kind == source.SelectRange {
			cs := *sel.Range
			cs.IncludePrerelease = pre
			if !cs.Check(v) {
				continue
			}
		} else if v.Prerelease() != "" && !pre {
			continue
		}
		return v, nil
	}
	what := sel.Raw
	if sel.Kind == source.SelectLatest {
		what = "a release"
	}
	return nil, r.noMatch(ctx, what)
}

func (r *Repository) noMatch(ctx context.Context, what string) error {
	vs, err := r.Versions(ctx)
	if err != nil {
		return err
	}
	if len(vs) == 0 {
		return fmt.Errorf("%s: no version published: %w", r.loc, ErrNotFound)
	}
	avail := make([]string, len(vs))
	for i, v := range vs {
		avail[i] = v.String()
	}
	return fmt.Errorf("%s: no version matches %s (available: %s): %w", r.loc, what, strings.Join(avail, ", "), ErrNotFound)
}

// resolveTag returns the manifest descriptor of a tag, asking once per
// Client: published versions are immutable.
func (r *Repository) resolveTag(ctx context.Context, tag string) (ocispec.Descriptor, error) {
	key := r.loc.String() + ":" + tag
	r.c.mu.Lock()
	d, ok := r.c.resolved[key]
	r.c.mu.Unlock()
	if ok {
		return d, nil
	}
	if l, ok := r.c.keptListing("tag " + key); ok && len(l.Descriptors) == 1 {
		return l.Descriptors[0], nil
	}
	st, err := r.reader(ctx)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	d, err = st.Resolve(ctx, tag)
	if err != nil {
		return ocispec.Descriptor{}, r.fail("resolve "+tag, err)
	}
	if r.remote() {
		r.c.keepListing(ctx, listing{Key: "tag " + key, Descriptors: []ocispec.Descriptor{d}})
	}
	r.c.mu.Lock()
	r.c.resolved[key] = d
	r.c.mu.Unlock()
	return d, nil
}

// Manifest fetches, verifies and parses the skill manifest desc describes,
// answering from memory or the content cache when it has been seen. A
// manifest missing skillpm's annotations (pushed by another tool) gets
// them from its config blob; the layer is never fetched.
func (r *Repository) Manifest(ctx context.Context, desc ocispec.Descriptor) (*SkillVersion, error) {
	r.c.mu.Lock()
	m, ok := r.c.manifests[desc.Digest]
	r.c.mu.Unlock()
	if ok {
		return m, nil
	}
	if desc.MediaType != "" && desc.MediaType != ocispec.MediaTypeImageManifest {
		return nil, fmt.Errorf("%s@%s: %w: it is a %s", r.loc, desc.Digest, ErrNotSkill, desc.MediaType)
	}
	data, err := r.fetchBytes(ctx, desc, r.c.opts.Limits.MaxManifestBytes, "manifest")
	if err != nil {
		return nil, err
	}
	desc.MediaType = ocispec.MediaTypeImageManifest
	m, need, err := parseManifest(r.loc, desc, data)
	if err != nil {
		return nil, err
	}
	m.Descriptor.ArtifactType = m.OCI.ArtifactType
	if len(need) > 0 {
		cfg, err := r.fetchBytes(ctx, m.OCI.Config, r.c.opts.Limits.MaxConfigBytes, "config")
		if err != nil {
			return nil, err
		}
		cm, err := parseConfig(fmt.Sprintf("%s@%s", r.loc, desc.Digest), cfg)
		if err != nil {
			return nil, err
		}
		m.Metadata.fill(cm, need)
	}
	r.c.mu.Lock()
	r.c.manifests[desc.Digest] = m
	r.c.mu.Unlock()
	return m, nil
}

// Metadata returns the manifest of version v: what the resolver reads.
func (r *Repository) Metadata(ctx context.Context, v *semver.Version) (*SkillVersion, error) {
	return r.Get(ctx, source.Selector{Kind: source.SelectVersion, Version: v, Raw: v.Original()}, true)
}

// Get resolves sel (see Resolve) and returns the manifest, checked to
// describe this repository's skill at the version its tag names: a
// manifest claiming another name or version is ErrInvalidArtifact, since
// trusting it would let one skill pass for another. Against a registry,
// a tag not seen before costs one GET (manifest by tag), not a HEAD and a
// GET.
func (r *Repository) Get(ctx context.Context, sel source.Selector, pre bool) (*SkillVersion, error) {
	var (
		m   *SkillVersion
		v   *semver.Version
		err error
	)
	if sel.Kind == source.SelectDigest {
		// A manifest already read (while resolving, say) needs no request.
		r.c.mu.Lock()
		m = r.c.manifests[sel.Digest]
		r.c.mu.Unlock()
		if m == nil {
			// Nor does one in the content cache.
			if m, err = r.cachedManifest(ctx, sel.Digest); err != nil {
				return nil, err
			}
		}
		if m == nil {
			// One GET by digest, not a HEAD then a GET: the bytes are
			// checked against the digest asked for as they are cached.
			if m, err = r.manifestByTag(ctx, sel.Digest.String()); err != nil {
				return nil, err
			}
			if m.Descriptor.Digest != sel.Digest {
				return nil, &DigestMismatchError{Registry: r.loc.Registry, Repository: r.loc.Repository, Digest: sel.Digest.String(),
					Err: fmt.Errorf("the registry answered with manifest %s", m.Descriptor.Digest)}
			}
		}
	} else {
		if v, err = r.pick(ctx, sel, pre); err != nil {
			return nil, err
		}
		m, err = r.manifestByTag(ctx, Tag(v.Original()))
		if errors.Is(err, ErrNotFound) {
			return nil, r.noMatch(ctx, v.String())
		}
		if err != nil {
			return nil, err
		}
	}
	md := m.Metadata
	at := fmt.Sprintf("%s@%s", r.loc, m.Descriptor.Digest)
	if md.Name != r.name {
		return nil, fmt.Errorf("%s: %w: the manifest is for skill %q, not %q", at, ErrInvalidArtifact, md.Name, r.name)
	}
	if v != nil {
		mv, err := semver.StrictNewVersion(md.Version)
		if err != nil || !mv.Equal(v) || mv.Metadata() != v.Metadata() {
			return nil, fmt.Errorf("%s: %w: tag %s holds a manifest for version %q", at, ErrInvalidArtifact, Tag(v.Original()), md.Version)
		}
	}
	return m, nil
}

// manifestByTag returns the manifest a tag names. When the tag is new to
// the Client and the storage can fetch by reference, the manifest comes
// with its descriptor in one request, verified against the digest the
// registry states for it.
func (r *Repository) manifestByTag(ctx context.Context, tag string) (*SkillVersion, error) {
	key := r.loc.String() + ":" + tag
	r.c.mu.Lock()
	d, ok := r.c.resolved[key]
	r.c.mu.Unlock()
	if ok {
		return r.Manifest(ctx, d)
	}
	v, err := r.c.shared(ctx, "tag "+key, func(ctx context.Context) (any, error) {
		if l, ok := r.c.keptListing("tag " + key); ok && len(l.Descriptors) == 1 {
			return l.Descriptors[0], nil
		}
		d, err := r.fetchTag(ctx, tag)
		if err != nil {
			return nil, err
		}
		if r.remote() {
			r.c.keepListing(ctx, listing{Key: "tag " + key, Descriptors: []ocispec.Descriptor{d}})
		}
		r.c.mu.Lock()
		r.c.resolved[key] = d
		r.c.mu.Unlock()
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	return r.Manifest(ctx, v.(ocispec.Descriptor))
}

// fetchTag resolves tag and stores its manifest in the content cache.
func (r *Repository) fetchTag(ctx context.Context, tag string) (ocispec.Descriptor, error) {
	st, err := r.reader(ctx)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	rf, ok := st.(orasregistry.ReferenceFetcher)
	if !ok {
		return r.resolveTag(ctx, tag)
	}
	for attempt := 0; ; attempt++ {
		d, rc, err := rf.FetchReference(ctx, tag)
		if err != nil {
			return ocispec.Descriptor{}, r.fail("pull manifest "+tag, err)
		}
		if max := r.c.opts.Limits.MaxManifestBytes; d.Size < 0 || d.Size > max {
			rc.Close()
			return ocispec.Descriptor{}, fmt.Errorf("%s: manifest %s is %d bytes, more than the %d allowed: %w", r.loc, tag, d.Size, max, ErrTooLarge)
		}
		f, err := r.c.cache.put(ctx, d, rc)
		rc.Close()
		if err == nil {
			f.Close()
			return d, nil
		}
		if err := r.retryFetch(ctx, attempt, d, "manifest", err); err != nil {
			return ocispec.Descriptor{}, err
		}
	}
}

// Config returns the manifest's config blob: the frontmatter's canonical
// JSON.
func (r *Repository) Config(ctx context.Context, m *SkillVersion) ([]byte, error) {
	return r.fetchBytes(ctx, m.OCI.Config, r.c.opts.Limits.MaxConfigBytes, "config")
}

func (r *Repository) fetchBytes(ctx context.Context, desc ocispec.Descriptor, max int64, kind string) ([]byte, error) {
	f, err := r.open(ctx, desc, max, kind)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, desc.Size))
}

// FetchLayer makes sure m's layer is in the content cache, verified,
// without unpacking it: an installer downloads while it verifies
// signatures, and Pull then reads from disk.
func (r *Repository) FetchLayer(ctx context.Context, m *SkillVersion) error {
	// A prefetch and the installer asking for the same layer share one
	// download.
	_, err := r.c.shared(ctx, "layer "+r.loc.String()+"@"+m.Layer().Digest.String(), func(ctx context.Context) (any, error) {
		f, err := r.open(ctx, m.Layer(), r.c.opts.Limits.MaxLayerBytes, "layer")
		if err != nil {
			return nil, err
		}
		return nil, f.Close()
	})
	return err
}

// open returns desc's content from the content cache, verified and open
// at its start, fetching it first when it is not there. A transfer that
// fails midway (connection reset, stall) starts again, within the retry
// policy; content that does not match its digest is a
// *DigestMismatchError at once.
func (r *Repository) open(ctx context.Context, desc ocispec.Descriptor, max int64, kind string) (*os.File, error) {
	if desc.Size < 0 || desc.Size > max {
		return nil, fmt.Errorf("%s: %s %s is %d bytes, more than the %d allowed: %w", r.loc, kind, desc.Digest, desc.Size, max, ErrTooLarge)
	}
	progress := Progress{Op: "pull", Location: r.loc, Descriptor: desc, Title: blobTitle(desc, kind)}
	// Pulls report the layer only: manifests and configs are a few KiB.
	fn := r.c.opts.Progress
	if kind != "layer" {
		fn = nil
	}
	if f, err := r.c.cache.open(ctx, desc); err != nil {
		return nil, err
	} else if f != nil {
		report(fn, progress, ProgressSkipped, desc.Size)
		return f, nil
	}
	// Mirrors first, in the order configured, then the registry itself,
	// as containerd and Docker use theirs: each copy is verified by digest
	// as it lands, so one that fails or serves other bytes is passed over.
	// A mirror is a second chance, not the source: it is asked once, with
	// no retry, resume or backoff, so that a failing one costs one request
	// per blob (TUF's rule: never wait on a mirror) and the registry, with
	// the whole retry policy, is next.
	var passed []error
	for _, m := range r.mirrors() {
		f, err := m.fetch(withoutRetries(ctx), desc, kind, fn, progress)
		if err == nil {
			return f, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.c.logMirror(ctx, m, desc, kind, err)
		passed = append(passed, err)
	}
	f, err := r.fetch(ctx, desc, kind, fn, progress)
	if err != nil && len(passed) > 0 {
		return nil, &MirrorsError{Err: err, Mirrors: passed}
	}
	return f, err
}

// fetch downloads desc from this repository into the content cache (see
// open).
func (r *Repository) fetch(ctx context.Context, desc ocispec.Descriptor, kind string, fn ProgressFunc, progress Progress) (*os.File, error) {
	st, err := r.reader(ctx)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		rc, err := st.Fetch(ctx, desc)
		if err != nil && strings.HasSuffix(err.Error(), "mismatch Content-Length") {
			// oras-go's words for a body announced at another size than
			// the descriptor's: padded or cut, it is not this blob.
			return nil, &DigestMismatchError{Registry: r.loc.Registry, Repository: r.loc.Repository, Digest: desc.Digest.String(),
				Err: fmt.Errorf("the registry announced a Content-Length other than its %d bytes", desc.Size)}
		}
		if err != nil {
			return nil, r.fail("pull "+kind+" "+desc.Digest.String(), err)
		}
		rr := &resumeReader{ctx: ctx, r: r, rc: rc}
		f, err := r.c.cache.put(ctx, desc, track(rr, fn, progress))
		rr.Close()
		if err == nil {
			report(fn, progress, ProgressDone, desc.Size)
			return f, nil
		}
		if err := r.retryFetch(ctx, attempt, desc, kind, err); err != nil {
			return nil, err
		}
	}
}

// retryFetch decides what a failed transfer of desc means: nil to try
// again (after the backoff), else the error to return. Content that does
// not match its digest is never retried; nor is anything read from a
// local layout, where a short or bad blob is corruption, not weather.
func (r *Repository) retryFetch(ctx context.Context, attempt int, desc ocispec.Descriptor, kind string, err error) error {
	_, local := r.src.(*layoutSource)
	var ve *verifyError
	if errors.As(err, &ve) || (local && ctx.Err() == nil) {
		return &DigestMismatchError{Registry: r.loc.Registry, Repository: r.loc.Repository, Digest: desc.Digest.String(), Err: err}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	pol := r.c.opts.Retry
	if !isTransient(err) || attempt >= pol.retries(ctx) {
		var ne *NetError
		if !errors.As(err, &ne) && isTransient(err) {
			// A body cut midway: the error is the socket's; the
			// message names the registry and the request instead.
			err = &NetError{Kind: KindReset, Registry: r.loc.Registry, Method: http.MethodGet,
				Path: "/v2/" + r.loc.Repository + "/blobs/" + desc.Digest.String(), Err: err}
		}
		return r.fail("pull "+kind+" "+desc.Digest.String(), err)
	}
	return sleep(ctx, pol.backoff(attempt))
}

// PullOptions controls [Repository.Pull].
type PullOptions struct {
	// Limits bound the unpacked tree; zero means archive.DefaultLimits.
	Limits archive.Limits
}

// PullResult describes a pulled skill.
type PullResult struct {
	// Location is the repository pulled from; Version the skill version
	// pulled.
	Location Location
	Version  *SkillVersion
	// Dir is the directory the files were unpacked into.
	Dir string
	// Summary is what was unpacked, tree hash included.
	Summary archive.Summary
	// TreeVerified is true when the manifest carried a tree hash and the
	// unpacked files match it; false when it carried none.
	TreeVerified bool
}

// Pull fetches m's layer into the content cache and unpacks it into dest
// (which must not exist; its parent is created) with the bounded, safe unpacker, then checks the
// tree hash against the manifest's dev.skillpm.skill.tree annotation. On
// any error dest is left absent.
func (r *Repository) Pull(ctx context.Context, m *SkillVersion, dest string, opts PullOptions) (*PullResult, error) {
	layer := m.Layer()
	f, err := r.open(ctx, layer, r.c.opts.Limits.MaxLayerBytes, "layer")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return nil, err
	}
	sum, err := archive.Unpack(ctx, f, dest, opts.Limits)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: unpacking: %w", r.loc, m.Metadata.Version, err)
	}
	res := &PullResult{Location: r.loc, Version: m, Dir: dest, Summary: sum}
	if tree := m.Metadata.Tree; tree != "" {
		if sum.TreeHash != tree {
			os.RemoveAll(dest)
			return nil, fmt.Errorf("%s@%s: %w: manifest says %s, files hash to %s", r.loc, m.Metadata.Version, ErrTreeMismatch, tree, sum.TreeHash)
		}
		res.TreeVerified = true
	}
	return res, nil
}

// PublishOptions controls [Client.Publish].
type PublishOptions struct {
	// Force overwrites a version already published with another digest.
	// Meant for private registries; the result says what was replaced.
	Force bool
}

// PublishResult describes a publish.
type PublishResult struct {
	// Location is the repository.
	Location Location
	// Tag is the version's tag.
	Tag string
	// Descriptor describes the published manifest.
	Descriptor ocispec.Descriptor
	// Unchanged is true when the same digest was already published under
	// the tag: nothing was pushed.
	Unchanged bool
	// Replaced is the manifest a forced publish overwrote, nil otherwise.
	Replaced *ocispec.Descriptor
}

// Publish pushes a built artifact to src under its version's tag. The
// artifact's annotations must be the ones Build generates from its
// content (a *ContentMismatchError otherwise): they are never passed in. A
// version already published with the same digest is a no-op; with another
// digest it is an *ImmutableError unless opts.Force. Blobs the target
// already has are not sent again. A version already holding the same
// config and layer with the same annotations, differing only in
// provenance (source, revision, created), is also left as it is:
// republishing unchanged files from a later commit is not a conflict.
func (c *Client) Publish(ctx context.Context, src Source, a *Artifact, opts PublishOptions) (*PublishResult, error) {
	if err := checkArtifact(a); err != nil {
		return nil, err
	}
	r, err := c.Repository(src, a.Skill.Name)
	if err != nil {
		return nil, err
	}
	st, release, err := src.OpenWrite(ctx, r.name)
	if err != nil {
		return nil, r.fail("publish", err)
	}
	defer release()
	defer c.forget(r.loc.String())

	tag := a.Tag()
	res := &PublishResult{Location: r.loc, Tag: tag, Descriptor: a.Descriptor}
	existing, err := st.Resolve(ctx, tag)
	switch {
	case err == nil && existing.Digest == a.Descriptor.Digest:
		res.Unchanged = true
		return res, nil
	case err == nil && sameContent(ctx, st, existing, a):
		// Same files, published from another commit or time: the version
		// already holds exactly this skill, so there is nothing to refuse.
		res.Unchanged, res.Descriptor = true, existing
		return res, nil
	case err == nil && !opts.Force:
		return nil, &ImmutableError{Repository: r.loc.String(), Version: a.Skill.Version, Existing: existing.Digest.String(), New: a.Descriptor.Digest.String()}
	case err == nil:
		res.Replaced = &existing
	case !isNotFound(err):
		return nil, r.fail("publish", err)
	}
	// A registry is asked whether it has the blobs only when this version
	// was there before: a new version's config and layer both hold the
	// version string, so they are new too, and the two HEAD requests would
	// only cost a round trip each. A layout answers with a stat.
	_, local := src.(*layoutSource)
	if err := pushArtifact(ctx, st, a, tag, r.loc, c.opts.Progress, local || res.Replaced != nil); err != nil {
		return nil, r.fail("publish", err)
	}
	return res, nil
}

// isProvenance reports the annotations that say where and when a build
// came from, not what it holds.
func isProvenance(key string) bool {
	switch key {
	case ocispec.AnnotationSource, ocispec.AnnotationRevision, ocispec.AnnotationCreated:
		return true
	}
	return false
}

// sameContent reports whether the manifest existing describes the same
// skill as a: same config and layer, and the same annotations apart from
// provenance. Any doubt (fetch error, other shape) is "no".
func sameContent(ctx context.Context, st Storage, existing ocispec.Descriptor, a *Artifact) bool {
	if existing.Size <= 0 || existing.Size > 4<<20 {
		return false
	}
	rc, err := st.Fetch(ctx, existing)
	if err != nil {
		return false
	}
	defer rc.Close()
	data, err := content.ReadAll(rc, existing)
	if err != nil {
		return false
	}
	var m ocispec.Manifest
	if json.Unmarshal(data, &m) != nil || len(m.Layers) != 1 ||
		m.ArtifactType != a.Manifest.ArtifactType || m.Config.Digest != a.Manifest.Config.Digest || m.Layers[0].Digest != a.Manifest.Layers[0].Digest {
		return false
	}
	strip := func(in map[string]string) map[string]string {
		out := maps.Clone(in)
		maps.DeleteFunc(out, func(k, _ string) bool { return isProvenance(k) })
		return out
	}
	return maps.Equal(strip(m.Annotations), strip(a.Manifest.Annotations))
}

// PushArtifact pushes a's blobs and manifest to target and tags the
// manifest, skipping blobs target already has. It does not check
// immutability; [Client.Publish] does. `skillpm pack --oci-layout` uses it
// with an oras-go content/oci store.
func PushArtifact(ctx context.Context, target Storage, a *Artifact, tag string, loc Location, progress ProgressFunc) error {
	return pushArtifact(ctx, target, a, tag, loc, progress, true)
}

func pushArtifact(ctx context.Context, target Storage, a *Artifact, tag string, loc Location, progress ProgressFunc, checkExists bool) error {
	blobs := []struct {
		desc ocispec.Descriptor
		kind string
	}{{a.Manifest.Config, "config"}, {a.Manifest.Layers[0], "layer"}}
	for _, b := range blobs {
		p := Progress{Op: "push", Location: loc, Descriptor: b.desc, Title: blobTitle(b.desc, b.kind)}
		ok := false
		if checkExists {
			var err error
			if ok, err = target.Exists(ctx, b.desc); err != nil {
				return fmt.Errorf("checking %s %s: %w", b.kind, b.desc.Digest, err)
			}
		}
		if ok {
			report(progress, p, ProgressSkipped, b.desc.Size)
			continue
		}
		data, _ := a.blob(b.desc.Digest)
		// A *bytes.Reader lets the retrying transport rewind the body.
		if err := target.Push(ctx, b.desc, track(bytes.NewReader(data), progress, p)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
			return fmt.Errorf("pushing %s %s: %w", b.kind, b.desc.Digest, err)
		}
		report(progress, p, ProgressDone, b.desc.Size)
	}
	p := Progress{Op: "push", Location: loc, Descriptor: a.Descriptor, Title: "manifest"}
	if rp, ok := target.(orasregistry.ReferencePusher); ok {
		if err := rp.PushReference(ctx, a.Descriptor, bytes.NewReader(a.ManifestBytes), tag); err != nil {
			return fmt.Errorf("pushing manifest %s as %s: %w", a.Descriptor.Digest, tag, err)
		}
	} else {
		if err := target.Push(ctx, a.Descriptor, bytes.NewReader(a.ManifestBytes)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
			return fmt.Errorf("pushing manifest %s: %w", a.Descriptor.Digest, err)
		}
		if err := target.Tag(ctx, a.Descriptor, tag); err != nil {
			return fmt.Errorf("tagging %s as %s: %w", a.Descriptor.Digest, tag, err)
		}
	}
	report(progress, p, ProgressDone, a.Descriptor.Size)
	return nil
}

func isNotFound(err error) bool {
	if errors.Is(err, errdef.ErrNotFound) || errors.Is(err, ErrNotFound) {
		return true
	}
	var er *errcode.ErrorResponse
	return errors.As(err, &er) && er.StatusCode == http.StatusNotFound
}
