// Package yamlstrict holds the one set of rules skillpm's YAML files are
// read under: SKILL.md frontmatter, skills.yaml and skills.lock, the trust
// policy and config.yaml. yaml.v3 accepts duplicate keys in a node tree,
// anchors, aliases and merge keys; a file whose meaning depends on which of
// two keys wins, or on a value defined elsewhere, is one a reviewer can
// misread, so every reader refuses them the same way.
//
// The package finds the problems; each reader words them in its own
// diagnostics (a SKILL.md diagnostic code, a policy error list, a
// skills.yaml error with a hint).
package yamlstrict

import (
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Kind says what is wrong with a node.
type Kind int

// The problems a strict reader refuses.
const (
	// Alias is *name where a key or value is expected.
	Alias Kind = iota + 1
	// Anchor is &name on a key or value.
	Anchor
	// MergeKey is a << key, which merges another mapping in.
	MergeKey
	// KeyNotScalar is a key that is a list or a mapping.
	KeyNotScalar
	// Duplicate is a key written twice in one mapping.
	Duplicate
	// Unknown is a key the reader does not know.
	Unknown
)

// Problem is one refused node.
type Problem struct {
	Kind Kind
	// Node is where the problem is: the key, or the value for an alias
	// or anchor on a value.
	Node *yaml.Node
	// First is the first occurrence of a Duplicate key.
	First *yaml.Node
	// Key is the key whose value is an Alias or Anchor; nil when the
	// problem is the key's own.
	Key *yaml.Node
}

// Mapping says how a mapping's pairs are read.
type Mapping struct {
	// Known lists the keys allowed; nil allows any key.
	Known []string
	// FollowAliases reads an alias value as the value it names instead of
	// refusing it (anchors on values are then allowed too). A key is
	// never an alias: an alias key is KeyNotScalar.
	FollowAliases bool
}

// Pairs reads the pairs of mapping n in order. It calls problem for each
// refused pair (which is then skipped) and fn for each other pair, with the
// value an alias names when FollowAliases is set. The first error either
// returns stops the walk and is returned.
//
// For each key the checks run in one order: alias key (KeyNotScalar),
// anchor, merge key, key not a scalar, duplicate, unknown; then the
// value's alias or anchor.
func (m Mapping) Pairs(n *yaml.Node, fn func(k, v *yaml.Node) error, problem func(Problem) error) error {
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := m.keyProblem(k, seen)
		if p.Kind == 0 {
			if m.FollowAliases {
				v = Deref(v)
			} else if p = anchorProblem(v); p.Kind != 0 {
				p.Key = k
			}
		}
		if k.Kind == yaml.ScalarNode && seen[k.Value] == nil {
			seen[k.Value] = k
		}
		var err error
		if p.Kind != 0 {
			err = problem(p)
		} else {
			err = fn(k, v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (m Mapping) keyProblem(k *yaml.Node, seen map[string]*yaml.Node) Problem {
	if k.Kind == yaml.AliasNode {
		// A key is a plain word: an alias there is a key that is not one.
		return Problem{Kind: KeyNotScalar, Node: k}
	}
	if p := anchorProblem(k); p.Kind != 0 {
		return p
	}
	switch {
	case IsMergeKey(k):
		return Problem{Kind: MergeKey, Node: k}
	case k.Kind != yaml.ScalarNode:
		return Problem{Kind: KeyNotScalar, Node: k}
	case seen[k.Value] != nil:
		return Problem{Kind: Duplicate, Node: k, First: seen[k.Value]}
	case m.Known != nil && !slices.Contains(m.Known, k.Value):
		return Problem{Kind: Unknown, Node: k}
	}
	return Problem{}
}

func anchorProblem(n *yaml.Node) Problem {
	switch {
	case n.Kind == yaml.AliasNode:
		return Problem{Kind: Alias, Node: n}
	case n.Anchor != "":
		return Problem{Kind: Anchor, Node: n}
	}
	return Problem{}
}

// Check walks the whole tree under n and reports every alias, anchor,
// merge key, non-scalar key and duplicate key; it does not descend into a
// refused node.
func Check(n *yaml.Node, problem func(Problem)) {
	if p := anchorProblem(n); p.Kind != 0 {
		problem(p)
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		_ = Mapping{}.Pairs(n, func(_, v *yaml.Node) error {
			Check(v, problem)
			return nil
		}, func(p Problem) error {
			problem(p)
			return nil
		})
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			Check(c, problem)
		}
	}
}

// IsMergeKey reports whether k is YAML's merge key, <<.
func IsMergeKey(k *yaml.Node) bool {
	return k.Tag == "!!merge" || (k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Style == 0)
}

// Deref follows aliases to the node they name.
func Deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// ErrorLine splits a yaml.v3 syntax error ("yaml: line N: message") into
// the line and the message; the line is 0 when the error names none.
func ErrorLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				return n, text
			}
		}
	}
	return 0, msg
}
