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

//go:embed catalog/gaia.yaml
var gaiaCatalogYAML []byte

// Catalog is a set of tool names that tools_required may name, with the
// name of each source so an error can say where it looked.
type Catalog struct {
	sources []catalogSource
}

type catalogSource struct {
	name  string
	tools map[string]bool
}

// catalogFile is the on-disk shape of a tool catalog.
type catalogFile struct {
	Version int                 `yaml:"version"`
	Host    string              `yaml:"host"`
	Groups  map[string][]string `yaml:"groups"`
	Tools   []string            `yaml:"tools"`
}

// DefaultCatalog returns the GAIA tool catalog embedded in skillpm. The
// result is shared: a Catalog never changes once made (LoadCatalog and
// WithTools return copies).
func DefaultCatalog() *Catalog { return defaultCatalog() }

// defaultCatalog parses the embedded file once: every Load without a
// catalog of its own asks for it, and parsing costs more than the skill.
var defaultCatalog = sync.OnceValue(func() *Catalog {
	c := &Catalog{}
	if err := c.add("gaia (built in)", gaiaCatalogYAML); err != nil {
		// The embedded file is tested; failing here is a build defect.
		panic("skillpm: embedded GAIA tool catalog is invalid: " + err.Error())
	}
	return c
})

// LoadCatalog adds the catalog file at path to a copy of c.
func (c *Catalog) LoadCatalog(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCatalog, err)
	}
	out := c.clone()
	if err := out.add(path, data); err != nil {
		return nil, err
	}
	return out, nil
}

// WithTools returns a copy of c that also knows the given tool names under
// the source name (the tools other skills in an install set provide).
func (c *Catalog) WithTools(source string, names []string) *Catalog {
	out := c.clone()
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	out.sources = append(out.sources, catalogSource{name: source, tools: m})
	return out
}

func (c *Catalog) clone() *Catalog {
	if c == nil {
		return &Catalog{}
	}
	return &Catalog{sources: append([]catalogSource(nil), c.sources...)}
}

func (c *Catalog) add(name string, data []byte) error {
	var f catalogFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCatalog, name, err)
	}
	if f.Version != 1 {
		return fmt.Errorf("%w: %s: version must be 1, found %d", ErrCatalog, name, f.Version)
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
	c.sources = append(c.sources, catalogSource{name: name, tools: tools})
	return nil
}

// Has reports whether any source knows the tool.
func (c *Catalog) Has(tool string) bool {
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

// Sources names the catalogs searched, in order.
func (c *Catalog) Sources() []string {
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
func (c *Catalog) Names() []string {
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
