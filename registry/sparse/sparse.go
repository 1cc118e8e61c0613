// Package sparse is skillpm's signed sparse index: one OCI artifact per
// registry namespace from which a resolver reads every version, manifest
// digest, layer digest and requirement of the skills it needs in two
// round trips, instead of a tag list per skill and a manifest per version
// it considers (docs/sparse-index.md).
//
// The artifact is one manifest, tagged [Tag] in the namespace's
// skillpm-index repository (the search index's repository), whose layers
// are one JSON document per skill. The manifest is the root listing: each
// layer's annotations name its skill, its newest version and the names
// any of its versions requires, so a client computes the closure of the
// skills it needs from the manifest alone and fetches exactly their
// documents at once. Updating a skill re-pushes its document and the
// manifest only. The manifest is signed like the search index and like a
// skill (cosign's format, attached as a referrer).
//
// What the index says is an index only: a client that uses it still
// fetches each manifest, layer and signature by digest and checks the
// index against them ([Entry.Check]); its own signature decides only
// whether the resolver may read it at all.
package sparse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/registry"
)

// The sparse index artifact.
const (
	// Repository is the repository holding the index in a namespace; the
	// search index lives there too, under another tag.
	Repository = registry.IndexRepository
	// Tag is the tag the index manifest is pushed under.
	Tag = "sparse-v1"
	// ArtifactType is the index manifest's artifactType.
	ArtifactType = "application/vnd.skillpm.sparse-index.v1"
	// SkillMediaType is the media type of each per-skill document.
	SkillMediaType = "application/vnd.skillpm.sparse-index.skill.v1+json"
	// Format is the per-skill document's format version.
	Format = 1
	// AnnotationSkill names the skill a layer describes.
	AnnotationSkill = "dev.skillpm.index.skill"
	// AnnotationLatest is the skill's newest release (newest pre-release
	// when it has no release).
	AnnotationLatest = "dev.skillpm.index.latest"
	// AnnotationRequires lists, comma-separated and sorted, every
	// dependency name any version of the skill requires, as declared.
	AnnotationRequires = "dev.skillpm.index.requires"
	// AnnotationSource is the namespace the manifest indexes.
	AnnotationSource = "dev.skillpm.index.source"
	// AnnotationIssued and AnnotationExpires bound the index in time
	// (RFC 3339, UTC), as TUF's timestamp role is: a client ignores an
	// index past its expiry, so an old signed index replayed to hide
	// newer versions is stale instead of obeyed.
	AnnotationIssued  = "dev.skillpm.index.issued"
	AnnotationExpires = "dev.skillpm.index.expires"
	// DefaultValidity is how long an index is valid after it is issued,
	// unless UpdateOptions.Validity says otherwise: an index must be
	// rebuilt and signed again within it (a publish with signing does).
	DefaultValidity = 7 * 24 * time.Hour
	// MaxClockSkew is how far in the future an index may be issued
	// before it is refused: clocks differ.
	MaxClockSkew = 5 * time.Minute
	// MaxManifestBytes bounds the index manifest read.
	MaxManifestBytes = 16 << 20
	// MaxSkillBytes bounds one per-skill document read.
	MaxSkillBytes = 4 << 20
	// EmbedBudget bounds the document bytes embedded in the manifest
	// (descriptor data, OCI image-spec 1.1): within it the whole index is
	// one GET; documents beyond it are fetched as blobs. It keeps the
	// manifest well under the 4 MiB most registries accept.
	EmbedBudget = 1 << 20
	// MaxEmbedBytes bounds one embedded document: a skill with very many
	// versions is fetched on its own rather than crowding the others out.
	MaxEmbedBytes = 32 << 10
)

// Skill is the per-skill document: every published version of one skill,
// oldest first. Its JSON depends only on its content, so an unchanged
// skill keeps its digest and is not pushed again.
type Skill struct {
	// Format is [Format].
	Format int `json:"format"`
	// Name is the skill (and repository) name.
	Name string `json:"name"`
	// Versions are every version, oldest first.
	Versions []Version `json:"versions"`
}

