package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/Masterminds/semver/v3"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/pkg/skill"
	"oras.land/oras-go/v2/content"
)

// The search index artifact (artifact.md, Search index).
const (
	// IndexRepository is the repository of a source's index:
	// <source>/skillpm-index.
	IndexRepository = "skillpm-index"
	// IndexTag is the tag the index is pushed under.
	IndexTag = "latest"
	// IndexArtifactType is the index manifest's artifactType.
	IndexArtifactType = "application/vnd.skillpm.index.v1"
	// IndexMediaType is the media type of its one JSON layer.
	IndexMediaType = "application/vnd.skillpm.index.v1+json"
	// IndexTitle is the layer's org.opencontainers.image.title.
	IndexTitle = "skillpm-index.json"
	// IndexFormat is the JSON document's format version.
	IndexFormat = 1
	// maxIndexBytes bounds the index layer read by search.
	maxIndexBytes = 64 << 20
)

// Index is the search index of a source: one entry per skill, sorted by
// name. Its JSON depends only on its content.
type Index struct {
	// Version is IndexFormat.
	Version int `json:"version"`
	// Source is the source it describes, as ParseSource reads it.
	Source string `json:"source"`
	// Skills are the entries, sorted by name.
	Skills []IndexSkill `json:"skills"`
}

// IndexSkill is one skill of an [Index]. Description, tier and
// permissions are the latest version's.
type IndexSkill struct {
	// Name is the skill (and repository) name.
	Name string `json:"name"`
	// Latest is the newest release (the newest pre-release when there is
	// no release).
	Latest string `json:"latest"`
	// Description is the latest version's description.
	Description string `json:"description"`
	// Tier is the tier the latest version claims (unverified).
	Tier skill.Tier `json:"tier"`
	// Permissions are the latest version's declared permissions.
	Permissions []string `json:"permissions"`
	// Versions are every version, oldest first, with manifest digests.
	Versions []IndexVersion `json:"versions"`
}

// IndexVersion is one version of an indexed skill.
type IndexVersion struct {
	// Version is the SemVer string.
	Version string `json:"version"`
	// Digest is the manifest digest.
	Digest string `json:"digest"`
}

// LatestDigest returns the manifest digest of Latest.
func (s IndexSkill) LatestDigest() string {
	for _, v := range s.Versions {
		if v.Version == s.Latest {
			return v.Digest
		}
	}
	return ""
}

// IndexOptions controls [Client.BuildIndex].
type IndexOptions struct {
	// Names are the skills to index; empty means [Client.SourceNames].
	Names []string
	// Jobs bounds concurrent reads; 0 means DefaultMirrorJobs.
	Jobs int
}

// BuildIndex reads every version of the named skills (or of every skill
// the source lists) and returns the source's index. A name without any
// version is left out; a read that fails is an error naming the skill.
func (c *Client) BuildIndex(ctx context.Context, src Source, opts IndexOptions) (*Index, error) {
	names := opts.Names
	if len(names) == 0 {
		var err error
		if names, err = c.SourceNames(ctx, src); err != nil {
			return nil, err
		}
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = DefaultMirrorJobs
	}
	entries := make([]*IndexSkill, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobs)
	for i, name := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			entries[i], errs[i] = c.indexSkill(ctx, src, name)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	idx := &Index{Version: IndexFormat, Source: src.String(), Skills: []IndexSkill{}}
	for _, e := range entries {
		if e != nil {
			idx.Skills = append(idx.Skills, *e)
		}
	}
	sort.Slice(idx.Skills, func(i, j int) bool { return idx.Skills[i].Name < idx.Skills[j].Name })
	return idx, nil
}

func (c *Client) indexSkill(ctx context.Context, src Source, name string) (*IndexSkill, error) {
	repo, err := c.Repository(src, name)
	if err != nil {
		return nil, err
	}
	vs, err := repo.Versions(ctx)
	if err != nil || len(vs) == 0 {
		return nil, err
	}
	var latest *semver.Version
	for _, v := range vs {
		if v.Prerelease() == "" {
			latest = v
		}
	}
	if latest == nil {
		latest = vs[len(vs)-1]
	}
	e := &IndexSkill{Name: name, Latest: latest.Original(), Permissions: []string{}}
	for _, v := range vs {
		if v == latest {
			m, err := repo.Metadata(ctx, v)
			if err != nil {
				return nil, err
			}
			md := m.Metadata
			e.Description, e.Tier = md.Description, md.Tier
			if md.Permissions != nil {
				e.Permissions = md.Permissions
			}
			e.Versions = append(e.Versions, IndexVersion{Version: v.Original(), Digest: m.Descriptor.Digest.String()})
			continue
		}
		d, err := repo.resolveTag(ctx, Tag(v.Original()))
		if err != nil {
			return nil, err
		}
		e.Versions = append(e.Versions, IndexVersion{Version: v.Original(), Digest: d.Digest.String()})
	}
	return e, nil
}

