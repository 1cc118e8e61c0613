package migrate

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
	"gopkg.in/yaml.v3"
)

// collector gathers what the foreign blocks mean, in GAIA terms, and writes
// every decision into the report.
type collector struct {
	rep *Report
	cat *skill.KnownTools

	bins      orderedSet // shell:execute scope
	perms     orderedSet // other permissions
	env       orderedSet
	pyDeps    orderedSet
	nodeDeps  orderedSet
	tools     orderedSet
	platforms orderedSet // display names, for compatibility
	platFrom  []string
}

const (
	toPermissions = "metadata.gaia.permissions"
	toShell       = "metadata.gaia.permissions (shell:execute)"
	toEnv         = "metadata.gaia.requirements.env_vars"
	toPyDeps      = "metadata.gaia.requirements.dependencies"
	toNodeDeps    = "metadata.gaia.requirements.node_dependencies"
	toTools       = "metadata.gaia.tools_required"
	toCompat      = "compatibility"
)

func (c *collector) mapped(from, to string, vals []string, note string) {
	c.rep.Mapped = append(c.rep.Mapped, Mapping{From: from, To: to, Values: vals, Note: note})
}

func (c *collector) unmapped(field string, v *yaml.Node, reason string) {
	c.rep.Unmapped = append(c.rep.Unmapped, Unmapped{Field: field, Value: text(v), Reason: reason})
}

func (c *collector) notList(field string, bad []*yaml.Node) {
	for _, b := range bad {
		c.unmapped(field, b, "expected a name, found "+kind(b))
	}
}

func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!str":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "nothing"
	case "!!timestamp":
		return "a date"
	}
	return "a " + strings.TrimPrefix(n.ShortTag(), "!!") + " value"
}

// addBins maps command names to the shell:execute scope.
func (c *collector) addBins(field string, n *yaml.Node, note string) {
	vals, bad := listOf(n)
	c.notList(field, bad)
	var ok []string
	for _, b := range vals {
		if binName.MatchString(b) {
			ok = append(ok, b)
		} else {
			c.unmapped(field, str(b), "not a command name that a shell:execute scope can hold (no spaces, commas or colons)")
		}
	}
	if len(ok) > 0 {
		c.bins.add(ok...)
		c.mapped(field, toShell, ok, note)
	}
}

func (c *collector) addEnv(field string, n *yaml.Node, note string) {
	vals, bad := listOf(n)
	c.notList(field, bad)
	c.addEnvNames(field, vals, note)
}

func (c *collector) addEnvNames(field string, vals []string, note string) {
	var ok []string
	for _, e := range vals {
		if envName.MatchString(e) {
			ok = append(ok, e)
		} else {
			c.unmapped(field, str(e), "not an environment variable name")
		}
	}
	if len(ok) > 0 {
		c.env.add(ok...)
		c.mapped(field, toEnv, ok, note)
	}
}

func (c *collector) addDeps(field string, n *yaml.Node, set *orderedSet, to, note string) {
	vals, bad := listOf(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		vals = []string{strings.TrimSpace(n.Value)} // a requirement may contain spaces (">= 1.0")
	}
	c.notList(field, bad)
	if len(vals) > 0 {
		set.add(vals...)
		c.mapped(field, to, vals, note)
	}
}

// addTools keeps the tool names that are known tools; an unknown name in
// tools_required is a strict error, so it is reported instead.
func (c *collector) addTools(field string, n *yaml.Node) {
	vals, bad := listOf(n)
	c.notList(field, bad)
	var known []string
	for _, t := range vals {
		if c.cat.Has(t) {
			known = append(known, t)
			continue
		}
		c.unmapped(field, str(t), fmt.Sprintf("tool %q is not a known tool (searched: %s); listing it in tools_required would fail validation, so it was left out — add a known-tools file with the tool or drop it",
			t, strings.Join(c.cat.Sources(), ", ")))
	}
	if len(known) > 0 {
		c.tools.add(known...)
		c.mapped(field, toTools, known, "")
	}
}

var osNames = map[string]string{
	"darwin": "macOS", "macos": "macOS", "mac": "macOS", "osx": "macOS",
	"linux": "Linux", "win32": "Windows", "windows": "Windows", "win": "Windows",
}

// addPlatforms collects operating systems. GAIA has no OS field; the
// agentskills base field compatibility ("environment requirements") is where
// they fit, as text.
func (c *collector) addPlatforms(field string, n *yaml.Node) {
	vals, bad := listOf(n)
	c.notList(field, bad)
	for _, v := range vals {
		if name, ok := osNames[strings.ToLower(v)]; ok {
			c.platforms.add(name)
		} else {
			c.platforms.add(v)
		}
	}
	if len(vals) > 0 {
		c.platFrom = append(c.platFrom, field)
	}
}

func (c *collector) suggest(kind SuggestionKind, field string, n *yaml.Node, msg string) {
	vals, bad := listOf(n)
	c.notList(field, bad)
	for _, v := range vals {
		c.rep.Suggestions = append(c.rep.Suggestions, Suggestion{Kind: kind, Skill: v, From: field, Message: msg})
	}
}

// hermesToolsets are the Hermes toolsets that have a GAIA permission. The
// permission is broad because the toolset is: review and narrow it.
var hermesToolsets = map[string][]string{
	"terminal":       {"shell:execute"},
	"code_execution": {"shell:execute"},
	"file":           {"filesystem:read", "filesystem:write"},
	"files":          {"filesystem:read", "filesystem:write"},
	"web":            {"network:read"},
	"browser":        {"network:read"},
}

func (c *collector) addToolsets(field string, n *yaml.Node) {
	vals, bad := listOf(n)
	c.notList(field, bad)
	for _, ts := range vals {
		perms, ok := hermesToolsets[ts]
		if !ok {
			c.unmapped(field, str(ts), fmt.Sprintf("Hermes toolset %q has no GAIA permission or known-tool equivalent", ts))
			continue
		}
		c.perms.add(perms...)
		c.mapped(field+": "+ts, toPermissions, perms, "a whole Hermes toolset maps to an unscoped permission; narrow it if you can")
	}
}

// permissions returns what was collected as permission strings.
func (c *collector) permissions() []string {
	var out []string
	// One grant per binary: GAIA's runtime (amd/gaia 0.23.0, permissions.py)
	// refuses a whole skill whose shell:execute scope is not one bare
	// executable name, so "shell:execute:curl,jq" would not load there.
	for _, b := range c.bins.vals {
		out = append(out, "shell:execute:"+b)
	}
	return append(out, c.perms.vals...)
}
