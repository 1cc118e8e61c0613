package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/gitsource"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
)

// OutdatedRequest asks which skills have newer versions, as `skillpm
// outdated` does.
//
// When the Engine's project manifest (Options.Manifest) is found and its
// Target names no custom roots, the skills the manifest asks for are
// checked in the project's roots; otherwise the skills installed by name
// in the roots the Target searches (roots.Searched).
//
// It has no knobs (whether pre-releases count as wanted and latest is the
// Engine's Resolution, as for every operation that picks versions), and
// is a struct so that it can grow some.
type OutdatedRequest struct{}

// OutdatedResult is what Outdated found.
type OutdatedResult struct {
	// Skills are every skill checked, in the manifest's order, else root
	// by root; those behind say so (install.OutdatedSkill.Outdated), and
	// a front end that shows only those filters on it.
	Skills []install.OutdatedSkill
}

// Outdated checks whether skills have newer versions than they have
// (each says whether it is behind: install.OutdatedSkill.Outdated),
// covering what Update would move: a project's skills in its roots (and
// the dependencies its lock holds), else the skills installed by name,
// from git or from a folder, and the dependencies they pulled in.
// Versions come from the Engine's Source, else the manifest's registry,
// else FallbackSource (graph); a git reference's from what it gives now;
// a folder's from building it again.
func (e *Engine) Outdated(ctx context.Context, _ OutdatedRequest) (*OutdatedResult, error) {
	t := e.opts.Target
	// The feed goes out in the same round as the first tag lists; it is
	// waited for, so that nothing of it outlives the call.
	done := make(chan struct{})
	go func() { defer close(done); e.feedAhead(ctx) }()
	defer func() { <-done }()
	var rows []install.OutdatedSkill
	if e.inProject() {
		p, err := openProject(ctx, e.opts.Manifest, e.opts.Lock)
		if err != nil {
			return nil, err
		}
		rows, err = e.outdatedProject(ctx, p, t)
		if err != nil {
			return nil, err
		}
	} else {
		var err error
		if rows, err = e.outdatedInstalled(ctx, t); err != nil {
			return nil, err
		}
	}
	e.decideOutdated(rows)
	if rows == nil {
		rows = []install.OutdatedSkill{}
	}
	return &OutdatedResult{Skills: rows}, nil
}

