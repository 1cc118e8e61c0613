package skill

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/Masterminds/semver/v3"
	"gopkg.in/yaml.v3"
)

// Field limits from the skill format.
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
	MaxBodyLines        = 500
)

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidName reports whether s follows the skill naming rule.
func ValidName(s string) bool { return len(s) <= MaxNameLen && nameRE.MatchString(s) }

// checker collects diagnostics; severities are assigned later by mode.
type checker struct {
	file string
	ds   Diagnostics
}

func (c *checker) add(code string, n *yaml.Node, msg, hint string) {
	d := Diagnostic{Code: code, File: c.file, Message: msg, Hint: hint}
	if n != nil {
		d.Line, d.Column = n.Line, n.Column
	}
	c.ds = append(c.ds, d)
}

func (c *checker) addAt(code string, line, col int, msg, hint string) {
	c.ds = append(c.ds, Diagnostic{Code: code, File: c.file, Line: line, Column: col, Message: msg, Hint: hint})
}

// mapEntries iterates a mapping's key/value pairs in file order.
func mapEntries(n *yaml.Node, fn func(k, v *yaml.Node)) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		fn(n.Content[i], n.Content[i+1])
	}
}

// lookup returns the value node of key in mapping n, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func isString(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" }

// scalarText returns the text of any non-null scalar.
func scalarText(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		return "", false
	}
	return n.Value, true
}

// decode fills s from its frontmatter node.
func (c *checker) decode(s *Skill) {
	top := s.Node
	var allowed *yaml.Node
	mapEntries(top, func(k, v *yaml.Node) {
		switch k.Value {
		case "name":
			c.decodeName(s, v)
		case "description":
			if t, ok := scalarText(v); ok {
				s.Description = strings.TrimSpace(t)
			} else if !isNull(v) {
				c.add(CodeDescriptionMissing, v, "description must be text, found "+kindName(v),
					"write description: followed by one or two sentences saying when to use the skill")
			}
		case "license":
			if isString(v) {
				s.License = v.Value
			} else if !isNull(v) {
				c.add(CodeLicenseType, v, "license should be a string such as MIT, found "+kindName(v),
					"write the SPDX identifier, e.g. license: MIT")
			}
		case "version":
			c.decodeVersion(s, v)
		case "compatibility":
			if !isString(v) {
				c.add(CodeCompatibility, v, "compatibility must be a string, found "+kindName(v), "describe the environment in one line of text")
			} else {
				s.Compatibility = v.Value
				if n := utf8.RuneCountInString(v.Value); n > MaxCompatibilityLen {
					c.add(CodeCompatibility, v, fmt.Sprintf("compatibility is %d characters, more than %d", n, MaxCompatibilityLen), "shorten it")
				}
			}
		case "allowed-tools":
			if !isString(v) && !isStringList(v) {
				c.add(CodeAllowedTools, v, "allowed-tools should be a string or a list of strings, found "+kindName(v), "write allowed-tools: Read Grep, or a list")
			} else {
				s.AllowedTools = decodeAllowedTools(v)
				allowed = v
			}
		case "metadata":
			c.decodeMetadata(s, v)
		case "execution":
			c.decodeExecution(s, v)
		default:
			if dependencyGuess(k.Value) {
				c.add(CodeUnknownField, k, fmt.Sprintf("unknown top-level field %q (kept as is): it declares no dependency", k.Value), DependencyHint)
				break
			}
			c.add(CodeUnknownField, k, fmt.Sprintf("unknown top-level field %q (kept as is)", k.Value),
				"move tool-specific fields under metadata.<namespace>, or remove it")
		}
	})
	if allowed != nil {
		c.checkAllowedTools(s, allowed)
	}
	if lookup(top, "name") == nil {
		c.addAt(CodeNameMissing, top.Line, top.Column, "the frontmatter has no name", "add name: <directory-name>")
	}
	if s.Description == "" {
		if v := lookup(top, "description"); v == nil || isNull(v) || (v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) == "") {
			n := v
			if n == nil {
				n = top
			}
			c.add(CodeDescriptionMissing, n, "the frontmatter has no description",
				"add description: saying what the skill does and when to use it")
		}
	} else if n := utf8.RuneCountInString(s.Description); n > MaxDescriptionLen {
		c.add(CodeDescriptionTooLong, lookup(top, "description"),
			fmt.Sprintf("description is %d characters, more than %d", n, MaxDescriptionLen),
			"keep the trigger sentence in the description and move detail into the body")
	} else if isPlaceholderDescription(s.Description) {
		c.add(CodeDescriptionPlaceholder, lookup(top, "description"), "description is still the placeholder skillpm init wrote",
			"say what the skill does and when to use it, e.g. \"Summarize web pages. Use when the user asks for a summary of a URL.\"")
	}
}

