package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

// runProjectRemove is remove in a project: the names leave skills.yaml,
// skills.lock keeps only what the remaining skills need (at the versions
// it had), the project's roots lose the skills and the dependencies
// nothing else needs, and then skills.yaml and skills.lock are written
// together. Nothing is written when a root refuses.
func runProjectRemove(c *cobra.Command, g *globals, rf *rootFlags, opts install.RemoveOptions, names []string) error {
	ctx := c.Context()
	p, err := openProject(ctx, "", "")
	if err != nil {
		return err
	}
	var written []string
	for _, n := range names {
		i := slices.IndexFunc(p.m.Skills, func(r resolve.Requirement) bool { return r.Name == n || resolve.ShortName(r.Name) == n })
		if i < 0 {
			var have []string
			for _, r := range p.m.Skills {
				have = append(have, r.Name)
			}
			msg := fmt.Sprintf("%s is not in %s", n, p.mpath)
			if s := suggest(n, have); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, ", ") + "?"
			}
			return &usageError{fmt.Errorf("%s (use --no-save to remove an installed copy only)", msg)}
		}
		written = append(written, p.m.Skills[i].Name)
	}
	data, err := resolve.EditManifest(p.mpath, p.data, resolve.ManifestEdit{Remove: written})
	if err != nil {
		return withCode(exitUsage, err)
	}
	m, err := p.parse(data)
	if err != nil {
		return err
	}
	lock := keepNeeded(p.prev, m)
	roots, err := projectRoots(g, rf, p.m)
	if err != nil {
		return err
	}
	type rootResult struct {
		Root    string   `json:"root"`
		Removed []string `json:"removed"`
	}
	results := []rootResult{}
	opts.Prune = true
	for _, r := range roots {
		rec, err := install.ReadReceipts(r.Dir)
		if err != nil {
			return err
		}
		var here []string
		for _, n := range names {
			if _, ok := rec.Get(resolve.ShortName(n)); ok {
				here = append(here, resolve.ShortName(n))
			}
		}
		if len(here) == 0 {
			continue
		}
		res, err := install.Remove(ctx, r.Dir, here, opts)
		if err != nil {
			return removeExit(err)
		}
		results = append(results, rootResult{Root: r.Dir, Removed: res.Removed})
	}
	if !opts.DryRun {
		if err := p.save(data, lock); err != nil {
			return err
		}
	}
	if g.json() {
		return writeJSON(g.stdout, map[string]any{"schema": schemaOf("remove"), "manifest": p.mpath, "lock": p.lpath, "removed": written, "roots": results, "dry_run": opts.DryRun})
	}
	verb := "removed"
	if opts.DryRun {
		verb = "would remove"
	}
	fmt.Fprintf(g.stdout, "%s %s from %s\n", verb, strings.Join(written, ", "), p.mpath)
	for _, r := range results {
		fmt.Fprintf(g.stdout, "%s %s from %s\n", verb, strings.Join(r.Removed, ", "), r.Root)
	}
	return nil
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
	for _, r := range m.Skills {
		walk(resolve.ShortName(r.Name))
	}
	for _, s := range prev.Skills {
		if need[s.Name] {
			out.Skills = append(out.Skills, s)
		}
	}
	return out
}
