package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

// notInProjectErr words a skill the project does not have, with the
// names it has closest to it, else all of them.
func notInProjectErr(nip *resolve.NotInProjectError) error {
	msg := fmt.Sprintf("%s is not a skill of %s", nip.Name, nip.Manifest)
	if s := suggest(nip.Name, nip.Have); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	} else if len(nip.Have) > 0 {
		msg += " (it has " + strings.Join(nip.Have, ", ") + ")"
	}
	return &usageError{errors.New(msg)}
}

// projectUpdateFlags are update's project flags.
type projectUpdateFlags struct {
	projectOption
	breaking, latest bool
}

// runProjectUpdate is update in a project: the named skills (or all) move
// to the newest versions their ranges allow (with --breaking/--latest the
// ranges in skills.yaml move first), the rest keep their locked versions,
// the result is installed into the project's roots, and skills.yaml and
// skills.lock are written together once it is.
func runProjectUpdate(c *cobra.Command, g *globals, f *updateFlags, e *engine.Engine, r engine.UpdateRequest) error {
	r.Breaking, r.Latest = f.project.breaking, f.project.latest
	res, err := e.Update(c.Context(), r)
	if err != nil {
		return projectFailure(c.Context(), g, e, err)
	}
	return printProjectUpdate(g, res, f.project.lockOf(res.Manifest), f.dryRun)
}

// printRangeBumps shows each range update moves in skills.yaml (an event
// of the engine's log), before the plan.
func printRangeBumps(g *globals) func(*engine.UpdateResult) {
	return func(u *engine.UpdateResult) {
		if !g.quiet && !g.json() {
			m := u.Manifest
			for _, n := range slices.Sorted(maps.Keys(u.Ranges)) {
				fmt.Fprintf(g.stdout, "%s: %s -> %s in %s\n", n, resolve.RangeOrAny(m.Range(n)), u.Ranges[n], m.File)
			}
		}
	}
}

// printProjectUpdate renders an update in a project.
func printProjectUpdate(g *globals, res *engine.UpdateResult, lpath string, dryRun bool) error {
	lock := res.Result.Lock
	if g.json() {
		return g.writeJSON(map[string]any{"schema": schemaOf("update"), "lock": lpath, "changes": res.Result.Changes, "roots": res.Result.Roots, "skills": lockSkills(lock), "dry_run": dryRun})
	}
	if dryRun {
		return nil
	}
	for _, r := range res.Result.Roots {
		if len(r.Installed) > 0 {
			fmt.Fprintf(g.stdout, "%s: updated %s\n", r.Root.Dir, strings.Join(r.Installed, ", "))
		}
	}
	if !g.quiet {
		fmt.Fprintf(g.stderr, "%s: %s\n", lpath, plural(len(lock.Skills), "skill"))
	}
	return nil
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
