package engine

import (
	"context"
	"slices"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// updateProject is Update in a project: the skills named (or all) go to
// the newest versions the ranges allow (with Breaking or Latest the
// ranges move first), the others keep their locked versions, the result
// is installed into the project's roots, and the manifest and lock are
// written together once it is (apply).
func (e *Engine) updateProject(ctx context.Context, r UpdateRequest) (*UpdateResult, error) {
	p, err := openProject(ctx, e.opts.Manifest, e.opts.Lock)
	if err != nil {
		return nil, err
	}
	if err := p.manifest.CheckSkills(p.prev, r.Names); err != nil {
		return nil, err
	}
	out := &UpdateResult{Manifest: p.manifest}
	data := p.data
	if r.Breaking || r.Latest {
		graph, err := e.graph(p.manifest)
		if err != nil {
			return nil, err
		}
		if out.Ranges, err = rangeBumps(ctx, graph, p.manifest, r.Names, r.Latest, e.opts.Prerelease); err != nil {
			return nil, err
		}
		if len(out.Ranges) > 0 {
			if data, err = resolve.EditManifest(p.manifest.File, p.data, resolve.ManifestEdit{Set: out.Ranges}); err != nil {
				return nil, invalid(err)
			}
			// The range changes are shown before anything is resolved
			// or installed.
			e.event("ranges", out)
		}
	}
	out.Result, _, err = e.apply(ctx, p.update(data, r.Names, r.InstallRequest))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// update is the apply of an update of the skills named (all when none)
// to the manifest data: their locked versions are dropped, so that they
// and what they need resolve afresh (git references to their newest
// commits), the others keep theirs. Outdated resolves the same request
// without installing, so that it lists what an update moves.
func (p *projectFiles) update(data []byte, names []string, ir InstallRequest) applyRequest {
	return applyRequest{Manifest: p.manifest.File, Lock: p.lockFile, Data: data, OldData: p.data,
		Prev: p.prev.Without(names...), InstallRequest: ir}
}

// rangeBumps returns the manifest edits of an update with Breaking
// (latest false: only ranges the newest release is outside of) or Latest
// (every range): each chosen requirement becomes ^NEWEST.
func rangeBumps(ctx context.Context, graph *catalog.Registry, m *resolve.Manifest, names []string, latest, pre bool) (map[string]string, error) {
	set := map[string]string{}
	ns := graph.Namespace()
	for _, r := range m.Skills {
		if len(names) > 0 && !slices.Contains(names, resolve.ShortName(r.Name)) && !slices.Contains(names, r.Name) {
			continue
		}
		key, err := ns.Key(r.Name)
		if err != nil {
			return nil, invalid(err)
		}
		vs, err := graph.Versions(ctx, key)
		if err != nil {
			return nil, err
		}
		newest := newestRelease(vs, pre)
		if newest == nil {
			continue
		}
		in, err := resolve.ParseRange(resolve.RangeOrAny(r.Range), pre)
		if err != nil {
			return nil, invalid(err)
		}
		if latest || !in.Contains(newest) {
			if rng := "^" + newest.String(); rng != r.Range {
				set[r.Name] = rng
			}
		}
	}
	return set, nil
}

// newestRelease is the highest version, pre-releases only with pre.
func newestRelease(vs []*semver.Version, pre bool) *semver.Version {
	var best *semver.Version
	for _, v := range vs {
		if v.Prerelease() != "" && !pre {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best = v
		}
	}
	return best
}