// outdatedProject checks the skills p's manifest asks for, installed in
// the first of the project's roots holding each.
func (e *Engine) outdatedProject(ctx context.Context, p *projectFiles, t roots.Target) ([]install.OutdatedSkill, error) {
	m := p.manifest
	placed, err := roots.Project(e.env, t, m)
	if err != nil {
		return nil, targetErr(err)
	}
	graph, err := e.graph(m)
	if err != nil {
		return nil, err
	}
	var rows []install.OutdatedSkill
	b := e.localBuilds()
	defer b.close()
	for _, req := range m.Skills {
		if source.IsGitName(req.Name) {
			rs, err := b.project(ctx, p, req, placed.Roots)
			if err != nil {
				return nil, err
			}
			rows = append(rows, rs...)
			continue
		}
		key, err := graph.Namespace().Key(req.Name)
		if err != nil {
			return nil, invalid(err)
		}
		row := install.OutdatedSkill{Name: resolve.ShortName(key), Range: resolve.RangeOrAny(req.Range), Source: graph.Namespace().Repository(key)}
		if ls := p.prev.Get(row.Name); ls != nil {
			row.Locked = ls.Version
		}
		for _, root := range placed.Roots {
			rec, err := install.ReadReceipts(root.Dir)
			if err != nil {
				return nil, err
			}
			if got, ok := rec.Get(row.Name); ok {
				row.Installed, row.Root = got.Version, root.Dir
				break
			}
		}
		if err := e.fillWanted(ctx, graph, key, &row); err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	// The dependencies the lock holds move to what the update of every
	// skill resolves (Project.update, not installed): those of the
	// registry requirements and of the git references alike.
	asked := map[string]bool{}
	for _, r := range rows {
		asked[r.Name] = true
	}
	if p.prev != nil {
		fresh := e.updateLock(ctx, p)
		for _, ls := range p.prev.Skills {
			if asked[ls.Name] || ls.Source == "" {
				continue
			}
			row := install.OutdatedSkill{Name: ls.Name, Locked: ls.Version, Source: ls.Source}
			for _, root := range placed.Roots {
				rec, err := install.ReadReceipts(root.Dir)
				if err != nil {
					return nil, err
				}
				if got, ok := rec.Get(ls.Name); ok {
					row.Installed, row.Root = got.Version, root.Dir
					break
				}
			}
			if err := e.fillDependency(ctx, graph, fresh, &row); err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// updateLock is the lock an update of every skill of p would write
// (Project.update, resolved without installing); nil when it does not
// resolve (the update would say why).
func (e *Engine) updateLock(ctx context.Context, p *projectFiles) *resolve.Lockfile {
	req := p.update(p.data, nil, InstallRequest{DryRun: true})
	req.NoInstall = true
	_, lock, err := e.apply(ctx, req)
	if err != nil {
		e.warn(fmt.Sprintf("outdated: the dependencies of %s were not checked: %v", p.manifest.File, err))
		return nil
	}
	return lock
}

// fillDependency sets a dependency's latest version and status as
// fillWanted does, and its wanted version to the one fresh (what needs
// it, resolved afresh) gives.
func (e *Engine) fillDependency(ctx context.Context, graph *catalog.Registry, fresh *resolve.Lockfile, row *install.OutdatedSkill) error {
	if err := e.fillWanted(ctx, graph, graph.Namespace().KeyOf(row.Source), row); err != nil {
		return err
	}
	row.Wanted = ""
	if ls := fresh.Get(row.Name); ls != nil {
		row.Wanted = ls.Version
	}
	return nil
}

// outdatedInstalled checks the skills installed in the roots t searches:
// by name, from git, from a folder (built again), and the dependencies
// they pulled in (what an update of the root resolves: rootUpdateLock).
func (e *Engine) outdatedInstalled(ctx context.Context, t roots.Target) ([]install.OutdatedSkill, error) {
	searched, err := roots.Searched(e.env, t)
	if err != nil {
		return nil, targetErr(err)
	}
	graph, err := e.graph(&resolve.Manifest{File: "the receipts"})
	if err != nil {
		return nil, err
	}
	var rows []install.OutdatedSkill
	b := e.localBuilds()
	defer b.close()
	for _, root := range searched {
		rec, err := install.ReadReceipts(root.Dir)
		if err != nil {
			return nil, err
		}
		built, err := b.root(ctx, rec, nil)
		if err != nil {
			return nil, err
		}
		var fresh *resolve.Lockfile
		freshDone := false
		for _, s := range rec.Skills {
			if s.IsLink() {
				continue // it follows its copy
			}
			if s.Explicit() && s.Git != "" {
				rows = append(rows, gitRow(s, root.Dir, built))
				continue
			}
			if fromFolder(s) {
				rows = append(rows, folderRow(s, root.Dir, built))
				continue
			}
			if s.Source == "" {
				continue
			}
			if !s.Explicit() {
				if !freshDone {
					fresh, freshDone = e.rootUpdateLock(ctx, graph, rec, root.Dir, built), true
				}
				row := install.OutdatedSkill{Name: s.Name, Installed: s.Version, Root: root.Dir, Source: s.Source}
				if err := e.fillDependency(ctx, graph, fresh, &row); err != nil {
					return nil, err
				}
				rows = append(rows, row)
				continue
			}
			row := install.OutdatedSkill{Name: s.Name, Installed: s.Version, Range: s.Requested, Root: root.Dir, Source: s.Source}
			if err := e.fillWanted(ctx, graph, graph.Namespace().KeyOf(s.Source), &row); err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// rootUpdateLock resolves what an update of every skill of a root moves
// its dependencies to: the skills asked for by name in their recorded
// ranges, and those from git and folders as they build now (what Update
// installs them again from), with nothing locked; nil when it does not
// resolve (the update would say why).
func (e *Engine) rootUpdateLock(ctx context.Context, graph *catalog.Registry, rec *install.Receipts, root string, built rootBuilds) *resolve.Lockfile {
	var cat resolve.Catalog = graph
	m := install.UpdateManifest(rec, "the receipts of "+root)
	if len(built.locals) > 0 {
		var err error
		if cat, m, err = install.CatalogWith(graph, m, built.locals); err != nil {
			e.warn(fmt.Sprintf("outdated: the dependencies in %s were not checked: %v", root, err))
			return nil
		}
	}
	lock, err := resolve.Lock(ctx, cat, m, nil, resolve.LockOptions{Prerelease: e.opts.Prerelease, Hide: e.hideYanked(graph)})
	if err != nil {
		e.warn(fmt.Sprintf("outdated: the dependencies in %s were not checked: %v", root, err))
		return nil
	}
	return lock
}

// folderRow is the outdated row of rec, installed in root from a folder:
// the version the folder builds at now (built) is wanted and latest; a
// folder that is gone has neither.
func folderRow(rec install.Record, root string, built rootBuilds) install.OutdatedSkill {
	row := install.OutdatedSkill{Name: rec.Name, Installed: rec.Version, Range: resolve.AnyRange, Root: root, Source: rec.LocalPath}
	l, ok := built.byName(rec.Name)
	if !ok {
		return row
	}
	row.Wanted, row.Latest = l.Artifact.Skill.Version, l.Artifact.Skill.Version
	switch {
	case l.Artifact.Pack.TreeHash == rec.Tree:
		row.Wanted, row.Latest = rec.Version, rec.Version
	case l.Artifact.Skill.Version == rec.Version:
		// The files changed under the same declared version: update
		// moves it, so outdated lists it, as the build of these files
		// (the version with the tree as build metadata, as an unversioned
		// folder's 0.0.0+tree.HASH names its files).
		if v, err := semver.StrictNewVersion(rec.Version); err == nil && v.Metadata() == "" {
			tv := registry.TreeVersion(l.Artifact.Pack.TreeHash)
			if nv, err := v.SetMetadata(strings.TrimPrefix(tv, registry.Unversioned+"+")); err == nil {
				row.Wanted, row.Latest = nv.String(), nv.String()
			}
		}
	}
	return row
}

// rebuildFolder builds again the folder rec was installed from; ok is
// false when the folder no longer holds that skill.
func (e *Engine) rebuildFolder(ctx context.Context, rec install.Record) (install.Local, bool, error) {
	if fi, err := os.Stat(filepath.Join(rec.LocalPath, skill.SkillFile)); err != nil || !fi.Mode().IsRegular() {
		return install.Local{}, false, nil
	}
	l, err := e.buildLocal(ctx, rec.LocalPath, false)
	if err != nil {
		return install.Local{}, false, err
	}
	return l, l.Artifact.Skill.Name == rec.Name, nil
}

// fillWanted sets the row's wanted (newest in its range) and latest
// (newest release) versions, which are never yanked ones, and the status
// of its current version; a skill no longer published has neither.
func (e *Engine) fillWanted(ctx context.Context, graph *catalog.Registry, key string, row *install.OutdatedSkill) error {
	vs, err := graph.Versions(ctx, key)
	if err != nil {
		if errors.Is(err, resolve.ErrNotFound) {
			return nil
		}
		return err
	}
	sts, err := e.statuses(ctx, graph, key, vs)
	if err != nil {
		return err
	}
	cur := cmp.Or(row.Locked, row.Installed)
	if st := sts[cur]; st != nil {
		row.Yanked, row.YankReason, row.Deprecated = st.Yanked, st.Reason, st.Deprecated
	}
	ch, err := e.checkedAdvisories(ctx)
	if err != nil {
		return err
	}
	if cur != "" {
		row.Advisories = ch.Index.Advised(row.Name, cur, row.Source)
	}
	vs = slices.DeleteFunc(slices.Clone(vs), func(v *semver.Version) bool {
		st := sts[v.Original()]
		return st != nil && st.Yanked
	})
	if v := newestRelease(vs, e.opts.Prerelease); v != nil {
		row.Latest = v.String()
	}
	set, err := resolve.ParseRange(resolve.RangeOrAny(row.Range), e.opts.Prerelease)
	if err != nil {
		return invalid(fmt.Errorf("%s: range %q: %w", row.Name, row.Range, err))
	}
	for _, v := range vs {
		if set.Contains(v) && (row.Wanted == "" || newer(v.String(), row.Wanted)) {
			row.Wanted = v.String()
		}
	}
	return nil
}

// gitRow is the outdated row of rec, installed in root from git: wanted
// and latest are the version the reference it was asked for by gives now
// (built).
func gitRow(rec install.Record, root string, built rootBuilds) install.OutdatedSkill {
	row := install.OutdatedSkill{Name: rec.Name, Installed: rec.Version, Range: resolve.AnyRange, Root: root, Source: rec.Git}
	if ref, err := gitsource.Parse(rec.Git); err == nil && ref.Rev != "" {
		row.Range = ref.Rev
	}
	if l, ok := built.byName(rec.Name); ok {
		row.Wanted, row.Latest = l.Artifact.Skill.Version, l.Artifact.Skill.Version
	}
	return row
}

// project gives the rows of the skills the manifest's git requirement
// req brings: locked as p's lock says, installed in the first of roots
// holding each, wanted and latest what the reference (with req's range
// over its version tags) gives now, as install would resolve it again.
func (b *localBuilds) project(ctx context.Context, p *projectFiles, req resolve.Requirement, roots []install.Root) ([]install.OutdatedSkill, error) {
	at := fmt.Sprintf("%s:%d", p.manifest.File, req.Line)
	ref, err := gitsource.Parse(req.Name)
	if err != nil {
		return nil, gitErr(fmt.Errorf("%s: %w", at, err))
	}
	if req.Range != resolve.AnyRange && req.Range != "" && ref.Rev == "" {
		ref = ref.At(req.Range)
	}
	ls, err := b.git(ctx, ref.String())
	if err != nil {
		return nil, err
	}
	vs := map[string]string{}
	for _, l := range ls {
		vs[l.Artifact.Skill.Name] = l.Artifact.Skill.Version
	}
	var rows []install.OutdatedSkill
	for _, name := range slices.Sorted(maps.Keys(vs)) {
		row := install.OutdatedSkill{Name: name, Range: resolve.RangeOrAny(req.Range), Source: req.Name, Wanted: vs[name], Latest: vs[name]}
		if ls := p.prev.Get(name); ls != nil {
			row.Locked = ls.Version
		}
		for _, root := range roots {
			rec, err := install.ReadReceipts(root.Dir)
			if err != nil {
				return nil, err
			}
			if got, ok := rec.Get(name); ok {
				row.Installed, row.Root = got.Version, root.Dir
				break
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}
