package sparse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/tiers"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// Index is a namespace's sparse index as read: the root listing from the
// manifest, and the per-skill documents [Index.Load] fetched.
type Index struct {
	// Source is the namespace indexed, as the manifest states it.
	Source string
	// Location is the index repository.
	Location registry.Location
	// Descriptor describes the index manifest: what its signatures sign.
	Descriptor ocispec.Descriptor
	// Entries are the skills listed, by name.
	Entries map[string]*Entry
	// Issued and Expires are the index's freshness bound, zero when it
	// states none (see [Index.Fresh]).
	Issued, Expires time.Time

	st registry.ReadStorage
}

// Fetch reads src's index manifest: one request (a GET by tag) against a
// registry. A namespace without one is ErrNoIndex; an index written for
// another namespace (copied, or replayed with its signature) is
// ErrInvalidIndex.
func Fetch(ctx context.Context, src registry.Source) (*Index, error) {
	loc := src.Locate(Repository)
	at := loc.String() + ":" + Tag
	st, err := src.OpenRead(ctx, Repository)
	if err != nil {
		return nil, notFound(at, err)
	}
	var (
		desc ocispec.Descriptor
		rc   io.ReadCloser
	)
	if rf, ok := st.(orasregistry.ReferenceFetcher); ok {
		desc, rc, err = rf.FetchReference(ctx, Tag)
	} else if desc, err = st.Resolve(ctx, Tag); err == nil {
		rc, err = st.Fetch(ctx, desc)
	}
	if err != nil {
		return nil, notFound(at, err)
	}
	defer rc.Close()
	if desc.Size < 0 || desc.Size > MaxManifestBytes {
		return nil, fmt.Errorf("%s: %w: manifest is %d bytes, more than the %d allowed", at, ErrInvalidIndex, desc.Size, MaxManifestBytes)
	}
	data, err := content.ReadAll(rc, desc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", at, registry.ErrDigestMismatch, err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s@%s: %w: %v", loc, desc.Digest, ErrInvalidIndex, err)
	}
	if m.ArtifactType != ArtifactType {
		return nil, fmt.Errorf("%s@%s: %w: artifactType %q, not %q", loc, desc.Digest, ErrInvalidIndex, m.ArtifactType, ArtifactType)
	}
	// The namespace is compared without its host: one registry is often
	// reached under several names (a proxy, a mirror's DNS name), and an
	// index copied to another namespace path is still refused.
	if got := m.Annotations[AnnotationSource]; namespacePath(got) != namespacePath(src.String()) {
		return nil, fmt.Errorf("%s@%s: %w: it indexes %q, not %q", loc, desc.Digest, ErrInvalidIndex, got, src.String())
	}
	ix := &Index{Source: src.String(), Location: loc, Descriptor: desc, Entries: map[string]*Entry{}, st: st}
	// Unreadable times read as none: Fresh then reports the index stale.
	ix.Issued, _ = time.Parse(time.RFC3339, m.Annotations[AnnotationIssued])
	ix.Expires, _ = time.Parse(time.RFC3339, m.Annotations[AnnotationExpires])
	for _, l := range m.Layers {
		e, err := entryOf(l)
		if err != nil {
			return nil, fmt.Errorf("%s@%s: %w", loc, desc.Digest, err)
		}
		if _, dup := ix.Entries[e.Name]; dup {
			return nil, fmt.Errorf("%s@%s: %w: %s is listed twice", loc, desc.Digest, ErrInvalidIndex, e.Name)
		}
		// An embedded document is the blob's bytes: checked against the
		// descriptor like a download (the manifest's signature covers it).
		if len(l.Data) > 0 {
			if err := e.decode(loc, l.Data); err != nil {
				return nil, err
			}
		}
		ix.Entries[e.Name] = e
	}
	return ix, nil
}

// namespacePath returns a source without its registry host.
func namespacePath(src string) string {
	if spec, err := source.Parse(src); err != nil || spec.Kind != source.KindRemote {
		return src
	}
	_, path, _ := strings.Cut(src, "/")
	return path
}

