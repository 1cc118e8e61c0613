package resolve

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/skillpm/skillpm/internal/yamlstrict"
	"gopkg.in/yaml.v3"
)

// ManifestEdit is a change to skills.yaml: requirements to set (added, or
// their range replaced), names to drop, and, for a new file, the fields
// it starts with.
type ManifestEdit struct {
	// Set maps a skill name, as written in the manifest, to its range.
	Set map[string]string
	// Remove are skill names to drop; a name the manifest does not list is
	// left alone (the caller says whether that is an error).
	Remove []string
	// Registry, Scope and Hosts are written when the manifest has no such
	// field yet (a new project); existing fields are never overwritten.
	Registry string
	Scope    string
	Hosts    []string
}

// EditManifest applies e to the skills.yaml data (nil or empty for a new
// file) and returns the new bytes, keeping the comments and the order of
// what was there. The result is parsed again before it is returned, so a
// caller never writes a manifest ParseManifest would refuse. file names
// the manifest in errors.
func EditManifest(file string, data []byte, e ManifestEdit) ([]byte, error) {
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if _, err := ParseManifest(file, data); err != nil {
			return nil, err
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	if len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := yamlstrict.Deref(doc.Content[0])
	if isNull(root) {
		*root = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	has := func(key string) bool { return mapValue(root, key) != nil }
	// New fields go before skills:, in a fixed order.
	var head []*yaml.Node
	if e.Registry != "" && !has("registry") {
		head = append(head, str("registry"), str(e.Registry))
	}
	if e.Scope != "" && !has("scope") {
		head = append(head, str("scope"), str(e.Scope))
	}
	if len(e.Hosts) > 0 && !has("hosts") && !has("host") {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, h := range e.Hosts {
			seq.Content = append(seq.Content, str(h))
		}
		head = append(head, str("hosts"), seq)
	}
	if len(head) > 0 && len(root.Content) > 0 {
		// The file's leading comment stays at the top.
		head[0].HeadComment, root.Content[0].HeadComment = root.Content[0].HeadComment, ""
	}
	root.Content = append(head, root.Content...)
	skills := mapValue(root, "skills")
	if skills == nil || isNull(skills) {
		if skills == nil {
			skills = &yaml.Node{}
			root.Content = append(root.Content, str("skills"), skills)
		}
		*skills = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	if skills.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: skills is not a mapping of name to range; edit it by hand", file, skills.Line)
	}
	names := make([]string, 0, len(e.Set))
	for k := range e.Set {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		rng := e.Set[name]
		if v := mapValue(skills, name); v != nil {
			*v = *str(rng)
			continue
		}
		skills.Content = append(skills.Content, str(name), str(rng))
	}
	for _, name := range e.Remove {
		for i := 0; i+1 < len(skills.Content); i += 2 {
			if skills.Content[i].Value == name {
				skills.Content = append(skills.Content[:i], skills.Content[i+2:]...)
				break
			}
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	out := b.Bytes()
	if _, err := ParseManifest(file, out); err != nil {
		return nil, fmt.Errorf("editing %s would make it invalid: %w", file, err)
	}
	return out, nil
}

func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// mapValue returns the value of key in mapping n, nil when absent.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return yamlstrict.Deref(n.Content[i+1])
		}
	}
	return nil
}