func (c *checker) decodeName(s *Skill, v *yaml.Node) {
	t, ok := scalarText(v)
	if !ok {
		c.add(CodeNameInvalid, v, "name must be text, found "+kindName(v), "write name: my-skill")
		return
	}
	s.Name = t
	switch {
	case t == "":
		c.add(CodeNameInvalid, v, "name is empty", "write name: <directory-name>")
	case len(t) > MaxNameLen:
		c.add(CodeNameInvalid, v, fmt.Sprintf("name is %d characters, more than %d", len(t), MaxNameLen), "shorten the name (and the directory)")
	case !nameRE.MatchString(t):
		c.add(CodeNameInvalid, v, fmt.Sprintf("name %q must be lower-case letters and digits in words joined by single hyphens", t),
			fmt.Sprintf("rename it to %q (and the directory to match)", SuggestName(t)))
	}
}

// SuggestName turns a name that breaks the rules into one that follows them:
// lower case, runs of other characters to one hyphen, trimmed, at most 64.
func SuggestName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > MaxNameLen {
		out = strings.TrimRight(out[:MaxNameLen], "-")
	}
	if out == "" {
		out = "skill"
	}
	return out
}

func (c *checker) decodeVersion(s *Skill, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.ScalarNode {
		c.add(CodeVersionInvalid, v, "version must be a SemVer string, found "+kindName(v), `write version: "1.0.0"`)
		return
	}
	s.Version = v.Value
	if tag := v.ShortTag(); tag == "!!int" || tag == "!!float" {
		c.add(CodeVersionNumber, v, fmt.Sprintf("version %s is a YAML number, not a SemVer string", v.Value),
			fmt.Sprintf("write version: %q", padVersion(v.Value)))
		return
	}
	sv, err := semver.StrictNewVersion(v.Value)
	if err != nil {
		hint := `use MAJOR.MINOR.PATCH, e.g. version: "1.0.0"`
		if strings.HasPrefix(v.Value, "v") {
			hint = fmt.Sprintf("drop the leading v: version: %q", strings.TrimPrefix(v.Value, "v"))
		}
		c.add(CodeVersionInvalid, v, fmt.Sprintf("version %q is not SemVer 2.0", v.Value), hint)
		return
	}
	if sv.Major() == 0 && sv.Minor() == 0 && sv.Patch() == 0 && sv.Prerelease() == "" {
		c.add(CodeVersionUnpublishable, v, "version 0.0.0 means unversioned and cannot be published", `set a real version, e.g. "0.1.0"`)
	}
}

// padVersion turns "1" or "1.0" into "1.0.0" for a hint.
func padVersion(s string) string {
	parts := strings.Split(s, ".")
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	return strings.Join(parts, ".")
}

func isStringList(n *yaml.Node) bool {
	if n.Kind != yaml.SequenceNode {
		return false
	}
	for _, e := range n.Content {
		if e.Kind != yaml.ScalarNode || isNull(e) {
			return false
		}
	}
	return true
}

// stringList decodes a list of scalars, reporting anything else under code.
func (c *checker) stringList(n *yaml.Node, field, code string) []string {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		c.add(code, n, field+" must be a list, found "+kindName(n), "write it as a YAML list: ["+"a, b]")
		return nil
	}
	var out []string
	for _, e := range n.Content {
		t, ok := scalarText(e)
		if !ok {
			c.add(code, e, field+" entries must be strings, found "+kindName(e), "write each entry as a plain string")
			continue
		}
		out = append(out, t)
	}
	return out
}

