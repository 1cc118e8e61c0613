package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

// runProjectRemove is remove in a project (the engine's Remove there):
// the names leave skills.yaml, skills.lock keeps only what the remaining
// skills need, the project's roots lose the skills and the dependencies
// nothing else needs. Nothing is written when a root refuses.
func runProjectRemove(c *cobra.Command, g *globals, e *engine.Engine, r engine.RemoveRequest) error {
	res, err := e.Remove(c.Context(), r)
	if nip, ok := errors.AsType[*resolve.NotInProjectError](err); ok {
		msg := nip.Error()
		if s := suggest(nip.Name, nip.Have); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, ", ") + "?"
		}
		return &usageError{fmt.Errorf("%s (use --no-save to remove an installed copy only)", msg)}
	} else if err != nil {
		return projectFailure(c.Context(), g, e, err)
	}
	return printProjectRemoval(g, res, r.Options.DryRun)
}

// printProjectRemoval renders a removal from a project: JSON, or what
// left the manifest and each root.
func printProjectRemoval(g *globals, res *engine.RemoveResult, dryRun bool) error {
	type rootResult struct {
		Root    string   `json:"root"`
		Removed []string `json:"removed"`
	}
	results := []rootResult{}
	for _, r := range res.Roots {
		results = append(results, rootResult{Root: r.Root.Dir, Removed: r.Removed})
	}
	if g.json() {
		return g.writeJSON(map[string]any{"schema": schemaOf("remove"), "manifest": res.Manifest.File, "lock": projectOption{}.lockOf(res.Manifest), "removed": res.Removed, "roots": results, "dry_run": dryRun})
	}
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	fmt.Fprintf(g.stdout, "%s %s from %s\n", verb, strings.Join(res.Removed, ", "), res.Manifest.File)
	for _, r := range results {
		fmt.Fprintf(g.stdout, "%s %s from %s\n", verb, strings.Join(r.Removed, ", "), r.Root)
	}
	return nil
}
