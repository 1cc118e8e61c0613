package sparse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/registry"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	orasregistry "oras.land/oras-go/v2/registry"
)

// DefaultJobs bounds the skills read at once while building.
const DefaultJobs = 16

// UpdateOptions controls [Update].
type UpdateOptions struct {
	// Names are the skills to (re)describe. Empty means every skill the
	// source lists (registry.Client.SourceNames): a full rebuild.
	Names []string
	// IfExists updates only a namespace that already has an index, so
	// that publishing into a namespace nobody indexes creates nothing.
	IfExists bool
	// Jobs bounds the skills read at once; 0 means DefaultJobs.
	Jobs int
	// Issued is the index's issued-at time; zero means now.
	Issued time.Time
	// Validity is how long the index is valid after Issued; 0 means
	// DefaultValidity.
	Validity time.Duration
}

// bound returns the issued-at and expiry times the options give.
func (o UpdateOptions) bound() (issued, expires time.Time) {
	issued = o.Issued
	if issued.IsZero() {
		issued = time.Now()
	}
	v := o.Validity
	if v <= 0 {
		v = DefaultValidity
	}
	issued = issued.UTC().Truncate(time.Second)
	return issued, issued.Add(v)
}

// UpdateResult describes an index written by [Update].
type UpdateResult struct {
	// Descriptor describes the index manifest, tagged [Tag]. It is the
	// zero value when IfExists found no index and nothing was written.
	Descriptor ocispec.Descriptor
	// Location is the repository holding it.
	Location registry.Location
	// Skills is how many skills the index lists.
	Skills int
	// Changed are the skills whose documents were pushed; Removed those
	// left out because they have no version any more.
	Changed, Removed []string
}

// Update writes src's sparse index, re-describing only opts.Names (every
// skill when empty) and keeping the other skills' documents as they are:
// a changed skill costs its document and the manifest, nothing else. The
// manifest carries its issued-at and expiry times (opts.Issued and
// Validity), so every update is a new digest to sign. The index is not
// signed here: the caller signs Descriptor like a skill.
func Update(ctx context.Context, c *registry.Client, src registry.Source, opts UpdateOptions) (*UpdateResult, error) {
	res := &UpdateResult{Location: src.Locate(Repository)}
	entries := map[string]ocispec.Descriptor{}
	prev, err := Fetch(ctx, src)
	switch {
	case errors.Is(err, ErrNoIndex) && opts.IfExists:
		return res, nil
	case errors.Is(err, ErrNoIndex), errors.Is(err, ErrInvalidIndex):
		// Written anew (an invalid one is replaced).
	case err != nil:
		return nil, err
	default:
		for n, e := range prev.Entries {
			entries[n] = e.Layer
		}
	}
	names := opts.Names
	if len(names) == 0 {
		if names, err = c.SourceNames(ctx, src); err != nil {
			return nil, err
		}
		// A full rebuild lists exactly the source's skills.
		for n := range entries {
			if !slices.Contains(names, n) {
				delete(entries, n)
				res.Removed = append(res.Removed, n)
			}
		}
	}
	docs, err := Describe(ctx, c, src, names, opts.Jobs)
	if err != nil {
		return nil, err
	}
	st, release, err := src.OpenWrite(ctx, Repository)
	if err != nil {
		return nil, err
	}
	defer release()
	for _, name := range names {
		doc := docs[name]
		if doc == nil {
			if _, ok := entries[name]; ok {
				delete(entries, name)
				res.Removed = append(res.Removed, name)
			}
			continue
		}
		data, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		d := describe(doc, data)
		d.Data = data
		if old, ok := entries[name]; ok && old.Digest == d.Digest && maps.Equal(old.Annotations, d.Annotations) {
			continue
		}
		if err := push(ctx, st, d, data); err != nil {
			return nil, fmt.Errorf("%s: pushing the index document of %s: %w", res.Location, name, err)
		}
		entries[name] = d
		res.Changed = append(res.Changed, name)
	}
	issued, expires := opts.bound()
	desc, err := pushManifest(ctx, st, src.String(), entries, issued, expires)
	if err != nil {
		return nil, fmt.Errorf("%s: pushing the sparse index: %w", res.Location, err)
	}
	res.Descriptor, res.Skills = desc, len(entries)
	return res, nil
}

