// Package gaiarules evaluates a skill directory against GAIA's own loading
// rules (rules.yaml, with the GAIA version they were read from), so tests
// can check that what skillpm accepts GAIA loads.
package gaiarules

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed rules.yaml
var rulesYAML []byte

// Rules are GAIA's loading rules.
type Rules struct {
	Source          string              `yaml:"source"`
	SkillFile       string              `yaml:"skill_file"`
	Frontmatter     string              `yaml:"frontmatter"`
	NamePattern     string              `yaml:"name_pattern"`
	MaxName         int                 `yaml:"max_name"`
	MaxDescription  int                 `yaml:"max_description"`
	Semver          string              `yaml:"semver"`
	StringFields    []string            `yaml:"string_fields"`
	Tiers           []string            `yaml:"tiers"`
	Domains         map[string][]string `yaml:"domains"`
	BinaryName      string              `yaml:"binary_name"`
	NameIsDirectory bool                `yaml:"name_is_directory"`
	// BinaryPolicies are the binaries shell:execute may name; Local the
	// domains refused at any level but none; UnscopedShell refuses a
	// shell:execute with no binary.
	BinaryPolicies []string `yaml:"binary_policies"`
	Local          []string `yaml:"local_capability_domains"`
	UnscopedShell  bool     `yaml:"unscoped_shell_refused"`
}

// Load returns the embedded rules.
func Load() (*Rules, error) {
	var r Rules
	dec := yaml.NewDecoder(bytes.NewReader(rulesYAML))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Check returns why GAIA would refuse the skill in dir, or nil.
func (r *Rules) Check(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, r.SkillFile))
	if err != nil {
		return fmt.Errorf("no %s: %v", r.SkillFile, err)
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	m := regexp.MustCompile(r.Frontmatter).FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("no frontmatter")
	}
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(m[1]), &node); err != nil {
		return fmt.Errorf("yaml: %v", err)
	}
	if err := hashableKeys(&node); err != nil {
		return err
	}
	var fm any
	if len(node.Content) > 0 {
		if err := node.Decode(&fm); err != nil {
			return fmt.Errorf("yaml: %v", err)
		}
	}
	if fm == nil {
		fm = map[string]any{}
	}
	top, ok := fm.(map[string]any)
	if !ok {
		return fmt.Errorf("frontmatter is not a mapping")
	}
	name, _ := top["name"].(string)
	desc, _ := top["description"].(string)
	if name == "" || desc == "" {
		return fmt.Errorf("name or description missing or not a string")
	}
	for _, k := range r.StringFields {
		if v, ok := top[k]; ok && v != nil {
			if _, ok := v.(string); !ok {
				return fmt.Errorf("%s is not a string", k)
			}
		}
	}
	meta := map[string]any{}
	if v, ok := top["metadata"]; ok && v != nil {
		if meta, ok = v.(map[string]any); !ok {
			return fmt.Errorf("metadata is not a mapping")
		}
	}
	if err := r.gaia(name, meta["gaia"]); err != nil {
		return err
	}
	switch {
	case len(name) > r.MaxName, !regexp.MustCompile(r.NamePattern).MatchString(name):
		return fmt.Errorf("name %q", name)
	case len([]rune(desc)) > r.MaxDescription:
		return fmt.Errorf("description too long")
	}
	if v, ok := top["version"].(string); ok && !regexp.MustCompile(r.Semver).MatchString(v) {
		return fmt.Errorf("version %q is not semver", v)
	}
	if r.NameIsDirectory && name != filepath.Base(dir) {
		return fmt.Errorf("name %q is not the directory name", name)
	}
	return nil
}

