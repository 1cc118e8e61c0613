package engine

import (
	"context"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/advisory"
)

// infoManifest is what `skillpm info` shows of a published version m of
// repo: every version of the repository, m's status and advisories, and
// which versions are yanked. Only manifests are read, never layers.
func (e *Engine) infoManifest(ctx context.Context, repo *registry.Repository, m *registry.SkillVersion) (*registry.Published, []advisory.Advised, error) {
	vs, err := repo.Versions(ctx)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.statusOf(ctx, repo, m)
	if err != nil {
		return nil, nil, err
	}
	e.warnIgnored(st)
	info := &registry.Published{Repository: repo, Manifest: m, Versions: vs, Status: st}
	ch, err := e.checkedAdvisories(ctx)
	if err != nil {
		return nil, nil, err
	}
	advised := ch.Index.Advised(m.Metadata.Name, m.Metadata.Version, repo.TrustRepository(), m.Descriptor.Digest.String(), m.Metadata.Tree)
	tags, err := repo.Tags(ctx)
	if err != nil {
		return nil, nil, err
	}
	marked := registry.StatusVersions(tags)
	for _, v := range vs {
		if !marked[v.Original()] {
			continue
		}
		if vst, _, err := e.statusVersion(ctx, repo, v); err != nil {
			return nil, nil, err
		} else if vst != nil && vst.Yanked {
			info.Yanked = append(info.Yanked, v.Original())
		}
	}
	return info, advised, nil
}
