package migrate

import (
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Helpers over yaml.Node trees. The output is always built as nodes and
// encoded by yaml.v3; no YAML text is assembled by hand.

// entry returns the key and value nodes of key in mapping m, or nils.
func entry(m *yaml.Node, key string) (k, v *yaml.Node, i int) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil, -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1], i
		}
	}
	return nil, nil, -1
}

func lookup(m *yaml.Node, key string) *yaml.Node {
	_, v, _ := entry(m, key)
	return v
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func newMap() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func newSeq() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"} }

// set replaces the value of key in m, or inserts key at index at (a pair
// index; -1 appends).
func set(m *yaml.Node, key string, v *yaml.Node, at int) {
	if _, _, i := entry(m, key); i >= 0 {
		m.Content[i+1] = v
		return
	}
	pair := []*yaml.Node{str(key), v}
	if at < 0 || 2*at >= len(m.Content) {
		m.Content = append(m.Content, pair...)
		return
	}
	m.Content = append(m.Content[:2*at], append(pair, m.Content[2*at:]...)...)
}

// pairIndex is the pair position of key in m, -1 when absent.
func pairIndex(m *yaml.Node, key string) int {
	if _, _, i := entry(m, key); i >= 0 {
		return i / 2
	}
	return -1
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

func isScalar(n *yaml.Node) bool { return n != nil && n.Kind == yaml.ScalarNode && !isNull(n) }

// text renders a node for a report line: the scalar text, or the node as
// one line of flow YAML.
func text(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	c := *n
	c.Style = yaml.FlowStyle
	b, err := yaml.Marshal(&c)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// listOf reads a foreign list: a sequence of scalars, or one scalar holding
// names separated by commas or spaces (OpenClaw writes both). bad holds the
// entries that are not scalars.
func listOf(n *yaml.Node) (vals []string, bad []*yaml.Node) {
	switch {
	case isNull(n):
		return nil, nil
	case n.Kind == yaml.ScalarNode:
		return strings.FieldsFunc(n.Value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }), nil
	case n.Kind == yaml.SequenceNode:
		for _, e := range n.Content {
			if isScalar(e) && strings.TrimSpace(e.Value) != "" {
				vals = append(vals, strings.TrimSpace(e.Value))
			} else if !isNull(e) {
				bad = append(bad, e)
			}
		}
		return vals, bad
	}
	return nil, []*yaml.Node{n}
}

// asMapping returns n as a mapping to read from. A foreign block written as
// a JSON (or YAML) string is parsed for reading; the node itself is not
// changed.
func asMapping(n *yaml.Node) (*yaml.Node, bool) {
	if n == nil {
		return nil, false
	}
	if n.Kind == yaml.MappingNode {
		return n, false
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		if m := parseMapping(n.Value); m != nil {
			return m, true
		}
	}
	return nil, false
}

// parseMapping parses s (JSON is YAML) and returns its top mapping, or nil.
func parseMapping(s string) *yaml.Node {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") {
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(t), &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	return doc.Content[0]
}

// orderedSet keeps the first occurrence of each value, in order.
type orderedSet struct {
	vals []string
	seen map[string]bool
}

func (s *orderedSet) add(v ...string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, x := range v {
		if !s.seen[x] {
			s.seen[x] = true
			s.vals = append(s.vals, x)
		}
	}
}

var (
	envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	binName = regexp.MustCompile(`^[A-Za-z0-9_.+@/-]+$`)
)
