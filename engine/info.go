package engine

import (
	"context"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/advisory"
)

// InfoResult is a published version and the versions its repository has
// (Describe's Published).
type InfoResult struct {
	Repository *registry.Repository
	// Manifest is the version the reference selected (its metadata,
	// layer and raw manifest).
	Manifest *registry.SkillVersion
	// Versions are every version the repository has.
	Versions []*semver.Version
	// Status is the publisher's status of Manifest (yanked, deprecated),
	// read from the attestations attached to it.
	Status *registry.VersionStatus
	// Yanked are the versions of Versions that are yanked.
	Yanked []string
	// Advisories are the obeyed advisories naming Manifest.
	Advisories []advisory.Advised
}

// infoManifest is what `skillpm info` shows of a published version m of
// repo: every version of the repository, m's status and advisories, and
// which versions are yanked. Only manifests are read, never layers.
func (e *Engine) infoManifest(ctx context.Context, repo *registry.Repository, m *registry.SkillVersion) (*InfoResult, error) {
	vs, err := repo.Versions(ctx)
	if err != nil {
		return nil, err
	}
	st, err := e.statusOf(ctx, repo, m)
	if err != nil {
		return nil, err
	}
	e.warnIgnored(st)
	info := &InfoResult{Repository: repo, Manifest: m, Versions: vs, Status: st}
	ch, err := e.checkedAdvisories(ctx)
	if err != nil {
		return nil, err
	}
	info.Advisories = ch.Index.Advised(m.Metadata.Name, m.Metadata.Version, repo.TrustRepository(), m.Descriptor.Digest.String(), m.Metadata.Tree)
	tags, err := repo.Tags(ctx)
	if err != nil {
		return nil, err
	}
	marked := registry.StatusVersions(tags)
	for _, v := range vs {
		if !marked[v.Original()] {
			continue
		}
		if vst, _, err := e.statusVersion(ctx, repo, v); err != nil {
			return nil, err
		} else if vst != nil && vst.Yanked {
			info.Yanked = append(info.Yanked, v.Original())
		}
	}
	return info, nil
}
