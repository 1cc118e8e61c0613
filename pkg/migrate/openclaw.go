package migrate

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// openClawNamespaces are the metadata keys OpenClaw has used over its
// renames; all mean the same block.
var openClawNamespaces = []string{"openclaw", "clawdbot", "clawdis", "moltbot", "clawdhub"}

// openClawReasons explains the OpenClaw fields with no GAIA meaning.
var openClawReasons = map[string]string{
	"emoji":          "display only; GAIA has no icon field",
	"homepage":       "GAIA has no homepage field",
	"category":       "GAIA has no category field",
	"tags":           "GAIA has no tags field",
	"triggers":       "GAIA has no trigger field; say when to use the skill in the description",
	"skillKey":       "OpenClaw configuration key; no GAIA equivalent",
	"always":         "OpenClaw loads the skill unconditionally; GAIA has no equivalent",
	"user-invocable": "GAIA has no slash-command flag",
	"optionalEnv":    "optional variables; requirements.env_vars lists the variables a skill needs",
	"api_base":       "GAIA has no API endpoint field; a network:read permission scoped to the host is the closest, add it by hand",
	"files":          "GAIA has no field for files the skill reads outside itself",
	"cron":           "GAIA has no schedule field",
}

// mapOpenClawBlock maps one metadata.<namespace> block.
func (c *collector) mapOpenClawBlock(field string, block *yaml.Node) {
	c.mapFields(field, block, fieldTable{
		handlers: map[string]fieldHandler{
			"requires":   func(c *collector, path string, v *yaml.Node) { c.openClawRequires(path, v) },
			"env":        envVars("written beside requires instead of inside it"),
			"primaryEnv": envVars("the API key variable OpenClaw asks for first"),
			"os":         platforms,
			"install":    func(c *collector, path string, v *yaml.Node) { c.openClawInstall(path, v) },
			"config":     func(c *collector, path string, v *yaml.Node) { c.openClawConfig(path, v) },
			"mcp":        func(c *collector, path string, v *yaml.Node) { c.openClawMCP(path, v) },
		},
		reasons:  openClawReasons,
		fallback: "no GAIA equivalent",
	})
}

func (c *collector) openClawRequires(field string, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		c.unmapped(field, v, "expected a mapping such as {bins: [...]}, found "+kind(v))
		return
	}
	c.mapFields(field, v, fieldTable{
		handlers: map[string]fieldHandler{
			"bins":     bins(""),
			"bin":      bins(""),
			"commands": bins(""),
			"anyBins":  bins("any one of these is enough for OpenClaw; a permission must cover whichever is installed, so the scope lists them all"),
			"env":      envVars(""),
			"envs":     envVars(""),
			"npm":      nodeDeps(""),
			"pip":      pythonDeps(""),
			"os":       platforms,
			"skills":   suggestion(SuggestRequiredSkill, "OpenClaw says this skill needs it; once it is published, declare it in metadata.gaia.requirements.skills with a version range"),
			"config":   unmappedAs("OpenClaw host configuration keys; GAIA has no equivalent"),
		},
		fallback: "no GAIA equivalent for this requirement",
	})
}

// openClawInstall maps install[] entries. The entries are alternatives
// (brew or npm for the same command). Package managers GAIA has a field for
// (npm, pip/uv) become requirements; system installers do not, but the
// commands they provide still need a shell permission.
func (c *collector) openClawInstall(field string, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		c.unmapped(field, v, "expected a list of install specs, found "+kind(v))
		return
	}
	for i, e := range v.Content {
		path := fmt.Sprintf("%s[%d]", field, i)
		if e.Kind != yaml.MappingNode {
			c.unmapped(path, e, "expected an install spec {kind, package, bins}, found "+kind(e))
			continue
		}
		kindNode := lookup(e, "kind")
		if kindNode == nil {
			kindNode = lookup(e, "type")
		}
		k := ""
		if isScalar(kindNode) {
			k = kindNode.Value
		}
		pkg := lookup(e, "package")
		if pkg == nil {
			pkg = lookup(e, "packages")
		}
		if bins := lookup(e, "bins"); bins != nil {
			c.addBins(path+".bins", bins, "commands this install step provides")
		}
		switch k {
		case "node", "npm", "pnpm", "yarn", "bun":
			if pkg != nil {
				c.addDeps(path+".package", pkg, &c.nodeDeps, toNodeDeps, "install[] entries are alternatives; drop it if another installer was meant")
				continue
			}
		case "uv", "pip", "python", "pipx":
			if pkg != nil {
				c.addDeps(path+".package", pkg, &c.pyDeps, toPyDeps, "install[] entries are alternatives; drop it if another installer was meant")
				continue
			}
		}
		what := k
		for _, key := range []string{"formula", "package", "packages", "module", "command", "run"} {
			if n := lookup(e, key); n != nil {
				what += " " + text(n)
				break
			}
		}
		reason := "GAIA has no field for system packages; install it yourself (the commands it provides are in the shell permission)"
		if k == "" {
			reason = "install spec without a kind"
		}
		c.unmapped(path, str(what), reason)
	}
}

func (c *collector) openClawConfig(field string, v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.unmapped(field, v, "OpenClaw host configuration; GAIA has no equivalent")
		return
	}
	c.mapFields(field, v, fieldTable{
		handlers: map[string]fieldHandler{"requiredEnv": envVars("")},
		reasons:  map[string]string{"optionalEnv": openClawReasons["optionalEnv"]},
		fallback: "OpenClaw host configuration; GAIA has no equivalent",
	})
}

// openClawMCP maps an MCP server declaration to mcp:connect, scoped to the
// server's name when it has one that a scope can hold.
func (c *collector) openClawMCP(field string, v *yaml.Node) {
	perm := "mcp:connect"
	if s := lookup(v, "server"); isScalar(s) && binName.MatchString(s.Value) {
		perm += ":" + s.Value
	}
	c.perms.add(perm)
	c.mapped(field, toPermissions, []string{perm}, "how to start or reach the server stays in the OpenClaw block")
}