func notFound(at string, err error) error {
	var er *errcode.ErrorResponse
	if errors.Is(err, errdef.ErrNotFound) || errors.Is(err, registry.ErrNotFound) || errors.As(err, &er) && er.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%s: %w", at, ErrNoIndex)
	}
	return fmt.Errorf("%s: %w: %w", at, registry.ErrRegistry, err)
}

// Local returns the name of the skill a dependency names in this index's
// namespace: a bare name, or one qualified with the index's own source.
// ok is false for a skill of another namespace.
func (ix *Index) Local(dep string) (name string, ok bool) {
	if !strings.Contains(dep, "/") {
		return dep, true
	}
	if rest, found := strings.CutPrefix(dep, ix.Source+"/"); found && !strings.Contains(rest, "/") {
		return rest, true
	}
	return "", false
}

// Closure returns names and every skill of the index they reach through
// the root listing's requirements, in no order. Names the index does not
// list are left out.
func (ix *Index) Closure(names []string) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(string)
	walk = func(n string) {
		e := ix.Entries[n]
		if e == nil || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, n)
		for _, d := range e.Requires {
			if l, ok := ix.Local(d); ok {
				walk(l)
			}
		}
	}
	for _, n := range names {
		walk(n)
	}
	return out
}

// Load fetches, at once, the documents of names and of every skill they
// reach ([Index.Closure]) that are not loaded yet, with up to jobs
// requests at once (0: all). Each is checked against its digest.
func (ix *Index) Load(ctx context.Context, names []string, jobs int) error {
	todo := ix.Closure(names)
	if jobs <= 0 {
		jobs = max(len(todo), 1)
	}
	sem := make(chan struct{}, jobs)
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, n := range todo {
		e := ix.Entries[n]
		if e.Doc != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = ix.load(ctx, e)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (ix *Index) load(ctx context.Context, e *Entry) error {
	at := fmt.Sprintf("%s@%s (document of %s)", ix.Location, e.Layer.Digest, e.Name)
	if e.Layer.Size < 0 || e.Layer.Size > MaxSkillBytes {
		return fmt.Errorf("%s: %w: %d bytes, more than the %d allowed", at, ErrInvalidIndex, e.Layer.Size, MaxSkillBytes)
	}
	fetch := e.Layer
	fetch.Data = nil
	rc, err := ix.st.Fetch(ctx, fetch)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", at, registry.ErrRegistry, err)
	}
	defer rc.Close()
	data, err := content.ReadAll(rc, fetch)
	if err != nil {
		return fmt.Errorf("%s: %w: %v", at, registry.ErrDigestMismatch, err)
	}
	return e.decode(ix.Location, data)
}

// decode checks data against the entry's descriptor and parses it.
func (e *Entry) decode(loc registry.Location, data []byte) error {
	at := fmt.Sprintf("%s@%s (document of %s)", loc, e.Layer.Digest, e.Name)
	if int64(len(data)) != e.Layer.Size || e.Layer.Digest.Validate() != nil || e.Layer.Digest.Algorithm().FromBytes(data) != e.Layer.Digest {
		return fmt.Errorf("%s: %w: the document does not match its descriptor", at, registry.ErrDigestMismatch)
	}
	doc, err := decodeSkill(e.Name, data)
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	e.Doc = doc
	return nil
}

// Verify checks the signatures attached to the index manifest under the
// trust material and returns the signer a rule of policy p names for the
// index repository. No verified signature, or signers no rule names, is
// ErrUntrusted saying which.
//
// An index whose digest was verified before by a Client with the same
// content cache is judged from the bundles that verification read, by
// digest from the cache: verified again, cryptographically and under p,
// with no request (the referrers listing and the bundles would be a chain
// of round trips on every install and update check). Only an index with
// another digest, or cached bundles that no longer pass, lists its
// referrers at the registry again.
func (ix *Index) Verify(ctx context.Context, c *registry.Client, src registry.Source, trust sign.VerifyOptions, p *tiers.Policy) (sign.Identity, error) {
	repo, err := c.Repository(src, Repository)
	if err != nil {
		return sign.Identity{}, err
	}
	if refs, ok := repo.KnownReferrers(ix.Descriptor.Digest); ok {
		if set, err := repo.SignaturesFrom(ctx, ix.Descriptor, refs); err == nil {
			if id, err := ix.judge(ctx, set, trust, p); err == nil {
				return id, nil
			}
		}
	}
	set, err := repo.Signatures(ctx, ix.Descriptor)
	if err != nil {
		return sign.Identity{}, fmt.Errorf("%s@%s: reading its signatures: %w", ix.Location, ix.Descriptor.Digest, err)
	}
	id, err := ix.judge(ctx, set, trust, p)
	if err != nil {
		return sign.Identity{}, err
	}
	refs := make([]ocispec.Descriptor, len(set.Bundles))
	for i, b := range set.Bundles {
		refs[i] = b.Referrer
	}
	// Not recording costs the next run a listing, nothing else.
	_ = repo.RememberReferrers(ix.Descriptor.Digest, refs)
	return id, nil
}

// judge verifies set, the signature bundles of the index manifest, and
// returns the signer a rule of p names for the index repository.
func (ix *Index) judge(ctx context.Context, set *registry.BundleSet, trust sign.VerifyOptions, p *tiers.Policy) (sign.Identity, error) {
	at := fmt.Sprintf("%s@%s", ix.Location, ix.Descriptor.Digest)
	n := len(set.Bundles) + len(set.Unreadable)
	var ids []sign.Identity
	if len(set.Bundles) > 0 {
		res, err := sign.VerifyAll(ctx, set.Raw(), ix.Descriptor.Digest, trust)
		if err != nil {
			return sign.Identity{}, fmt.Errorf("%s: %w: %w", at, ErrUntrusted, err)
		}
		ids = res.Identities()
	}
	if n == 0 {
		return sign.Identity{}, fmt.Errorf("%s: %w: %w", at, ErrUntrusted, ErrUnsigned)
	}
	if len(ids) == 0 {
		return sign.Identity{}, fmt.Errorf("%s: %w: no signature verifies (%d attached)", at, ErrUntrusted, n)
	}
	// Who may sign the index is a decision of its own: a rule naming the
	// signer through a scope that covers every repository, or every
	// skill of the namespace, trusts a publisher, and a publisher must
	// not decide which versions everyone else's solver considers. Each
	// signer is judged alone, so that the most specific rule naming it
	// decides.
	var who, via []string
	for _, id := range ids {
		d := tiers.Evaluate(p, ix.Location.String(), []sign.Identity{id}, "", tiers.EvalOptions{})
		switch {
		case d.Signer != nil && IndexScope(d.Scope):
			return *d.Signer, nil
		case d.Signer != nil:
			via = append(via, fmt.Sprintf("%s (through the scope %q of %s)", id, d.Scope, d.Policy))
		default:
			who = append(who, id.String())
		}
	}
	if len(via) > 0 {
		return sign.Identity{}, fmt.Errorf("%s: %w: signed by %s, whom the trust policy trusts as a publisher, not as a signer of the index: name index signers in a rule scoped to the index repository itself (%s, or a glob ending in /%s)",
			at, ErrUntrusted, strings.Join(via, ", "), ix.Location, Repository)
	}
	return sign.Identity{}, fmt.Errorf("%s: %w: signed by %s, whom no rule of the trust policy names for %s", at, ErrUntrusted, strings.Join(who, ", "), ix.Location)
}

// IndexScope reports whether a trust policy scope names index
// repositories as such: its last segment is the index repository's name
// ("ghcr.io/acme/skills/skillpm-index", "**/skillpm-index"). Only a rule
// with such a scope makes its identities signers of a sparse index.
func IndexScope(scope string) bool {
	return scope == Repository || strings.HasSuffix(scope, "/"+Repository)
}
