package audit

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
)

// permRule maps a permission domain to its undeclared-use rule.
func permRule(domain string) string {
	switch domain {
	case "network":
		return RulePermNetwork
	case "filesystem":
		return RulePermFilesystem
	case "shell":
		return RulePermShell
	case "env":
		return RulePermEnv
	case "database":
		return RulePermDatabase
	case "desktop":
		return RulePermDesktop
	case "mcp":
		return RulePermMCP
	}
	return ""
}

// levelCovers reports whether a declared level allows a used level: the
// same level, or write where read was used (a skill that may write a
// file may read it).
func levelCovers(declared, used string) bool {
	return declared == used || declared == "write" && used == "read"
}

// scopeCovers checks a use's detail against a declared scope: hosts for
// network (globs such as *.brave.com, or URLs), programs for shell,
// variable names for env. An unknown detail cannot be checked and is
// covered; so is every filesystem, database, desktop and MCP use (their
// scopes are not checked statically).
func scopeCovers(p skill.Permission, u use) bool {
	if p.Scope == "" || u.detail == "" {
		return true
	}
	switch p.Domain {
	case "network":
		for _, sc := range strings.Split(p.Scope, ",") {
			sc = strings.TrimSpace(sc)
			if h := hostOf(sc); h != "" {
				sc = h
			}
			sc = strings.ToLower(strings.TrimSuffix(sc, "/"))
			if sc == "*" || sc == u.detail {
				return true
			}
			if ok, _ := path.Match(sc, u.detail); ok {
				return true
			}
			if strings.HasPrefix(sc, "*.") && u.detail == sc[2:] {
				return true
			}
		}
		return false
	case "shell":
		if commonUtility(u.detail) {
			return true
		}
		for _, sc := range strings.Split(p.Scope, ",") {
			sc = strings.TrimSpace(sc)
			if ok, _ := path.Match(sc, u.detail); ok || sc == "*" {
				return true
			}
		}
		return false
	case "env":
		for _, sc := range strings.Split(p.Scope, ",") {
			if ok, _ := path.Match(strings.TrimSpace(sc), u.detail); ok {
				return true
			}
		}
		return false
	}
	return true
}

// commonUtility names the POSIX text and file utilities every shell script
// uses; a scope listing programs (shell:execute:git,npm) is read as the
// programs beyond these.
func commonUtility(p string) bool {
	switch p {
	case "cat", "echo", "printf", "grep", "egrep", "fgrep", "sed", "awk", "head", "tail", "tr", "cut", "sort", "uniq",
		"wc", "basename", "dirname", "date", "mkdir", "test", "[", "true", "false", "env", "pwd", "ls", "sleep",
		"mktemp", "tee", "xargs", "realpath", "readlink", "which", "command", "printenv", "id", "uname", "expr",
		"seq", "rm", "cp", "mv", "touch", "find", "chmod", "tput", "stat", "diff", "cmp", "comm", "paste", "join",
		"fold", "fmt", "nl", "rev", "yes", "whoami", "hostname", "jq":
		return true
	}
	return false
}

// diffPermissions compares what the code uses with what the skill
// declares and reports each undeclared use, once per file, domain, level
// and (for a scope miss) detail.
func (r *run) diffPermissions() {
	type key struct{ file, domain, level, detail string }
	type group struct {
		first use
		n     int
		scope bool
	}
	groups := map[key]*group{}
	var order []key
	for _, u := range r.uses {
		covered, scopeMiss := false, false
		for _, p := range r.declared {
			if p.Domain != u.domain || !levelCovers(p.Level, u.level) {
				continue
			}
			if scopeCovers(p, u) {
				covered = true
				break
			}
			scopeMiss = true
		}
		if covered {
			continue
		}
		k := key{u.file, u.domain, u.level, ""}
		if scopeMiss {
			k.detail = u.detail
		}
		g := groups[k]
		if g == nil {
			g = &group{first: u, scope: scopeMiss}
			groups[k] = g
			order = append(order, k)
		}
		g.n++
		if u.line < g.first.line || u.line == g.first.line && u.col < g.first.col {
			g.first = u
		}
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.domain != b.domain {
			return a.domain < b.domain
		}
		if a.level != b.level {
			return a.level < b.level
		}
		return a.detail < b.detail
	})
	for _, k := range order {
		g := groups[k]
		u := g.first
		perm := u.domain + ":" + u.level
		var msg string
		if g.scope {
			msg = fmt.Sprintf("%s uses %s for %q, outside the declared scope (%s)", u.what, perm, u.detail, r.declaredFor(u.domain))
		} else {
			msg = fmt.Sprintf("%s uses %s, which the skill does not declare (%s)", u.what, perm, r.declaredFor(u.domain))
		}
		if g.n > 1 {
			msg += fmt.Sprintf("; %d uses in this file", g.n)
		}
		f := Finding{Rule: permRule(u.domain), File: u.file, Line: u.line, Column: u.col, Message: msg, Evidence: u.what,
			Hint: r.permHint(u, g.scope)}
		if u.level == "read" && (u.domain == "filesystem" || u.domain == "database") {
			f.Severity = Medium
		}
		r.add(f)
	}
}

// declaredFor lists the declared permissions of a domain for a message.
func (r *run) declaredFor(domain string) string {
	var ps []string
	for _, p := range r.declared {
		if p.Domain == domain {
			ps = append(ps, p.String())
		}
	}
	if !r.permsKnown {
		return "declared permissions are unreadable"
	}
	if len(ps) == 0 {
		return "declares no " + domain + " permission"
	}
	return "declares " + strings.Join(ps, ", ")
}

func (r *run) permHint(u use, scope bool) string {
	perm := u.domain + ":" + u.level
	if scope && u.detail != "" {
		return "add " + u.detail + " to the scope of " + perm + " in metadata.gaia.permissions, or remove the use"
	}
	if u.domain == "env" {
		return "declare env:read in metadata.gaia.permissions and list the variables in requirements.env_vars"
	}
	return "declare " + perm + " in metadata.gaia.permissions, or remove the use"
}
