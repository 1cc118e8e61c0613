package migrate

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// hermesTopKeys are the top-level keys Hermes Agent defines. Any of them,
// or metadata.hermes, marks a skill as Hermes.
var hermesTopKeys = map[string]bool{
	"required_environment_variables": true,
	"required_credential_files":      true,
	"prerequisites":                  true,
	"platforms":                      true,
	"toolsets":                       true,
	"setup":                          true,
	"dependencies":                   true,
}

// hermesSignalKeys are the Hermes top-level keys specific enough to detect
// the format by (dependencies and setup are too generic on their own).
var hermesSignalKeys = []string{"required_environment_variables", "required_credential_files", "prerequisites", "platforms", "toolsets"}

// hermesReasons explains the metadata.hermes fields with no GAIA meaning.
var hermesReasons = map[string]string{
	"tags":                  "GAIA has no tags field",
	"category":              "GAIA has no category field",
	"homepage":              "GAIA has no homepage field",
	"credits":               "GAIA has no credits field",
	"supersedes":            "GAIA has no field for skills this one replaces",
	"upstream_skill":        "GAIA has no field for an upstream source",
	"fallback_for_toolsets": "Hermes shows the skill only when these toolsets are missing; GAIA has no conditional visibility",
}

// mapHermesTop maps the Hermes top-level keys. consumed records the keys
// it handled, so the generic pass does not report them again.
func (c *collector) mapHermesTop(top *yaml.Node, consumed map[string]bool) {
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i].Value, top.Content[i+1]
		if !hermesTopKeys[k] {
			continue
		}
		consumed[k] = true
		switch k {
		case "required_environment_variables":
			c.hermesEnvVars(k, v)
		case "prerequisites":
			c.hermesPrereqs(k, v)
		case "platforms":
			c.addPlatforms(k, v)
		case "toolsets":
			c.addToolsets(k, v)
		case "dependencies":
			c.addDeps(k, v, &c.pyDeps, toPyDeps, "Hermes dependencies are Python packages")
		case "required_credential_files":
			c.unmapped(k, v, "GAIA has no field for credential files the user must provide")
		case "setup":
			c.hermesSetup(k, v)
		}
	}
}

// hermesEnvVars maps required_environment_variables: names, or objects with
// name, prompt, help, required_for and optional.
func (c *collector) hermesEnvVars(field string, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		c.unmapped(field, v, "expected a list of variables, found "+kind(v))
		return
	}
	var names []string
	extra := map[string]bool{}
	for i, e := range v.Content {
		path := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case isScalar(e):
			names = append(names, e.Value)
		case e.Kind == yaml.MappingNode:
			name := lookup(e, "name")
			if !isScalar(name) {
				c.unmapped(path, e, "the entry has no name")
				continue
			}
			if opt := lookup(e, "optional"); opt != nil && opt.ShortTag() == "!!bool" && (opt.Value == "true" || opt.Value == "True") {
				c.unmapped(path, name, "optional variable; requirements.env_vars lists the variables a skill needs")
				continue
			}
			names = append(names, name.Value)
			for j := 0; j+1 < len(e.Content); j += 2 {
				if sub := e.Content[j].Value; sub != "name" && sub != "optional" && !extra[sub] {
					extra[sub] = true
					c.unmapped(field+"[]."+sub, nil, "GAIA has no field for setup prompts and help text")
				}
			}
		default:
			c.unmapped(path, e, "expected a name or {name: …}, found "+kind(e))
		}
	}
	c.addEnvNames(field, names, "")
}

// hermesPrereqs maps prerequisites (top level, or inside metadata.hermes).
func (c *collector) hermesPrereqs(field string, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		c.unmapped(field, v, "expected a mapping such as {commands: [...]}, found "+kind(v))
		return
	}
	c.mapFields(field, v, fieldTable{
		handlers: map[string]fieldHandler{
			"commands": bins(""),
			"env_vars": envVars(""),
			"pip":      pythonDeps(""),
			"tools":    tools,
		},
		fallback: "no GAIA equivalent for this prerequisite",
	})
}

func (c *collector) hermesSetup(field string, v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.unmapped(field, v, "GAIA has no setup field")
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i].Value, v.Content[i+1]
		path := field + "." + k
		if k != "collect_secrets" || val.Kind != yaml.SequenceNode {
			c.unmapped(path, val, "GAIA has no setup field")
			continue
		}
		var names []string
		for _, e := range val.Content {
			if n := lookup(e, "env_var"); isScalar(n) {
				names = append(names, n.Value)
			} else {
				c.unmapped(path, e, "a collected secret with no env_var")
			}
		}
		c.addEnvNames(path+"[].env_var", names, "the secrets Hermes collects at setup are environment variables the skill needs")
		c.unmapped(path+"[]", nil, "prompts and provider links have no GAIA field")
	}
}

// mapHermesBlock maps metadata.hermes.
func (c *collector) mapHermesBlock(field string, block *yaml.Node) {
	c.mapFields(field, block, fieldTable{
		handlers: map[string]fieldHandler{
			"related_skills":    suggestion(SuggestRelatedSkill, "related, not required: install it alongside if useful; declare it in metadata.gaia.requirements.skills only if this skill calls it"),
			"requires_toolsets": toolsets,
			"requires_tools":    tools,
			"prerequisites":     func(c *collector, path string, v *yaml.Node) { c.hermesPrereqs(path, v) },
			"requires":          func(c *collector, path string, v *yaml.Node) { c.hermesRequires(path, v) },
		},
		reasons:  hermesReasons,
		fallback: "no GAIA equivalent",
	})
}

// hermesRequires maps metadata.hermes.requires.
func (c *collector) hermesRequires(field string, v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.unmapped(field, v, "expected a mapping such as {tools: [...]}, found "+kind(v))
		return
	}
	c.mapFields(field, v, fieldTable{
		handlers: map[string]fieldHandler{
			"tools":    tools,
			"toolsets": toolsets,
			"commands": bins(""),
			"bins":     bins(""),
			"env":      envVars(""),
			"env_vars": envVars(""),
		},
		fallback: "no GAIA equivalent",
	})
}
