package skill

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// SetSecurityTier returns SKILL.md data with metadata.gaia.security_tier
// set to tier, adding the mappings it needs, and the body unchanged. The
// GAIA host shows the tier written there, so an installer writes the tier
// it enforced, not the one the publisher claimed (as GAIA's own installer
// does). The frontmatter is re-encoded by yaml.v3 (comments kept).
func SetSecurityTier(data []byte, tier Tier) ([]byte, error) {
	doc, d := splitFrontmatter(data)
	if d != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, d.Message)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(doc.front, &root); err != nil {
		return nil, fmt.Errorf("%w: frontmatter: %v", ErrInvalid, err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: the frontmatter is not a mapping", ErrInvalid)
	}
	m := root.Content[0]
	for _, key := range []string{"metadata", "gaia"} {
		m = childMapping(m, key)
		if m == nil {
			return nil, fmt.Errorf("%w: %s is not a mapping", ErrInvalid, key)
		}
	}
	set := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "security_tier" {
			m.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(tier)}
			set = true
		}
	}
	if !set {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "security_tier"},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(tier)})
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	b.WriteString("---\n")
	b.WriteString(doc.body)
	return b.Bytes(), nil
}

// childMapping returns the mapping under key in m, adding an empty one
// when key is absent; nil when key holds something else.
func childMapping(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			if v.Kind != yaml.MappingNode {
				return nil
			}
			return v
		}
	}
	v := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	return v
}
