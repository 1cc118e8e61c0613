package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/install"
)

// warnOnce prints each distinct warning once per command (unless -q):
// an install of several roots meets the same skill several times.
// resolverWarn renders each warning as lock and bundle always have:
// "skillpm: warning: ...", every one, even with -q.
func resolverWarn(g *globals) func(string) {
	return func(msg string) {
		if o := g.o(); o.level < levelNormal || o.json {
			o.Warn(msg) // nothing with -q, a JSON line in JSON mode
			return
		}
		fmt.Fprintf(g.stderr, "skillpm: warning: %s\n", termLines(msg))
	}
}

func warnOnce(g *globals) func(string) {
	seen := map[string]bool{}
	return func(s string) {
		if g.quiet || seen[s] {
			return
		}
		seen[s] = true
		g.o().Warn(s)
	}
}

// dryRunRoots keeps, in each root's "installed", only the skills the
// dry run would change; the others are listed as unchanged.
func dryRunRoots(res *install.Result) []install.RootResult {
	out := []install.RootResult{}
	for _, r := range res.Roots {
		nr := install.RootResult{Root: r.Root, Installed: []string{}, Unchanged: []string{}}
		for _, n := range append(append([]string{}, r.Installed...), r.Unchanged...) {
			changed := slices.ContainsFunc(res.Changes, func(c install.Change) bool { return c.Root == r.Root.Dir && c.Name == n })
			if changed {
				nr.Installed = append(nr.Installed, n)
			} else {
				nr.Unchanged = append(nr.Unchanged, n)
			}
		}
		out = append(out, nr)
	}
	return out
}

// printRoots prints what an install did in each root, as install does.
func printRoots(g *globals, res *install.Result, dryRun bool) {
	if dryRun {
		printPlan(g.stdout, res.Changes)
		return
	}
	for _, r := range res.Roots {
		verb := "installed"
		if dryRun {
			verb = "would install"
		}
		switch {
		case len(r.Installed) == 0:
			fmt.Fprintf(g.stdout, "%s: up to date (%s)\n", r.Root.Dir, strings.Join(r.Unchanged, ", "))
		case r.Root.Link != "":
			fmt.Fprintf(g.stdout, "%s: linked %s to the copy in %s (read here by %s)\n", r.Root.Dir, strings.Join(r.Installed, ", "), r.Root.Link, strings.Join(r.Root.ReadBy, ", "))
		default:
			fmt.Fprintf(g.stdout, "%s: %s %s%s\n", r.Root.Dir, verb, strings.Join(r.Installed, ", "), readBy(r.Root))
		}
	}
}
