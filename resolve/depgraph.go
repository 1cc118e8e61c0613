package resolve

import (
	"maps"
	"slices"
	"sort"
)

// DepNode is one skill of a dependency graph: a lock entry or a receipt.
type DepNode struct {
	// Name, Version and Source are the skill's.
	Name, Version, Source string
	// Range is what the manifest (or the command line, for receipts)
	// asked for, "" for a skill present only as a dependency.
	Range string
	// Deps maps each dependency's name to the version chosen for it.
	Deps map[string]string
}

// DepGraph is the dependency graph of a project's lock or of one root's
// receipts: what was chosen, without the ranges that chose it, which
// only the registry's manifests hold (Ranges reads them on demand).
type DepGraph struct {
	// From names where the graph comes from: the lock file, or a root
	// directory.
	From string
	// Nodes are the skills by name.
	Nodes map[string]*DepNode
	// Tops are the skills asked for by name, in the lock's or receipts'
	// order.
	Tops []string
	// ranges reads the ranges a version declares for its dependencies.
	ranges func(n *DepNode) map[string]string
}

// NewDepGraph returns an empty graph read from from, whose Ranges asks
// ranges (nil: no ranges are known).
func NewDepGraph(from string, ranges func(n *DepNode) map[string]string) *DepGraph {
	return &DepGraph{From: from, Nodes: map[string]*DepNode{}, ranges: ranges}
}

// Ranges returns the ranges n's version declares for its dependencies;
// nil when it has none or they cannot be read.
func (dg *DepGraph) Ranges(n *DepNode) map[string]string {
	if dg.ranges == nil || n == nil || len(n.Deps) == 0 {
		return nil
	}
	return dg.ranges(n)
}

// ChainStep is one skill of a chain: the version chosen and the range the
// step before it (or the request, for the first) asked for.
type ChainStep struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Range   string `json:"range,omitempty"`
}

// Chain is one path of a dependency graph from a skill asked for by name
// to the skill explained, named by the graph it is in: why reads several
// graphs (a project's lock, or each root's receipts).
type Chain struct {
	// From is the graph's From: its lock file or root directory.
	From string `json:"from"`
	// Steps are the skills of the path, the one asked for by name first.
	Steps []ChainStep `json:"chain"`
}

// Chains returns every path from a skill asked for by name to target,
// shortest first, as cargo tree -i and npm explain show them.
func (dg *DepGraph) Chains(target string) []Chain {
	var out []Chain
	for _, ch := range dg.paths(target) {
		steps := []ChainStep{}
		for i, s := range ch {
			n := dg.Nodes[s]
			rng := n.Range
			if i > 0 {
				rng = dg.Ranges(dg.Nodes[ch[i-1]])[s]
			}
			steps = append(steps, ChainStep{Name: s, Version: n.Version, Range: rng})
		}
		out = append(out, Chain{From: dg.From, Steps: steps})
	}
	return out
}

// paths returns every path of names from a skill asked for by name to
// target, shortest first.
func (dg *DepGraph) paths(target string) [][]string {
	var out [][]string
	var walk func(path []string)
	walk = func(path []string) {
		last := path[len(path)-1]
		if last == target {
			out = append(out, slices.Clone(path))
			return
		}
		n := dg.Nodes[last]
		if n == nil {
			return
		}
		for _, d := range slices.Sorted(maps.Keys(n.Deps)) {
			if !slices.Contains(path, d) {
				walk(append(path, d))
			}
		}
	}
	for _, t := range dg.Tops {
		walk([]string{t})
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) < len(out[j]) })
	return out
}