func (c *checker) decodeMetadata(s *Skill, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		c.add(CodeMetadataType, v, "metadata must be a mapping of namespaces, found "+kindName(v),
			"write metadata: followed by indented namespaces such as gaia:; a JSON object string must be unquoted")
		return
	}
	g := lookup(v, "gaia")
	if g == nil || isNull(g) {
		return
	}
	if g.Kind != yaml.MappingNode {
		c.add(CodeGaiaType, g, "metadata.gaia must be a mapping, found "+kindName(g), "indent the gaia fields under metadata.gaia")
		return
	}
	mapEntries(g, func(k, v *yaml.Node) {
		switch k.Value {
		case "security_tier":
			t, _ := scalarText(v)
			switch t {
			case TierVerified, TierCommunity, TierExperimental:
				s.Gaia.SecurityTier = t
			default:
				c.add(CodeTierInvalid, v, fmt.Sprintf("security_tier %q is not a tier", v.Value), "use verified, community or experimental")
			}
		case "permissions":
			c.decodePermissions(s, v)
		case "requirements":
			c.decodeRequirements(s, v)
		case "tools":
			c.decodeTools(s, v)
		case "tools_required":
			s.Gaia.ToolsRequired = c.stringList(v, "metadata.gaia.tools_required", CodeToolsRequiredInvalid)
		default:
			if dependencyGuess(k.Value) {
				c.add(CodeGaiaUnknownField, k, fmt.Sprintf("unknown field metadata.gaia.%s (kept as is): it declares no dependency", k.Value), DependencyHint)
				break
			}
			c.add(CodeGaiaUnknownField, k, fmt.Sprintf("unknown field metadata.gaia.%s (kept as is)", k.Value),
				"the gaia fields are security_tier, permissions, requirements, tools, tools_required")
		}
	})
}

// bareBinary is GAIA's BINARY_NAME_RE (amd/gaia 0.23.0, binaries.py): a
// shell:execute scope names one executable as it is typed, never a path
// or a list.
var bareBinary = regexp.MustCompile(`^[a-z][a-z0-9._+-]*$`)

func (c *checker) decodePermissions(s *Skill, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		c.add(CodePermissionInvalid, v, "permissions must be a list of domain:level[:scope], found "+kindName(v), "write permissions: [network:read]")
		return
	}
	seen := map[string]bool{}
	for _, e := range v.Content {
		t, ok := scalarText(e)
		if !ok {
			c.add(CodePermissionInvalid, e, "a permission must be a string domain:level[:scope], found "+kindName(e), "write e.g. - network:read")
			continue
		}
		p, err := ParsePermission(t)
		if err != nil {
			pe := err.(*PermissionError)
			c.add(CodePermissionInvalid, e, pe.Error(), pe.Hint)
			continue
		}
		if p.Domain == "shell" && p.Level == "execute" && p.Scope != "" && !bareBinary.MatchString(p.Scope) {
			msg := fmt.Sprintf("shell:execute scope %q is not one bare executable name; GAIA refuses the whole skill", p.Scope)
			hint := "name the command as it is typed, e.g. shell:execute:git"
			if bins := strings.Split(p.Scope, ","); len(bins) > 1 {
				hint = "write one grant per binary: shell:execute:" + strings.Join(bins, ", shell:execute:")
			}
			c.add(CodeShellScope, e, msg, hint)
		}
		if seen[p.String()] {
			c.add(CodePermissionDuplicate, e, fmt.Sprintf("permission %s is declared twice", p), "remove the repeated entry")
			continue
		}
		seen[p.String()] = true
		s.Gaia.Permissions = append(s.Gaia.Permissions, p)
	}
}

