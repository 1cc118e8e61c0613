package skill

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Hosts such as Claude Code pre-approve the tools a skill lists in
// allowed-tools, so each is a permission in all but name. toolPermissions
// maps the tool names hosts use to the permission they amount to; a tool
// mapped to nothing needs no permission. docs/allowed-tools.md is the
// same table for users.
var toolPermissions = map[string][]string{
	"Bash":            {"shell:execute"},
	"BashOutput":      {"shell:execute"},
	"KillShell":       {"shell:execute"},
	"Write":           {"filesystem:write"},
	"Edit":            {"filesystem:write"},
	"MultiEdit":       {"filesystem:write"},
	"NotebookEdit":    {"filesystem:write"},
	"Read":            {"filesystem:read"},
	"Glob":            {"filesystem:read"},
	"Grep":            {"filesystem:read"},
	"LS":              {"filesystem:read"},
	"NotebookRead":    {"filesystem:read"},
	"WebFetch":        {"network:read"},
	"WebSearch":       {"network:read"},
	"TodoWrite":       nil,
	"TodoRead":        nil,
	"Task":            nil,
	"Skill":           nil,
	"AskUserQuestion": nil,
	"ExitPlanMode":    nil,
}

// MaxAllowedTools bounds how many allowed-tools entries are mapped; the
// rest are reported as unknown.
const MaxAllowedTools = 256

// ToolMapping is what allowed-tools amounts to.
type ToolMapping struct {
	// Permissions are the permissions the listed tools amount to, sorted
	// and without duplicates.
	Permissions []Permission
	// Unknown are the tools skillpm cannot map, in listed order: they are
	// listed for consent.
	Unknown []string
}

// MapAllowedTools maps allowed-tools entries ("Bash(git:*)", "Write",
// "mcp__github__create_issue") to permissions. A Bash pattern whose
// command is a plain word is scoped to it (shell:execute:git); an MCP tool
// is mcp:connect scoped to its server.
func MapAllowedTools(tools []string) ToolMapping {
	var m ToolMapping
	seen := map[string]bool{}
	add := func(s string) {
		if seen[s] {
			return
		}
		if p, err := ParsePermission(s); err == nil {
			seen[s] = true
			m.Permissions = append(m.Permissions, p)
		}
	}
	for i, t := range tools {
		if i >= MaxAllowedTools {
			m.Unknown = append(m.Unknown, fmt.Sprintf("(%d more entries beyond the %d mapped)", len(tools)-i, MaxAllowedTools))
			break
		}
		name, arg, _ := strings.Cut(t, "(")
		name = strings.TrimSpace(name)
		arg = strings.TrimSuffix(strings.TrimSpace(arg), ")")
		switch {
		case strings.HasPrefix(name, "mcp__"):
			server, _, _ := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__")
			if server == "" {
				add("mcp:connect")
			} else {
				add("mcp:connect:" + server)
			}
		case name == "Bash" && arg != "":
			cmd := strings.FieldsFunc(arg, func(r rune) bool { return r == ' ' || r == ':' || r == '*' })
			if len(cmd) > 0 && ValidName(cmd[0]) {
				add("shell:execute:" + cmd[0])
			} else {
				add("shell:execute")
			}
		default:
			perms, ok := toolPermissions[name]
			if !ok {
				m.Unknown = append(m.Unknown, t)
				continue
			}
			for _, p := range perms {
				add(p)
			}
		}
	}
	slices.SortFunc(m.Permissions, func(a, b Permission) int { return strings.Compare(a.String(), b.String()) })
	return m
}

// splitAllowedTools splits the string form of allowed-tools on spaces and
// commas outside parentheses ("Bash(git status:*) Read, Grep").
func splitAllowedTools(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ' ' || r == ',' || r == '\t' || r == '\n'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}

// decodeAllowedTools reads allowed-tools in either form.
func decodeAllowedTools(v *yaml.Node) []string {
	if v.Kind == yaml.ScalarNode {
		return splitAllowedTools(v.Value)
	}
	var out []string
	for _, e := range v.Content {
		if t := strings.TrimSpace(e.Value); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// EffectivePermissions are the declared permissions plus those
// allowed-tools amounts to and no declared one covers: what a host that
// honours allowed-tools lets the skill do, and what ceilings and consent
// judge.
func (s *Skill) EffectivePermissions() []Permission {
	out := slices.Clone(s.Gaia.Permissions)
	for _, p := range MapAllowedTools(s.AllowedTools).Permissions {
		if !slices.ContainsFunc(out, func(d Permission) bool { return p.Within(d) }) {
			out = append(out, p)
		}
	}
	return out
}

// checkAllowedTools warns when allowed-tools asks for more than the
// declared permissions, and names the tools it cannot map.
func (c *checker) checkAllowedTools(s *Skill, v *yaml.Node) {
	m := MapAllowedTools(s.AllowedTools)
	var beyond []string
	for _, p := range m.Permissions {
		if p.Level == "none" || slices.ContainsFunc(s.Gaia.Permissions, func(d Permission) bool { return p.Within(d) }) {
			continue
		}
		beyond = append(beyond, p.String())
	}
	if len(beyond) > 0 {
		c.add(CodeAllowedToolsUndeclared, v, fmt.Sprintf("allowed-tools asks for %s, which metadata.gaia.permissions does not declare; hosts pre-approve these tools, so skillpm treats them as declared", strings.Join(beyond, ", ")),
			"declare them under metadata.gaia.permissions, or drop the tools from allowed-tools")
	}
	if len(m.Unknown) > 0 {
		c.add(CodeAllowedToolsUnknown, v, fmt.Sprintf("allowed-tools lists %s, which skillpm cannot map to a permission; installs list them for consent", strings.Join(m.Unknown, ", ")),
			"see docs/allowed-tools.md for the tools skillpm knows")
	}
}
