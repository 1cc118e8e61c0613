package engine

import (
	"context"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/resolve"
)

// removeProject is Remove in a project: it takes r.Names out of the
// project manifest, keeps in the lock only what the remaining skills
// reach (at their locked versions), removes the skills and the
// dependencies nothing else needs from the project's roots, and then
// writes the manifest and the lock together. Nothing is written when a
// root refuses, or with DryRun.
func (e *Engine) removeProject(ctx context.Context, r RemoveRequest) (*RemoveResult, error) {
	p, err := openProject(ctx, e.opts.Manifest, e.opts.Lock)
	if err != nil {
		return nil, err
	}
	out := &RemoveResult{Manifest: p.manifest}
	if out.Removed, err = p.manifest.RequirementsNamed(r.Names); err != nil {
		return nil, err
	}
	data, err := resolve.EditManifest(p.manifest.File, p.data, resolve.ManifestEdit{Remove: out.Removed})
	if err != nil {
		return nil, invalid(err)
	}
	m, err := resolve.ParseManifest(p.manifest.File, data)
	if err != nil {
		return nil, installError(&resolve.Manifest{File: p.manifest.File}, nil, p.lockFile, err)
	}
	m.Dir = p.manifest.Dir
	lock := keepNeeded(p.prev, m)
	placed, err := roots.Project(e.env, e.opts.Target, p.manifest)
	if err != nil {
		return nil, targetErr(err)
	}
	opts := r.Options
	opts.Prune = true
	if opts.LockWait == 0 {
		opts.LockWait = e.opts.LockWait
	}
	opts.AgentsRoots = install.AgentsRoots(e.env)
	for _, root := range placed.Roots {
		rec, err := install.ReadReceipts(root.Dir)
		if err != nil {
			return out, err
		}
		var here []string
		for _, n := range r.Names {
			if _, ok := rec.Get(resolve.ShortName(n)); ok {
				here = append(here, resolve.ShortName(n))
			}
		}
		if len(here) == 0 {
			continue
		}
		res, err := install.Remove(ctx, root.Dir, here, opts)
		if err != nil {
			return out, err
		}
		out.Roots = append(out.Roots, install.Removal{Root: root, RemoveResult: res})
	}
	if !opts.DryRun {
		if err := saveProject(p.manifest.File, p.lockFile, p.data, data, lock); err != nil {
			return out, err
		}
	}
	return out, nil
}

// keepNeeded returns the lock entries the manifest still reaches: its
// requirements and, transitively, their locked dependencies, at the
// versions they had. A nil lock gives an empty one.
func keepNeeded(prev *resolve.Lockfile, m *resolve.Manifest) *resolve.Lockfile {
	out := &resolve.Lockfile{Version: resolve.LockVersion, Skills: []resolve.LockedSkill{}}
	if prev == nil {
		return out
	}
	need := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		if need[name] {
			return
		}
		ls := prev.Get(name)
		if ls == nil {
			return
		}
		need[name] = true
		for d := range ls.Dependencies {
			walk(d)
		}
	}
	for _, q := range m.Skills {
		walk(resolve.ShortName(q.Name))
	}
	for _, s := range prev.Skills {
		if need[s.Name] {
			out.Skills = append(out.Skills, s)
		}
	}
	return out
}
