package engine

import (
	"context"

	"github.com/skillpm/skillpm/resolve"
)

// WhyResult explains why a skill is installed.
type WhyResult struct {
	// Chains are every path to it, graph by graph, shortest first.
	Chains []resolve.Chain
	// Known are the skills of the graphs read, for suggestions when
	// there is no chain.
	Known []string
}

// WhyRequest asks Why about one skill.
type WhyRequest struct {
	// Name is the skill whose chains are wanted.
	Name string
}

// Why returns every chain from a skill asked for by name to name, with
// the version chosen and the range asked for at each step, as cargo tree
// -i and npm explain do, in the graphs DependencyGraphs reads. No chain
// is not an error.
func (e *Engine) Why(ctx context.Context, r WhyRequest) (*WhyResult, error) {
	name := r.Name
	graphs, err := e.dependencyGraphs(ctx)
	if err != nil {
		return nil, err
	}
	out := &WhyResult{Chains: []resolve.Chain{}}
	for _, dg := range graphs {
		for n := range dg.Nodes {
			out.Known = append(out.Known, n)
		}
		out.Chains = append(out.Chains, dg.Chains(name)...)
	}
	return out, nil
}