func (r *Rules) gaia(name string, v any) error {
	if v == nil {
		return nil
	}
	g, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("metadata.gaia is not a mapping")
	}
	if t, ok := g["security_tier"]; ok {
		if s, _ := t.(string); !slices.Contains(r.Tiers, s) {
			return fmt.Errorf("security_tier %v", t)
		}
	}
	list := func(k string) ([]any, error) {
		v := g[k]
		if v == nil {
			return nil, nil
		}
		l, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("metadata.gaia.%s is not a list", k)
		}
		return l, nil
	}
	perms, err := list("permissions")
	if err != nil {
		return err
	}
	bin := regexp.MustCompile(r.BinaryName)
	for _, p := range perms {
		s := strings.TrimSpace(fmt.Sprint(p))
		parts := strings.SplitN(s, ":", 3)
		if s == "" || len(parts) < 2 {
			return fmt.Errorf("permission %q", s)
		}
		dom, lvl := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
		levels, ok := r.Domains[dom]
		if !ok || !slices.Contains(levels, lvl) {
			return fmt.Errorf("permission %q", s)
		}
		scope := ""
		if len(parts) == 3 {
			scope = strings.TrimSpace(parts[2])
		}
		if dom == "shell" && lvl == "execute" && scope != "" && !bin.MatchString(scope) {
			return fmt.Errorf("shell:execute scope %q is not a bare executable name", scope)
		}
	}
	// refuse_unbridged_permissions runs after every permission parsed.
	for _, p := range perms {
		parts := strings.SplitN(strings.TrimSpace(fmt.Sprint(p)), ":", 3)
		dom, lvl, scope := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), ""
		if len(parts) == 3 {
			scope = strings.TrimSpace(parts[2])
		}
		switch {
		case lvl == "none":
		case dom == "shell" && lvl == "execute" && scope == "" && r.UnscopedShell:
			return fmt.Errorf("shell:execute asks for the whole shell")
		case dom == "shell" && lvl == "execute" && scope != "" && !slices.Contains(r.BinaryPolicies, scope):
			return fmt.Errorf("no binary policy for %s", scope)
		case slices.Contains(r.Local, dom):
			return fmt.Errorf("local-capability permission %s:%s", dom, lvl)
		}
	}
	tools, err := list("tools")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, t := range tools {
		m, ok := t.(map[string]any)
		n, _ := m["name"].(string)
		if !ok || n == "" {
			return fmt.Errorf("a tool without a name")
		}
		if seen[n] {
			return fmt.Errorf("tool %s declared twice", n)
		}
		seen[n] = true
		if p, ok := m["parameters"]; ok && p != nil {
			pm, ok := p.(map[string]any)
			if !ok {
				return fmt.Errorf("tool %s parameters", n)
			}
			for _, spec := range pm {
				if _, ok := spec.(map[string]any); !ok {
					return fmt.Errorf("tool %s parameter is not a mapping", n)
				}
			}
		}
		if ret, ok := m["returns"]; ok && ret != nil {
			if _, ok := ret.(map[string]any); !ok {
				return fmt.Errorf("tool %s returns", n)
			}
		}
	}
	if _, err := list("tools_required"); err != nil {
		return err
	}
	if req, ok := g["requirements"]; ok && req != nil {
		rm, ok := req.(map[string]any)
		if !ok {
			return fmt.Errorf("requirements is not a mapping")
		}
		for _, k := range []string{"dependencies", "node_dependencies", "env_vars"} {
			if v, ok := rm[k]; ok && v != nil {
				if _, ok := v.([]any); !ok {
					return fmt.Errorf("requirements.%s is not a list", k)
				}
			}
		}
		if hw, ok := rm["hardware"]; ok && hw != nil {
			if _, ok := hw.(map[string]any); !ok {
				return fmt.Errorf("requirements.hardware is not a mapping")
			}
		}
	}
	return nil
}

// hashableKeys refuses a mapping key that is a sequence or a mapping,
// which PyYAML cannot put in a dict.
func hashableKeys(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.SequenceNode || k.Kind == yaml.MappingNode {
				return fmt.Errorf("line %d: unhashable mapping key", k.Line)
			}
		}
	}
	for _, c := range n.Content {
		if err := hashableKeys(c); err != nil {
			return err
		}
	}
	return nil
}
