package resolve

import (
	"reflect"
	"testing"
)

// TestDepGraphChains: every path from a skill asked for by name to the
// target, shortest first, named by the graph, with the range asked for at
// each step (the request's for the first, the step before's declared
// range after).
func TestDepGraphChains(t *testing.T) {
	dg := NewDepGraph("skills.lock", func(n *DepNode) map[string]string {
		return map[string]map[string]string{"a": {"b": "^2", "c": "^3"}, "b": {"c": "~3.1"}}[n.Name]
	})
	dg.Nodes["a"] = &DepNode{Name: "a", Version: "1.0.0", Range: "^1", Deps: map[string]string{"b": "2.0.0", "c": "3.1.0"}}
	dg.Nodes["b"] = &DepNode{Name: "b", Version: "2.0.0", Deps: map[string]string{"c": "3.1.0"}}
	dg.Nodes["c"] = &DepNode{Name: "c", Version: "3.1.0"}
	dg.Tops = []string{"a"}
	got := dg.Chains("c")
	want := []Chain{
		{"skills.lock", []ChainStep{{"a", "1.0.0", "^1"}, {"c", "3.1.0", "^3"}}},
		{"skills.lock", []ChainStep{{"a", "1.0.0", "^1"}, {"b", "2.0.0", "^2"}, {"c", "3.1.0", "~3.1"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Chains(c) = %+v, want %+v", got, want)
	}
	if got := dg.Chains("z"); got != nil {
		t.Errorf("Chains(z) = %+v, want none", got)
	}
	if got := NewDepGraph("x", nil).Ranges(dg.Nodes["a"]); got != nil {
		t.Errorf("Ranges without a reader = %v, want nil", got)
	}
}
