package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

// projectNames checks that every name is a skill of the project (listed
// in its manifest or its lock) and returns them; a name that is not is a
// usage error listing what the project has.
func projectNames(p *project, names []string) error {
	var have []string
	for _, r := range p.m.Skills {
		have = append(have, resolve.ShortName(r.Name))
	}
	if p.prev != nil {
		for _, s := range p.prev.Skills {
			have = append(have, s.Name)
		}
	}
	sort.Strings(have)
	have = slices.Compact(have)
	for _, n := range names {
		if !slices.Contains(have, n) && !slices.ContainsFunc(p.m.Skills, func(r resolve.Requirement) bool { return r.Name == n }) {
			msg := fmt.Sprintf("%s is not a skill of %s", n, p.mpath)
			if s := suggest(n, have); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, ", ") + "?"
			} else if len(have) > 0 {
				msg += " (it has " + strings.Join(have, ", ") + ")"
			}
			return &usageError{errors.New(msg)}
		}
	}
	return nil
}

// rangeBumps returns the manifest edits of update --breaking (latest
// false: only ranges the newest release is outside of) or --latest (every
// range): each chosen requirement becomes ^NEWEST.
func rangeBumps(ctx context.Context, graph *registry.Graph, m *resolve.Manifest, names []string, latest, pre bool) (map[string]string, error) {
	set := map[string]string{}
	ns := graph.Namespace()
	for _, r := range m.Skills {
		if len(names) > 0 && !slices.Contains(names, resolve.ShortName(r.Name)) && !slices.Contains(names, r.Name) {
			continue
		}
		key, err := ns.Key(r.Name)
		if err != nil {
			return nil, withCode(exitUsage, err)
		}
		vs, err := graph.Versions(ctx, key)
		if err != nil {
			return nil, regExit(err)
		}
		newest := newestRelease(vs, pre)
		if newest == nil {
			continue
		}
		in, err := resolve.ParseRange(orAny(r.Range), pre)
		if err != nil {
			return nil, withCode(exitUsage, err)
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

// projectUpdateFlags are update's project flags.
type projectUpdateFlags struct {
	manifest, lock   string
	breaking, latest bool
}

// runProjectUpdate is update in a project: the named skills (or all) move
// to the newest versions their ranges allow (with --breaking/--latest the
// ranges in skills.yaml move first), the rest keep their locked versions,
// the result is installed into the project's roots, and skills.yaml and
// skills.lock are written together once it is.
func runProjectUpdate(c *cobra.Command, g *globals, f *updateFlags, names []string) error {
	ctx := c.Context()
	p, err := openProject(ctx, f.project.manifest, f.project.lock)
	if err != nil {
		return err
	}
	if err := projectNames(p, names); err != nil {
		return err
	}
	data := p.data
	if f.project.breaking || f.project.latest {
		client, err := regClient(g, &f.regFlags)
		if err != nil {
			return err
		}
		graph, err := projectGraph(client, g, f.from, p.m)
		if err != nil {
			return err
		}
		set, err := rangeBumps(ctx, graph, p.m, names, f.project.latest, f.pre)
		if err != nil {
			return err
		}
		if len(set) > 0 {
			if data, err = resolve.EditManifest(p.mpath, p.data, resolve.ManifestEdit{Set: set}); err != nil {
				return withCode(exitUsage, err)
			}
			if !g.quiet && !g.json() {
				for _, n := range slices.Sorted(maps.Keys(set)) {
					fmt.Fprintf(g.stdout, "%s: %s -> %s in %s\n", n, orAny(rangeOf(p.m, n)), set[n], p.mpath)
				}
			}
		}
	}
	res, lock, err := projectApply(c, g, &f.changeFlags, p, data, p.prev.Without(names...), applyOptions{
		from: f.from, dryRun: f.dryRun, allowExperimental: f.allowExperimental,
		allowSignerChange: f.allowSignerChange, showPlan: true, allowAudit: f.allowAudit,
	})
	if err != nil {
		return err
	}
	if g.json() {
		return writeJSON(g.stdout, map[string]any{"schema": schemaOf("update"), "lock": p.lpath, "changes": res.Changes, "roots": res.Roots, "skills": lockSkills(lock), "dry_run": f.dryRun})
	}
	if f.dryRun {
		return nil
	}
	for _, r := range res.Roots {
		if len(r.Installed) > 0 {
			fmt.Fprintf(g.stdout, "%s: updated %s\n", r.Root.Dir, strings.Join(r.Installed, ", "))
		}
	}
	if !g.quiet {
		fmt.Fprintf(g.stderr, "%s: %s\n", p.lpath, plural(len(lock.Skills), "skill"))
	}
	return nil
}

func rangeOf(m *resolve.Manifest, name string) string {
	for _, r := range m.Skills {
		if r.Name == name {
			return r.Range
		}
	}
	return ""
}

// lockSkills is the JSON form of a lock's entries.
func lockSkills(l *resolve.Lockfile) []lockSkillJSON {
	out := []lockSkillJSON{}
	if l == nil {
		return out
	}
	for _, s := range l.Skills {
		out = append(out, lockSkillJSON{Name: s.Name, Version: s.Version, Source: s.Source, Digest: s.Digest,
			Tree: s.Tree, Dependencies: s.Dependencies, Requested: s.Requested})
	}
	return out
}