// PushIndex writes idx to src as the index artifact (repository
// IndexRepository, tag IndexTag) and returns its manifest descriptor, to
// be signed like a skill. The manifest has no created time, so the same
// index pushed twice has the same digest.
func (c *Client) PushIndex(ctx context.Context, src Source, idx *Index) (ocispec.Descriptor, error) {
	data, err := json.Marshal(idx)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	return c.pushArtifact(ctx, src, IndexRepository, artifactFile{op: "push index",
		mediaType: IndexMediaType, artifactType: IndexArtifactType, title: IndexTitle, tag: IndexTag}, data)
}

// artifactFile names the one file of an artifact pushArtifact writes, and
// the operation its failures name.
type artifactFile struct {
	op, mediaType, artifactType, title, tag string
}

// pushArtifact writes data to repository as a one-layer artifact with an
// empty config, a manifest without a created time (the same data gives
// the same digest) tagged f.tag, and returns the manifest's descriptor.
// A failure to write is a RequestError naming f.op.
func (c *Client) pushArtifact(ctx context.Context, src Source, repository string, f artifactFile, data []byte) (ocispec.Descriptor, error) {
	st, release, err := src.OpenWrite(ctx, repository)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	defer release()
	loc := src.Locate(repository)
	defer c.forget(loc.String())
	fail := func(err error) (ocispec.Descriptor, error) {
		return ocispec.Descriptor{}, &RequestError{Op: f.op, Registry: loc.Registry, Repository: loc.Repository, Err: err}
	}
	empty := ocispec.DescriptorEmptyJSON
	layer := content.NewDescriptorFromBytes(f.mediaType, data)
	for _, b := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{empty, empty.Data}, {layer, data}} {
		if err := pushBlob(ctx, st, b.desc, b.data); err != nil {
			return fail(err)
		}
	}
	empty.Data = nil
	layer.Annotations = map[string]string{ocispec.AnnotationTitle: f.title}
	// Written here rather than by oras.PackManifest, which adds a created
	// time when none is given.
	mb, err := marshalJSON(ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: f.artifactType,
		Config:       empty,
		Layers:       []ocispec.Descriptor{layer},
	})
	if err != nil {
		return fail(err)
	}
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, mb)
	desc.ArtifactType = f.artifactType
	if err := pushBlob(ctx, st, desc, mb); err != nil {
		return fail(err)
	}
	if err := st.Tag(ctx, desc, f.tag); err != nil {
		return fail(err)
	}
	return desc, nil
}

// FetchIndex reads src's index: the tag is resolved every time (it moves
// when the index is rebuilt); the manifest and the JSON are read through
// the content cache, by digest. A source without an index is ErrNoIndex.
func (c *Client) FetchIndex(ctx context.Context, src Source) (*Index, ocispec.Descriptor, error) {
	repo, err := c.Repository(src, IndexRepository)
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	st, err := src.OpenRead(ctx, IndexRepository)
	if err == nil {
		var desc ocispec.Descriptor
		if desc, err = st.Resolve(ctx, IndexTag); err == nil {
			idx, err := c.readIndex(ctx, repo, desc)
			return idx, desc, err
		}
	}
	if isNotFound(err) || errors.Is(err, ErrNotFound) {
		return nil, ocispec.Descriptor{}, fmt.Errorf("%s: %w (no %s:%s); its maintainer can build one", src, ErrNoIndex, src.Locate(IndexRepository), IndexTag)
	}
	return nil, ocispec.Descriptor{}, repo.fail("resolve index", err)
}

func (c *Client) readIndex(ctx context.Context, repo *Repository, desc ocispec.Descriptor) (*Index, error) {
	at := fmt.Sprintf("%s@%s", repo.loc, desc.Digest)
	raw, err := repo.fetchBytes(ctx, desc, c.opts.Limits.MaxManifestBytes, "index manifest")
	if err != nil {
		return nil, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", at, ErrInvalidArtifact, err)
	}
	if m.ArtifactType != IndexArtifactType || len(m.Layers) != 1 || m.Layers[0].MediaType != IndexMediaType {
		return nil, fmt.Errorf("%s: %w: not a skillpm index (artifactType %q)", at, ErrInvalidArtifact, m.ArtifactType)
	}
	data, err := repo.fetchBytes(ctx, m.Layers[0], maxIndexBytes, "index")
	if err != nil {
		return nil, err
	}
	var idx Index
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&idx); err != nil {
		return nil, fmt.Errorf("%s: %w: index JSON: %v", at, ErrInvalidArtifact, err)
	}
	if idx.Version != IndexFormat {
		return nil, fmt.Errorf("%s: %w: index format %d, this skillpm reads %d", at, ErrInvalidArtifact, idx.Version, IndexFormat)
	}
	return &idx, nil
}