// Version is what a resolver and an installer need of one published
// version, as its manifest states it.
type Version struct {
	// Version is the SemVer string as tagged.
	Version string `json:"version"`
	// Manifest and ManifestSize describe the manifest.
	Manifest     string `json:"manifest"`
	ManifestSize int64  `json:"manifestSize"`
	// Layer and LayerSize describe its one layer.
	Layer     string `json:"layer"`
	LayerSize int64  `json:"layerSize"`
	// Tree is the manifest's tree hash, "" when it states none.
	Tree string `json:"tree,omitempty"`
	// Requires maps each dependency to its range.
	Requires map[string]string `json:"requires,omitempty"`
	// Tier is the claimed tier (unverified).
	Tier string `json:"tier,omitempty"`
	// Permissions are the declared permissions.
	Permissions []string `json:"permissions,omitempty"`
	// Referrers are the manifest's referrers when the document was
	// written (signatures and audit attestations, as the registry listed
	// them), so that an installer reads each by digest without listing
	// them. Nil (absent) means unknown: the installer lists them.
	Referrers []ocispec.Descriptor `json:"referrers"`
}

// Entry is one skill of a loaded index: its document's descriptor and
// root annotations, and the document once fetched.
type Entry struct {
	// Name is the skill name.
	Name string
	// Layer describes its document.
	Layer ocispec.Descriptor
	// Latest is the newest version the root listing states.
	Latest string
	// Requires are the dependency names any version requires.
	Requires []string
	// Doc is the document, nil until fetched.
	Doc *Skill
}

// Find returns the version v of the entry's document, nil when it has none.
func (e *Entry) Find(v string) *Version {
	if e.Doc == nil {
		return nil
	}
	for i := range e.Doc.Versions {
		if e.Doc.Versions[i].Version == v {
			return &e.Doc.Versions[i]
		}
	}
	return nil
}

// Check compares the entry's version with the manifest m that was
// fetched by the digest the index states for it: another digest, skill or
// version, layer, tree hash or requirement is a *LieError naming both
// values. It is what makes the index an index only.
func (e *Entry) Check(version string, m *registry.SkillVersion) error {
	md := m.Metadata
	got := m.Descriptor.Digest.String()
	iv := e.Find(version)
	lie := func(what, idx, reg string) error {
		return &LieError{Skill: e.Name, Version: version, What: what, Index: idx, Registry: reg}
	}
	if iv == nil {
		return lie("no such version; manifest", "-", got)
	}
	if iv.Manifest != got {
		return lie("manifest", iv.Manifest, got)
	}
	if md.Name != e.Name || md.Version != iv.Version {
		return lie("manifest "+iv.Manifest+" for", e.Name+"@"+iv.Version, md.Name+"@"+md.Version)
	}
	if l := m.Layer(); l.Digest.String() != iv.Layer || l.Size != iv.LayerSize {
		return lie("layer", fmt.Sprintf("%s (%d bytes)", iv.Layer, iv.LayerSize), fmt.Sprintf("%s (%d bytes) in manifest %s", l.Digest, l.Size, got))
	}
	if md.Tree != iv.Tree {
		return lie("tree hash", quote(iv.Tree), quote(md.Tree)+" in manifest "+got)
	}
	if !sameMap(md.Requires, iv.Requires) {
		return lie("requires", fmt.Sprint(iv.Requires), fmt.Sprint(md.Requires)+" in manifest "+got)
	}
	return nil
}

