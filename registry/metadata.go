package registry

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/Masterminds/semver/v3"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/pkg/skill"
)

// SkillVersion is one published version of a skill as fetched and
// verified: its OCI manifest (bytes, descriptor, parsed) and the Metadata
// read from its annotations. Values returned by a Client are shared
// through its cache: treat them as read-only.
type SkillVersion struct {
	// Descriptor describes the manifest.
	Descriptor ocispec.Descriptor
	// Raw is the manifest exactly as stored; its digest is Descriptor's.
	Raw []byte
	// OCI is the parsed manifest.
	OCI ocispec.Manifest
	// Metadata is what the resolver and `skillpm info` read.
	Metadata Metadata
}

// Layer returns the descriptor of the skill's one layer.
func (m *SkillVersion) Layer() ocispec.Descriptor { return m.OCI.Layers[0] }

// Published is a published version with what its repository says of it:
// every version, the version's status and which versions are yanked
// (`skillpm info`). Statuses count only under a trust policy, so the
// registry leaves filling them to its caller.
type Published struct {
	// Repository is the repository the version is in.
	Repository *Repository
	// Manifest is the version a reference selected (its metadata, layer
	// and raw manifest).
	Manifest *SkillVersion
	// Versions are every version the repository has; nil when only the
	// manifest was read.
	Versions []*semver.Version
	// Status is the publisher's status of Manifest (yanked, deprecated),
	// read from the attestations attached to it.
	Status *VersionStatus
	// Yanked are the versions of Versions that are yanked.
	Yanked []string
}

// Metadata is a skill version's description as its manifest annotations
// carry it (artifact.md). For an artifact pushed by another tool without
// skillpm's annotations, the missing fields come from the config blob (the
// frontmatter) and are listed in FromConfig; the layer is never needed.
type Metadata struct {
	// Name and Version identify the skill.
	Name, Version string
	// Description and License are the frontmatter's.
	Description, License string
	// Tier is the claimed security tier (experimental when none).
	Tier skill.Tier
	// Requires maps each dependency (declared or implicit) to its range.
	Requires map[string]string
	// Permissions are the declared permissions.
	Permissions []string
	// Tree is the "sha256:<hex>" tree hash of the layer's files; "" when
	// the artifact carries none (the unpacked tree cannot be checked).
	Tree string
	// Source and Revision are the git origin and commit, when published
	// from a checkout; Created is set only under SOURCE_DATE_EPOCH.
	Source, Revision, Created string
	// FromConfig lists the fields read from the config blob because their
	// annotation is missing.
	FromConfig []string
}

// parseManifest checks that data is a skill manifest and reads its
// annotations. need lists the annotations that were missing, to be filled
// from the config.
func parseManifest(loc Location, desc ocispec.Descriptor, data []byte) (*SkillVersion, []string, error) {
	at := fmt.Sprintf("%s@%s", loc, desc.Digest)
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, fmt.Errorf("%s: %w: manifest is not JSON: %v", at, ErrInvalidArtifact, err)
	}
	if m.MediaType != "" && m.MediaType != ocispec.MediaTypeImageManifest {
		return nil, nil, fmt.Errorf("%s: %w: it is a %s, not an OCI image manifest", at, ErrNotSkill, m.MediaType)
	}
	if m.ArtifactType != ArtifactType && m.Config.MediaType != ConfigMediaType {
		what := m.ArtifactType
		if what == "" {
			what = m.Config.MediaType
		}
		return nil, nil, fmt.Errorf("%s: %w: its type is %q, not %q", at, ErrNotSkill, what, ArtifactType)
	}
	if len(m.Layers) != 1 || m.Layers[0].MediaType != LayerMediaType {
		return nil, nil, fmt.Errorf("%s: %w: a skill has exactly one %s layer, this manifest has %d layers", at, ErrInvalidArtifact, LayerMediaType, len(m.Layers))
	}
	a := m.Annotations
	md := Metadata{
		Name:        a[ocispec.AnnotationTitle],
		Version:     a[ocispec.AnnotationVersion],
		Description: a[ocispec.AnnotationDescription],
		License:     a[ocispec.AnnotationLicenses],
		Tier:        skill.Tier(a[AnnotationTier]),
		Tree:        a[AnnotationTree],
		Source:      a[ocispec.AnnotationSource],
		Revision:    a[ocispec.AnnotationRevision],
		Created:     a[ocispec.AnnotationCreated],
	}
	var need []string
	if v, ok := a[AnnotationRequires]; ok {
		if err := json.Unmarshal([]byte(v), &md.Requires); err != nil {
			return nil, nil, fmt.Errorf("%s: %w: annotation %s is not a JSON object of ranges: %v", at, ErrInvalidArtifact, AnnotationRequires, err)
		}
	} else {
		need = append(need, "requires")
	}
	if v, ok := a[AnnotationPermissions]; ok {
		if err := json.Unmarshal([]byte(v), &md.Permissions); err != nil {
			return nil, nil, fmt.Errorf("%s: %w: annotation %s is not a JSON array of strings: %v", at, ErrInvalidArtifact, AnnotationPermissions, err)
		}
	} else {
		need = append(need, "permissions")
	}
	for _, f := range []struct {
		name string
		v    string
	}{{"name", md.Name}, {"version", md.Version}, {"description", md.Description}, {"tier", string(md.Tier)}} {
		// A tier annotation present and empty says the skill claims none.
		if _, ok := a[AnnotationTier]; f.v == "" && !(f.name == "tier" && ok) {
			need = append(need, f.name)
		}
	}
	if md.Requires == nil && !slices.Contains(need, "requires") {
		md.Requires = map[string]string{}
	}
	return &SkillVersion{Descriptor: desc, Raw: data, OCI: m, Metadata: md}, need, nil
}

// configMetadata is what a config blob says, for artifacts without
// skillpm's annotations.
type configMetadata struct {
	name, version, description, license, tier string
	requires                                  map[string]string
	permissions                               []string
}

func parseConfig(at string, data []byte) (*configMetadata, error) {
	s, ds := skill.ParseCanonicalJSON(data)
	if s == nil {
		return nil, fmt.Errorf("%s: %w: config: %v", at, ErrInvalidArtifact, ds.Err())
	}
	cm := &configMetadata{
		name: s.Name, version: s.Version, description: s.Description, license: s.License,
		tier: string(s.Claim()), requires: map[string]string{}, permissions: s.PermissionStrings(),
	}
	for _, d := range s.Dependencies() {
		cm.requires[d.Name] = d.Range
	}
	return cm, nil
}

// fill completes md from the config for the fields listed in need.
func (md *Metadata) fill(cm *configMetadata, need []string) {
	for _, f := range need {
		switch f {
		case "name":
			md.Name = cm.name
		case "version":
			md.Version = cm.version
		case "description":
			md.Description = cm.description
		case "tier":
			md.Tier = skill.Tier(cm.tier)
		case "requires":
			md.Requires = cm.requires
		case "permissions":
			md.Permissions = cm.permissions
		}
		md.FromConfig = append(md.FromConfig, f)
	}
	if md.License == "" {
		md.License = cm.license
	}
	sort.Strings(md.FromConfig)
}