// Describe reads every version of each named skill from its manifests and
// returns their documents by name; a skill without any version has none.
// A read that fails is an error naming the skill.
func Describe(ctx context.Context, c *registry.Client, src registry.Source, names []string, jobs int) (map[string]*Skill, error) {
	if jobs <= 0 {
		jobs = DefaultJobs
	}
	out := map[string]*Skill{}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs = make([]error, len(names))
		sem  = make(chan struct{}, jobs)
	)
	for i, name := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			s, err := describeSkill(ctx, c, src, name)
			if err != nil {
				errs[i] = fmt.Errorf("indexing %s: %w", name, err)
				return
			}
			if s != nil {
				mu.Lock()
				out[name] = s
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

func describeSkill(ctx context.Context, c *registry.Client, src registry.Source, name string) (*Skill, error) {
	repo, err := c.Repository(src, name)
	if err != nil {
		return nil, err
	}
	vs, err := repo.Versions(ctx)
	if errors.Is(err, registry.ErrNotFound) || err == nil && len(vs) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := &Skill{Format: Format, Name: name, Versions: []Version{}}
	for _, v := range vs {
		m, err := repo.Metadata(ctx, v)
		if err != nil {
			return nil, err
		}
		md, l := m.Metadata, m.Layer()
		iv := Version{Version: v.Original(), Manifest: m.Descriptor.Digest.String(), ManifestSize: m.Descriptor.Size,
			Layer: l.Digest.String(), LayerSize: l.Size, Tree: md.Tree, Tier: string(md.Tier), Permissions: slices.Clone(md.Permissions)}
		if len(md.Requires) > 0 {
			iv.Requires = maps.Clone(md.Requires)
		}
		refs, err := repo.Referrers(ctx, m.Descriptor, "")
		if err != nil {
			return nil, err
		}
		iv.Referrers = append([]ocispec.Descriptor{}, refs...)
		// Listing order is the registry's: sorted, an unchanged skill
		// keeps its document's digest.
		slices.SortFunc(iv.Referrers, func(a, b ocispec.Descriptor) int { return strings.Compare(string(a.Digest), string(b.Digest)) })
		s.Versions = append(s.Versions, iv)
	}
	return s, nil
}

func push(ctx context.Context, st registry.Storage, d ocispec.Descriptor, data []byte) error {
	d.Annotations, d.Data = nil, nil
	if err := st.Push(ctx, d, bytes.NewReader(data)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return err
	}
	return nil
}

// pushManifest pushes and tags the index manifest listing entries, in
// name order, valid from issued to expires.
func pushManifest(ctx context.Context, st registry.Storage, source string, entries map[string]ocispec.Descriptor, issued, expires time.Time) (ocispec.Descriptor, error) {
	empty := ocispec.DescriptorEmptyJSON
	if err := push(ctx, st, empty, empty.Data); err != nil {
		return ocispec.Descriptor{}, err
	}
	empty.Data = nil
	names := slices.Collect(maps.Keys(entries))
	sort.Strings(names)
	layers := []ocispec.Descriptor{}
	budget := EmbedBudget
	for _, n := range names {
		l := entries[n]
		// Smallest first would pack more, but name order keeps the
		// manifest stable as skills change size; the budget is generous.
		if len(l.Data) == 0 || len(l.Data) > MaxEmbedBytes || len(l.Data) > budget {
			l.Data = nil
		} else {
			budget -= len(l.Data)
		}
		layers = append(layers, l)
	}
	m := ocispec.Manifest{
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType,
		Config:       empty,
		Layers:       layers,
		Annotations: map[string]string{AnnotationSource: source,
			AnnotationIssued: issued.Format(time.RFC3339), AnnotationExpires: expires.Format(time.RFC3339)},
	}
	m.SchemaVersion = 2
	data, err := json.Marshal(m)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, data)
	desc.ArtifactType = ArtifactType
	if rp, ok := st.(orasregistry.ReferencePusher); ok {
		return desc, rp.PushReference(ctx, desc, bytes.NewReader(data), Tag)
	}
	if err := st.Push(ctx, desc, bytes.NewReader(data)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return ocispec.Descriptor{}, err
	}
	return desc, st.Tag(ctx, desc, Tag)
}

// Write pushes an index listing exactly docs (by skill name) to src and
// tags it, as they are: nothing is read from the skills' repositories.
// [Update] is the usual way in; Write is for documents carried from
// elsewhere. It is issued now for DefaultValidity. The index is not
// signed here.
func Write(ctx context.Context, src registry.Source, docs map[string]*Skill) (ocispec.Descriptor, error) {
	loc := src.Locate(Repository)
	st, release, err := src.OpenWrite(ctx, Repository)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	defer release()
	entries := map[string]ocispec.Descriptor{}
	for name, doc := range docs {
		data, err := json.Marshal(doc)
		if err != nil {
			return ocispec.Descriptor{}, err
		}
		d := describe(doc, data)
		d.Data = data
		if err := push(ctx, st, d, data); err != nil {
			return ocispec.Descriptor{}, fmt.Errorf("%s: pushing the index document of %s: %w", loc, name, err)
		}
		entries[name] = d
	}
	issued, expires := UpdateOptions{}.bound()
	desc, err := pushManifest(ctx, st, src.String(), entries, issued, expires)
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("%s: pushing the sparse index: %w", loc, err)
	}
	return desc, nil
}