func quote(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// decodeSkill parses and checks a per-skill document for skill name.
func decodeSkill(name string, data []byte) (*Skill, error) {
	var s Skill
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: document of %s: %v", ErrInvalidIndex, name, err)
	}
	if s.Format != Format {
		return nil, fmt.Errorf("%w: document of %s has format %d, this skillpm reads %d", ErrInvalidIndex, name, s.Format, Format)
	}
	if s.Name != name {
		return nil, fmt.Errorf("%w: the document listed as %s describes %q", ErrInvalidIndex, name, s.Name)
	}
	for _, v := range s.Versions {
		if _, err := semver.StrictNewVersion(v.Version); err != nil {
			return nil, fmt.Errorf("%w: %s: version %q: %v", ErrInvalidIndex, name, v.Version, err)
		}
		if _, err := digest.Parse(v.Manifest); err != nil {
			return nil, fmt.Errorf("%w: %s@%s: manifest digest %q: %v", ErrInvalidIndex, name, v.Version, v.Manifest, err)
		}
		if _, err := digest.Parse(v.Layer); err != nil {
			return nil, fmt.Errorf("%w: %s@%s: layer digest %q: %v", ErrInvalidIndex, name, v.Version, v.Layer, err)
		}
	}
	return &s, nil
}

// entryOf reads a layer descriptor of the index manifest.
func entryOf(l ocispec.Descriptor) (*Entry, error) {
	name := l.Annotations[AnnotationSkill]
	if l.MediaType != SkillMediaType || name == "" {
		return nil, fmt.Errorf("%w: layer %s is not a skill document (media type %q, skill %q)", ErrInvalidIndex, l.Digest, l.MediaType, name)
	}
	e := &Entry{Name: name, Layer: l, Latest: l.Annotations[AnnotationLatest]}
	if r := l.Annotations[AnnotationRequires]; r != "" {
		e.Requires = strings.Split(r, ",")
	}
	return e, nil
}

// describe returns the layer descriptor of a skill document.
func describe(s *Skill, data []byte) ocispec.Descriptor {
	d := ocispec.Descriptor{MediaType: SkillMediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}
	var reqs []string
	var latest *semver.Version
	for _, v := range s.Versions {
		for dep := range v.Requires {
			if !slices.Contains(reqs, dep) {
				reqs = append(reqs, dep)
			}
		}
		sv, err := semver.StrictNewVersion(v.Version)
		if err != nil {
			continue
		}
		if latest == nil || (sv.Prerelease() == "") && (latest.Prerelease() != "" || sv.GreaterThan(latest)) || sv.Prerelease() != "" && latest.Prerelease() != "" && sv.GreaterThan(latest) {
			latest = sv
		}
	}
	slices.Sort(reqs)
	d.Annotations = map[string]string{AnnotationSkill: s.Name}
	if latest != nil {
		d.Annotations[AnnotationLatest] = latest.Original()
	}
	if len(reqs) > 0 {
		d.Annotations[AnnotationRequires] = strings.Join(reqs, ",")
	}
	return d
}

// Fresh reports whether the index is within its freshness bound at now:
// an index without one, one past its expiry, or one issued in the future
// is ErrStale, naming the times and what to do.
func (ix *Index) Fresh(now time.Time) error {
	at := fmt.Sprintf("%s@%s", ix.Location, ix.Descriptor.Digest)
	switch {
	case ix.Issued.IsZero() || ix.Expires.IsZero():
		return fmt.Errorf("%s: %w: it carries no issued-at and expiry times, so a replay of it could not be told apart; rebuild and sign it", at, ErrStale)
	case now.After(ix.Expires):
		return fmt.Errorf("%s: %w: it expired at %s (issued %s); an index is rebuilt and signed again before it expires, so this one is unmaintained or replayed", at, ErrStale, ix.Expires.Format(time.RFC3339), ix.Issued.Format(time.RFC3339))
	case ix.Issued.After(now.Add(MaxClockSkew)):
		return fmt.Errorf("%s: %w: it says it was issued at %s, in the future", at, ErrStale, ix.Issued.Format(time.RFC3339))
	}
	return nil
}
