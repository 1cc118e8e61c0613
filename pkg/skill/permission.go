package skill

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Permission is one entry of metadata.gaia.permissions: domain:level[:scope].
// An empty Scope covers the whole domain at that level.
type Permission struct {
	Domain string `json:"domain"`
	Level  string `json:"level"`
	Scope  string `json:"scope,omitempty"`
}

// domainLevels is the permission grammar of the GAIA skill format.
var domainLevels = map[string][]string{
	"filesystem": {"read", "write", "none"},
	"network":    {"read", "write", "none"},
	"shell":      {"execute", "none"},
	"mcp":        {"connect", "none"},
	"env":        {"read", "none"},
	"database":   {"read", "write", "none"},
	"desktop":    {"control", "none"},
}

// Domains returns the permission domains, sorted.
func Domains() []string {
	out := make([]string, 0, len(domainLevels))
	for d := range domainLevels {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// String renders the permission in its declared form.
func (p Permission) String() string {
	s := p.Domain + ":" + p.Level
	if p.Scope != "" {
		s += ":" + p.Scope
	}
	return s
}

// Key is the permission without its scope ("shell:execute"): the unit that
// ceilings and the dangerous set are written in.
func (p Permission) Key() string { return p.Domain + ":" + p.Level }

// Within reports whether p is covered by grant: same domain and level, and
// grant unscoped or scoped identically.
func (p Permission) Within(grant Permission) bool {
	return p.Domain == grant.Domain && p.Level == grant.Level &&
		(grant.Scope == "" || grant.Scope == p.Scope)
}

// Connector reports whether the permission is a connector requirement that a
// host grants (network and MCP), as opposed to a sandbox requirement.
func (p Permission) Connector() bool { return p.Domain == "network" || p.Domain == "mcp" }

// PermissionError explains why a permission string does not parse.
type PermissionError struct {
	Input  string
	Reason string
	Hint   string
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("invalid permission %q: %s", e.Input, e.Reason)
}

// Unwrap makes errors.Is(err, ErrPermission) true.
func (e *PermissionError) Unwrap() error { return ErrPermission }

// ParsePermission parses "domain:level[:scope]". Everything after the second
// colon is the scope, so scopes may themselves hold colons (URLs).
func ParsePermission(s string) (Permission, error) {
	fail := func(reason, hint string) (Permission, error) {
		return Permission{}, &PermissionError{Input: s, Reason: reason, Hint: hint}
	}
	if s == "" {
		return fail("it is empty", "write domain:level, e.g. network:read")
	}
	if strings.TrimSpace(s) != s || strings.ContainsAny(s, " \t\n") {
		return fail("it contains white space", "write domain:level[:scope] with no spaces, e.g. shell:execute:git")
	}
	parts := strings.SplitN(s, ":", 3)
	if len(parts) < 2 {
		return fail("it has no level", "write domain:level, e.g. "+s+":read")
	}
	domain, level := parts[0], parts[1]
	levels, ok := domainLevels[domain]
	if !ok {
		if _, lower := domainLevels[strings.ToLower(domain)]; lower {
			return fail("domains are lower case", "write "+strings.ToLower(s))
		}
		return fail(fmt.Sprintf("unknown domain %q", domain), "use one of "+strings.Join(Domains(), ", "))
	}
	if !slices.Contains(levels, level) {
		return fail(fmt.Sprintf("unknown level %q for %s", level, domain), domain+" takes "+strings.Join(levels, ", "))
	}
	p := Permission{Domain: domain, Level: level}
	if len(parts) == 3 {
		if parts[2] == "" {
			return fail("the scope after the last colon is empty", "drop the trailing colon or name a scope")
		}
		if level == "none" {
			return fail("a none level cannot have a scope", "write "+domain+":none")
		}
		p.Scope = parts[2]
	}
	return p, nil
}

func sortStrings(xs []string) { sort.Strings(xs) }