func (c *checker) decodeRequirements(s *Skill, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		c.add(CodeRequirementInvalid, v, "requirements must be a mapping, found "+kindName(v), "indent model:, python:, env_vars: … under requirements")
		return
	}
	r := &s.Gaia.Requirements
	mapEntries(v, func(k, v *yaml.Node) {
		field := "requirements." + k.Value
		switch k.Value {
		case "model", "context", "python":
			t, ok := scalarText(v)
			if !ok && !isNull(v) {
				c.add(CodeRequirementInvalid, v, field+" must be a string such as \">=3.10\", found "+kindName(v), "quote the constraint")
			}
			switch k.Value {
			case "model":
				r.Model = t
			case "context":
				r.Context = t
			default:
				r.Python = t
			}
		case "dependencies":
			r.Dependencies = c.stringList(v, field, CodeRequirementInvalid)
		case "node_dependencies":
			r.NodeDependencies = c.stringList(v, field, CodeRequirementInvalid)
		case "env_vars":
			r.EnvVars = c.stringList(v, field, CodeRequirementInvalid)
		case "hardware":
			if isNull(v) {
				return
			}
			if v.Kind != yaml.MappingNode {
				c.add(CodeRequirementInvalid, v, field+" must be a mapping, found "+kindName(v), "write hardware: { gpu_vram: \">=8GB\" }")
				return
			}
			m, _ := toValue(v).(map[string]any)
			r.Hardware = m
		case "skills":
			c.decodeSkillDeps(s, v)
		default:
			c.add(CodeGaiaUnknownField, k, fmt.Sprintf("unknown field metadata.gaia.%s (kept as is)", field),
				"requirements are model, context, python, dependencies, node_dependencies, env_vars, hardware, skills")
		}
	})
}

func (c *checker) decodeSkillDeps(s *Skill, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		c.add(CodeSkillDepInvalid, v, "requirements.skills must be a mapping of skill name to version range, found "+kindName(v),
			"write skills: { web-research: ^1.2 }")
		return
	}
	mapEntries(v, func(k, r *yaml.Node) {
		if !validDepName(k.Value) {
			c.add(CodeSkillDepInvalid, k, fmt.Sprintf("%q is not a skill name or a reference registry/namespace/name", k.Value),
				"use a skill name like web-research, or a full reference like ghcr.io/acme/skills/web-research")
			return
		}
		rng, ok := scalarText(r)
		if !ok {
			c.add(CodeSkillRangeInvalid, r, fmt.Sprintf("skill %s needs a version range, found %s", k.Value, kindName(r)),
				`write a range such as "^1.2", or "*" for any version`)
			return
		}
		if _, err := semver.NewConstraint(rng); err != nil {
			c.add(CodeSkillRangeInvalid, r, fmt.Sprintf("version range %q for %s does not parse: %v", rng, k.Value, err),
				`use ^1.2, ~1.4, ">=1.0, <2.0", 1.x or *`)
			return
		}
		s.Gaia.Requirements.Skills = append(s.Gaia.Requirements.Skills, Dependency{Name: k.Value, Range: rng})
	})
}

// validDepName accepts a skill name or a reference whose last element is one.
func validDepName(n string) bool {
	i := strings.LastIndexByte(n, '/')
	if i < 0 {
		return ValidName(n)
	}
	for _, seg := range strings.Split(n[:i], "/") {
		if seg == "" || strings.ContainsAny(seg, " \t@") {
			return false
		}
	}
	return ValidName(n[i+1:])
}

func (c *checker) decodeExecution(s *Skill, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		c.add(CodeExecutionInvalid, v, "execution must be a mapping with a calls: list, found "+kindName(v), "write execution: then calls: indented below it")
		return
	}
	calls := lookup(v, "calls")
	ex := &Execution{}
	s.Execution = ex
	mapEntries(v, func(k, _ *yaml.Node) {
		if k.Value != "calls" {
			c.add(CodeExecutionInvalid, k, fmt.Sprintf("unknown field execution.%s", k.Value), "ASF v0.1 defines only execution.calls")
		}
	})
	if calls == nil || isNull(calls) {
		c.add(CodeExecutionInvalid, v, "execution has no calls", "list the calls: - skill: NAME or - step: FILE.md")
		return
	}
	if calls.Kind != yaml.SequenceNode {
		c.add(CodeExecutionInvalid, calls, "execution.calls must be a list, found "+kindName(calls), "write each call as - skill: NAME or - step: FILE.md")
		return
	}
	for _, e := range calls.Content {
		call, ok := c.decodeCall(e)
		if ok {
			ex.Calls = append(ex.Calls, call)
		}
	}
}

