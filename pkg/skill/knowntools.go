package skill

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"sort"
	"sync"

	"gopkg.in/yaml.v3"
)

//go:embed knowntools/gaia.yaml
var gaiaToolsYAML []byte

// KnownTools is the tool names tools_required may name (GAIA's
// KNOWN_TOOLS: what the agent registers), each set with the name of where
// it was declared (the built-in GAIA list, a known-tools file, the other
// skills of a set), so an error can say where it looked.
type KnownTools struct {
	sources []toolSource
}

type toolSource struct {
	name  string
	tools map[string]bool
}

// knownToolsFile is the on-disk shape of a known-tools file.
type knownToolsFile struct {
	Version int                 `yaml:"version"`
	Host    string              `yaml:"host"`
	Groups  map[string][]string `yaml:"groups"`
	Tools   []string            `yaml:"tools"`
}

// DefaultKnownTools returns the GAIA known tools embedded in skillpm. The
// result is shared: a KnownTools never changes once made (LoadFile and
// WithTools return copies).
func DefaultKnownTools() *KnownTools { return defaultKnownTools() }

// defaultKnownTools parses the embedded file once: every Load without a
// known tools of its own asks for it, and parsing costs more than the skill.
var defaultKnownTools = sync.OnceValue(func() *KnownTools {
	c := &KnownTools{}
	if err := c.add("gaia (built in)", gaiaToolsYAML); err != nil {
		// The embedded file is tested; failing here is a build defect.
		panic("skillpm: embedded GAIA known-tools file is invalid: " + err.Error())
	}
	return c
})

// LoadFile adds the known-tools file at path to a copy of c.
func (c *KnownTools) LoadFile(path string) (*KnownTools, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKnownTools, err)
	}
	out := c.clone()
	if err := out.add(path, data); err != nil {
		return nil, err
	}
	return out, nil
}

// WithTools returns a copy of c that also knows the given tool names under
// the source name (the tools other skills in an install set provide).
func (c *KnownTools) WithTools(source string, names []string) *KnownTools {
	out := c.clone()
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	out.sources = append(out.sources, toolSource{name: source, tools: m})
	return out
}

func (c *KnownTools) clone() *KnownTools {
	if c == nil {
		return &KnownTools{}
	}
	return &KnownTools{sources: append([]toolSource(nil), c.sources...)}
}

func (c *KnownTools) add(name string, data []byte) error {
	var f knownToolsFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrKnownTools, name, err)
	}
	if f.Version != 1 {
		return fmt.Errorf("%w: %s: version must be 1, found %d", ErrKnownTools, name, f.Version)
	}
	tools := map[string]bool{}
	for _, names := range f.Groups {
		for _, n := range names {
			tools[n] = true
		}
	}
	for _, n := range f.Tools {
		tools[n] = true
	}
	c.sources = append(c.sources, toolSource{name: name, tools: tools})
	return nil
}

// Has reports whether any source knows the tool.
func (c *KnownTools) Has(tool string) bool {
	if c == nil {
		return false
	}
	for _, s := range c.sources {
		if s.tools[tool] {
			return true
		}
	}
	return false
}

// Sources names where the known tools were declared, in order.
func (c *KnownTools) Sources() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.sources))
	for i, s := range c.sources {
		out[i] = s.name
	}
	return out
}

// Names returns every known tool name, sorted.
func (c *KnownTools) Names() []string {
	seen := map[string]bool{}
	for _, s := range c.sources {
		for n := range s.tools {
			seen[n] = true
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
