package registry

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/pkg/skill"
)

// ContentMismatchError reports a manifest whose index (its annotations,
// or its config where an annotation is missing) disagrees with the
// SKILL.md inside its own layer. The index is only for search and
// resolution: the bytes that land decide, so such an artifact is refused.
type ContentMismatchError struct {
	// Skill is "name@version" as the index gives it.
	Skill string
	// Field is the disagreeing field: name, version, tier, permissions or
	// requires.
	Field string
	// Index and Layer are the two values, rendered for a message.
	Index, Layer string
	// FromConfig is true when the index value came from the config blob.
	FromConfig bool
}

// Error names the skill, the field and both values.
func (e *ContentMismatchError) Error() string {
	where := "annotations say"
	if e.FromConfig {
		where = "config says"
	}
	return fmt.Sprintf("%s: the manifest's %s %s %s, the SKILL.md inside the layer says %s; the artifact does not describe its own content: do not install it and tell its publisher to republish it with skillpm publish",
		e.Skill, where, e.Field, e.Index, e.Layer)
}

// Unwrap makes errors.Is(err, ErrContentMismatch) true.
func (e *ContentMismatchError) Unwrap() error { return ErrContentMismatch }

// IndexOf is the metadata an honest manifest of s carries: what Build
// writes into the annotations. It is what [CheckContent] compares with.
func IndexOf(s *skill.Skill) Metadata {
	md := Metadata{Name: s.Name, Version: s.Version, Description: s.Description, License: s.License,
		Tier: s.Claim(), Permissions: s.PermissionStrings(), Requires: map[string]string{}}
	for _, d := range s.Dependencies() {
		md.Requires[d.Name] = d.Range
	}
	return md
}

// CheckContent compares md, the index a manifest gives, with s, the
// SKILL.md parsed from that manifest's own layer: name, version, claimed
// tier, permissions and requirements must agree (a SKILL.md without a
// version agrees with a pseudo-version). The first disagreement
// is returned as a *ContentMismatchError.
func CheckContent(md Metadata, s *skill.Skill) error {
	want := IndexOf(s)
	at := md.Name + "@" + md.Version
	fromConfig := func(f string) bool { return slices.Contains(md.FromConfig, f) }
	check := func(field, index, layer string) error {
		if index == layer {
			return nil
		}
		return &ContentMismatchError{Skill: at, Field: field, Index: index, Layer: layer, FromConfig: fromConfig(field)}
	}
	if err := check("name", md.Name, want.Name); err != nil {
		return err
	}
	// A SKILL.md that declares no version stands for 0.0.0, which a
	// pseudo-version (PseudoVersion, TreeVersion) is.
	if !DeclaresNoVersion(want.Version) || !IsPseudoVersion(md.Version) {
		if err := check("version", md.Version, want.Version); err != nil {
			return err
		}
	}
	// An index claiming experimental agrees with a layer claiming
	// nothing (artifacts built before "" meant no claim wrote that); an
	// index claiming nothing never agrees with a layer's claim.
	if md.Tier != want.Tier && (md.Tier != skill.TierExperimental || want.Tier != "") {
		return check("tier", string(md.Tier), string(want.Tier))
	}
	if err := check("permissions", setString(md.Permissions), setString(want.Permissions)); err != nil {
		return err
	}
	return check("requires", mapString(md.Requires), mapString(want.Requires))
}

func setString(v []string) string {
	s := slices.Clone(v)
	slices.Sort(s)
	s = slices.Compact(s)
	return "[" + strings.Join(s, ", ") + "]"
}

func mapString(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + m[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// CheckLayer unpacks m's layer into a temporary directory (with the
// bounded unpacker, checking the tree hash the manifest carries), parses
// its SKILL.md and compares it with the manifest's index (CheckContent).
// Mirror with Verify uses it, so a mirror never carries an artifact that
// install would refuse for disagreeing with itself.
func (r *Repository) CheckLayer(ctx context.Context, m *SkillVersion) error {
	tmp, err := os.MkdirTemp("", "skillpm-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if _, err := r.Pull(ctx, m, filepath.Join(tmp, "skill"), PullOptions{}); err != nil {
		return err
	}
	s, ds := skill.Load(ctx, filepath.Join(tmp, "skill"), skill.Options{Mode: skill.Lenient})
	if s == nil || ds.HasErrors() {
		return fmt.Errorf("%s@%s: %w: the SKILL.md inside the layer does not load: %v", r.loc, m.Metadata.Version, ErrInvalidArtifact, ds.Err())
	}
	return CheckContent(m.Metadata, s)
}

// checkArtifact refuses to publish an artifact whose annotations were
// not generated from its own content: Build writes them from the parsed
// SKILL.md and the packed tree, and nothing else may.
func checkArtifact(a *Artifact) error {
	if a == nil || a.Skill == nil || len(a.Manifest.Layers) != 1 {
		return fmt.Errorf("%w: not an artifact made by Build", ErrInvalidArtifact)
	}
	m, need, err := parseManifest(Location{}, a.Descriptor, a.ManifestBytes)
	if err != nil {
		return err
	}
	if len(need) > 0 {
		return fmt.Errorf("%s@%s: %w: annotations %s are missing; build the artifact with skillpm publish", a.Skill.Name, a.Skill.Version, ErrInvalidArtifact, strings.Join(need, ", "))
	}
	if m.Metadata.Tree != a.Pack.TreeHash {
		return &ContentMismatchError{Skill: a.Skill.Name + "@" + a.Skill.Version, Field: "tree", Index: m.Metadata.Tree, Layer: a.Pack.TreeHash}
	}
	if digest.FromBytes(a.ManifestBytes) != a.Descriptor.Digest || a.Manifest.Layers[0].Digest != digest.FromBytes(a.Layer) {
		return fmt.Errorf("%s@%s: %w: the manifest, descriptor and layer do not match", a.Skill.Name, a.Skill.Version, ErrInvalidArtifact)
	}
	return CheckContent(m.Metadata, a.Skill)
}