func (c *checker) decodeCall(e *yaml.Node) (Call, bool) {
	call := Call{Line: e.Line, Column: e.Column}
	if e.Kind != yaml.MappingNode {
		c.add(CodeCallInvalid, e, "a call must be a mapping {skill: NAME} or {step: FILE.md}, found "+kindName(e), "write - skill: diagnosis or - step: 001-first.md")
		return call, false
	}
	ok := true
	mapEntries(e, func(k, v *yaml.Node) {
		switch k.Value {
		case "skill":
			t, isText := scalarText(v)
			if !isText || !validDepName(t) {
				c.add(CodeCallInvalid, v, fmt.Sprintf("skill call %q does not name a skill", v.Value), "write - skill: <name of an installed skill>")
				ok = false
			}
			call.Skill = t
		case "step":
			t, isText := scalarText(v)
			if !isText || t == "" {
				c.add(CodeCallInvalid, v, "step call does not name a file", "write - step: 001-first-step.md")
				ok = false
			}
			call.Step = t
		case "ask_user":
			if v.ShortTag() != "!!bool" {
				c.add(CodeCallInvalid, v, fmt.Sprintf("ask_user must be true or false, found %q", v.Value), "write ask_user: true")
				ok = false
				return
			}
			call.AskUser = v.Value == "true" || v.Value == "True" || v.Value == "TRUE"
		default:
			c.add(CodeCallInvalid, k, fmt.Sprintf("unknown call field %q", k.Value), "a call has skill: or step:, and optionally ask_user:")
			ok = false
		}
	})
	switch {
	case call.Skill != "" && call.Step != "":
		c.add(CodeCallInvalid, e, "a call has both skill: and step:", "split it into two calls")
		ok = false
	case call.Skill == "" && call.Step == "" && ok:
		c.add(CodeCallInvalid, e, "a call has neither skill: nor step:", "write - skill: NAME or - step: FILE.md")
		ok = false
	}
	if call.Skill != "" && lookup(e, "ask_user") != nil {
		c.add(CodeAskUserOnSkill, lookup(e, "ask_user"), "ask_user on a skill call is ignored: the called skill owns its gates",
			"put ask_user: true on the step inside the called skill")
	}
	if call.Step != "" {
		clean := path.Clean(strings.ReplaceAll(call.Step, `\`, "/"))
		switch {
		case path.IsAbs(clean) || strings.HasPrefix(clean, "../") || clean == ".." || (len(call.Step) > 1 && call.Step[1] == ':'):
			c.add(CodeStepPathInvalid, lookup(e, "step"), fmt.Sprintf("step %q is not a relative path inside the skill", call.Step), "name a .md file inside the skill directory")
			ok = false
		case !strings.HasSuffix(strings.ToLower(clean), ".md"):
			c.add(CodeStepPathInvalid, lookup(e, "step"), fmt.Sprintf("step %q is not a Markdown file", call.Step), "step files end in .md")
			ok = false
		}
	}
	return call, ok
}

var toolTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "array": true, "object": true, "null": true}

func (c *checker) decodeTools(s *Skill, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		c.add(CodeToolInvalid, v, "metadata.gaia.tools must be a list of tool declarations, found "+kindName(v), "write - name: my_tool with description: and parameters:")
		return
	}
	seen := map[string]bool{}
	for _, e := range v.Content {
		if e.Kind != yaml.MappingNode {
			c.add(CodeToolInvalid, e, "a tool declaration must be a mapping, found "+kindName(e), "write - name: my_tool")
			continue
		}
		t := Tool{Line: e.Line, Column: e.Column}
		mapEntries(e, func(k, v *yaml.Node) {
			switch k.Value {
			case "name":
				t.Name, _ = scalarText(v)
			case "description":
				t.Description, _ = scalarText(v)
			case "parameters":
				t.Parameters = c.decodeParams(v)
			case "returns":
				if m, ok := toValue(v).(map[string]any); ok {
					t.Returns = m
				} else if !isNull(v) {
					c.add(CodeToolInvalid, v, "returns must be a mapping such as {type: object}", "write returns: { type: object }")
				}
			case "atomic":
				if v.ShortTag() != "!!bool" {
					c.add(CodeToolInvalid, v, "atomic must be true or false", "write atomic: false")
					return
				}
				b := v.Value == "true" || v.Value == "True" || v.Value == "TRUE"
				t.Atomic = &b
			default:
				c.add(CodeToolInvalid, k, fmt.Sprintf("unknown tool field %q", k.Value), "a tool has name, description, parameters, returns, atomic")
			}
		})
		if !pyIdent.MatchString(t.Name) {
			c.add(CodeToolInvalid, e, fmt.Sprintf("tool name %q is not a Python identifier", t.Name), "name the tool after its @tool function, e.g. search_web")
			continue
		}
		if seen[t.Name] {
			c.add(CodeToolDuplicate, e, fmt.Sprintf("tool %s is declared twice", t.Name), "remove one declaration")
			continue
		}
		seen[t.Name] = true
		s.Gaia.Tools = append(s.Gaia.Tools, t)
	}
}

var pyIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (c *checker) decodeParams(v *yaml.Node) []Param {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		c.add(CodeToolInvalid, v, "parameters must be a mapping of name to {type, required, default}", "write parameters: { query: { type: string, required: true } }")
		return nil
	}
	var out []Param
	mapEntries(v, func(k, pv *yaml.Node) {
		p := Param{Name: k.Value, Line: k.Line, Column: k.Column}
		if pv.Kind != yaml.MappingNode {
			c.add(CodeToolInvalid, pv, fmt.Sprintf("parameter %s must be a mapping {type, required, default}", k.Value), "write { type: string, required: true }")
			return
		}
		var required *bool
		mapEntries(pv, func(fk, fv *yaml.Node) {
			switch fk.Value {
			case "type":
				p.Type, _ = scalarText(fv)
				if !toolTypes[p.Type] {
					c.add(CodeToolInvalid, fv, fmt.Sprintf("parameter %s has unknown type %q", k.Value, fv.Value), "use string, integer, number, boolean, array or object")
				}
			case "required":
				if fv.ShortTag() != "!!bool" {
					c.add(CodeToolInvalid, fv, "required must be true or false", "write required: true")
					return
				}
				b := fv.Value == "true" || fv.Value == "True" || fv.Value == "TRUE"
				required = &b
			case "default":
				p.Default, p.HasDefault = toValue(fv), true
			case "description", "items", "enum", "properties":
			default:
				c.add(CodeToolInvalid, fk, fmt.Sprintf("unknown parameter field %q", fk.Value), "a parameter has type, required, default, description")
			}
		})
		// Without an explicit required:, a parameter is optional exactly when
		// it has a default, as in a Python signature.
		if required != nil {
			p.Required = *required
		} else {
			p.Required = !p.HasDefault
		}
		out = append(out, p)
	})
	return out
}

// DependencyKey is where a skill declares the skills it needs: a map of
// skill name to version range.
const DependencyKey = "metadata.gaia.requirements.skills"

// DependencyHint is the fix for a dependency declared under a key that
// means nothing to the format (requires:, dependencies:, ...).
const DependencyHint = "declare the skills this one needs under " + DependencyKey + `, a map of name to range: metadata: { gaia: { requirements: { skills: { lib-a: "^1" } } } }`

// dependencyGuess reports whether key is a name authors reach for to
// declare dependencies (npm's, Python's, Debian's words), which the
// format does not read.
func dependencyGuess(key string) bool {
	switch strings.ToLower(strings.ReplaceAll(key, "-", "_")) {
	case "requires", "require", "required", "dependencies", "dependency", "depends", "depends_on",
		"deps", "needs", "requirements", "skills", "required_skills", "skill_dependencies":
		return true
	}
	return false
}
