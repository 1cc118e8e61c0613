package audit

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
)

// Suggestion is what a skill would declare to cover what its code does:
// the path from AUD-PERM-UNDECLARED-* findings to a declaration, so that
// an author can declare instead of being blocked.
type Suggestion struct {
	// Permissions are metadata.gaia.permissions entries ("network:read:
	// api.example.com", "shell:execute:git,npm") that cover every use the
	// audit saw, sorted. A scope is given when every use of the domain
	// names its host, program or variable; otherwise the permission is
	// unscoped.
	Permissions []string `json:"permissions"`
	// Undeclared are those of Permissions that the declared permissions do
	// not cover yet.
	Undeclared []string `json:"undeclared"`
	// AllowedTools are the allowed-tools entries (Claude Code names) that
	// amount to the same permissions, for hosts that read allowed-tools;
	// network writes, env and database uses have no tool and are left out.
	AllowedTools []string `json:"allowed_tools"`
}

// Suggest audits dir like Scan and returns the report with the
// permissions that would cover what its code does.
func (s *Scanner) Suggest(ctx context.Context, dir string) (*Report, *Suggestion, error) {
	var sug *Suggestion
	rep, err := s.scan(ctx, dir, func(r *run) { sug = r.suggest() })
	if err != nil {
		return nil, nil, err
	}
	return rep, sug, nil
}

// suggest builds the suggestion from the uses the code analyses recorded.
func (r *run) suggest() *Suggestion {
	type acc struct {
		level   string
		details map[string]bool
		unknown bool
	}
	byDomain := map[string]*acc{}
	for _, u := range r.uses {
		a := byDomain[u.domain]
		if a == nil {
			a = &acc{details: map[string]bool{}}
			byDomain[u.domain] = a
		}
		if a.level == "" || u.level == "write" {
			a.level = u.level
		}
		switch {
		case u.domain == "shell" && commonUtility(u.detail):
			// Covered by any shell:execute scope (perms.go).
		case u.detail == "" || strings.Contains(u.detail, unknownPart) || strings.Contains(u.detail, "__dynamic__") || !skill.ValidName(u.detail) && u.domain == "shell":
			a.unknown = true
		default:
			a.details[u.detail] = true
		}
	}
	sug := &Suggestion{Permissions: []string{}, Undeclared: []string{}, AllowedTools: []string{}}
	domains := make([]string, 0, len(byDomain))
	for d := range byDomain {
		domains = append(domains, d)
	}
	sort.Strings(domains)
	for _, d := range domains {
		a := byDomain[d]
		p := skill.Permission{Domain: d, Level: a.level}
		scoped := d == "network" || d == "shell" || d == "env"
		if scoped && !a.unknown && len(a.details) > 0 {
			ds := make([]string, 0, len(a.details))
			for x := range a.details {
				ds = append(ds, x)
			}
			sort.Strings(ds)
			p.Scope = strings.Join(ds, ",")
		}
		sug.Permissions = append(sug.Permissions, p.String())
		if !slices.ContainsFunc(r.declared, func(dp skill.Permission) bool {
			return dp.Domain == p.Domain && levelCovers(dp.Level, p.Level) && (dp.Scope == "" || dp.Scope == p.Scope)
		}) {
			sug.Undeclared = append(sug.Undeclared, p.String())
		}
		sug.AllowedTools = append(sug.AllowedTools, toolsFor(p)...)
	}
	sort.Strings(sug.AllowedTools)
	sug.AllowedTools = slices.Compact(sug.AllowedTools)
	return sug
}

// toolsFor maps a permission to the allowed-tools entries that amount to
// it: the reverse of skill.MapAllowedTools.
func toolsFor(p skill.Permission) []string {
	switch p.Key() {
	case "shell:execute":
		if p.Scope == "" {
			return []string{"Bash"}
		}
		var out []string
		for _, prog := range strings.Split(p.Scope, ",") {
			out = append(out, "Bash("+prog+":*)")
		}
		return out
	case "filesystem:read":
		return []string{"Glob", "Grep", "Read"}
	case "filesystem:write":
		return []string{"Edit", "Glob", "Grep", "Read", "Write"}
	case "network:read":
		return []string{"WebFetch"}
	case "mcp:connect":
		if p.Scope == "" {
			return nil
		}
		return []string{"mcp__" + p.Scope}
	}
	return nil
}
