package migrate

import "gopkg.in/yaml.v3"

// fieldHandler maps one field's value, at path, to GAIA.
type fieldHandler func(c *collector, path string, v *yaml.Node)

// fieldTable is how the keys of one mapping of a source format map to
// GAIA: Hermes and OpenClaw differ in their keys, not in how a block is
// walked, so each block is a table and one walker (mapFields) reads it.
type fieldTable struct {
	// handlers maps the keys GAIA has a place for.
	handlers map[string]fieldHandler
	// reasons says, per key with no GAIA place, why; fallback is the
	// reason for keys the table does not know.
	reasons  map[string]string
	fallback string
}

// mapFields maps each key of the mapping m, found at field, as t says, in
// the order the keys are written.
func (c *collector) mapFields(field string, m *yaml.Node, t fieldTable) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i].Value, m.Content[i+1]
		path := field + "." + k
		if h := t.handlers[k]; h != nil {
			h(c, path, v)
			continue
		}
		reason, ok := t.reasons[k]
		if !ok {
			reason = t.fallback
		}
		c.unmapped(path, v, reason)
	}
}

// The handlers the tables share.

func bins(note string) fieldHandler {
	return func(c *collector, path string, v *yaml.Node) { c.addBins(path, v, note) }
}

func envVars(note string) fieldHandler {
	return func(c *collector, path string, v *yaml.Node) { c.addEnv(path, v, note) }
}

func pythonDeps(note string) fieldHandler {
	return func(c *collector, path string, v *yaml.Node) { c.addDeps(path, v, &c.pyDeps, toPyDeps, note) }
}

func nodeDeps(note string) fieldHandler {
	return func(c *collector, path string, v *yaml.Node) { c.addDeps(path, v, &c.nodeDeps, toNodeDeps, note) }
}

func suggestion(kind SuggestionKind, note string) fieldHandler {
	return func(c *collector, path string, v *yaml.Node) { c.suggest(kind, path, v, note) }
}

func unmappedAs(reason string) fieldHandler {
	return func(c *collector, path string, v *yaml.Node) { c.unmapped(path, v, reason) }
}

func tools(c *collector, path string, v *yaml.Node)     { c.addTools(path, v) }
func toolsets(c *collector, path string, v *yaml.Node)  { c.addToolsets(path, v) }
func platforms(c *collector, path string, v *yaml.Node) { c.addPlatforms(path, v) }
