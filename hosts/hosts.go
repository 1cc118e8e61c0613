// Package hosts is the table of agent hosts that read SKILL.md folders:
// each host's user and project discovery roots, the environment variables
// that move them, the other hosts' roots it reads, which copy wins when a
// name repeats, whether it follows symlinks, and where each fact comes
// from. The table is data (hosts.yaml, compiled in as table.go); a user
// file can add hosts. Install, list, the ASF runner and the HTTP API
// resolve every root through it with one Env.
package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Scope selects user-wide or project-local roots.
type Scope string

// Scopes.
const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// Duplicates is how a host treats two skills of the same name in its roots.
type Duplicates string

// Duplicate rules.
const (
	// FirstWins: the copy in the earliest root of Host.Search is loaded,
	// the others are shadowed.
	FirstWins Duplicates = "first-wins"
	// All: the host offers every copy, each under its own path.
	All Duplicates = "all"
	// Unordered: the host loads one copy, but which one varies between
	// runs; skillpm reports the name as conflicting.
	Unordered Duplicates = "unordered"
)

// Symlinks tells whether a host loads a skill folder that is a symlink.
type Symlinks string

// Symlink behaviours.
const (
	SymlinksFollowed Symlinks = "followed"
	SymlinksIgnored  Symlinks = "ignored"
	SymlinksUnknown  Symlinks = "unknown"
)

// SkillFile is the only file name hosts load a skill from; every host in
// the table ignores a folder holding only a lower-case skill.md.
const SkillFile = "SKILL.md"

// Dir is a directory that an environment variable may move.
type Dir struct {
	// Env names a variable whose value, when set and not blank, replaces
	// Dir.
	Env string `yaml:"env,omitempty" json:"env,omitempty"`
	// Dir is the default: "~/..." under the home directory, a relative
	// path under the project (working) directory.
	Dir string `yaml:"dir" json:"dir"`
	// Join is appended to the chosen base.
	Join string `yaml:"join,omitempty" json:"join,omitempty"`
	// ExpandTilde is true for a host that expands a leading "~" in the
	// variable's value. Claude Code 2.1.332, Codex 0.171.0, OpenCode
	// 1.18.33 (observed) and GAIA 0.23.0 (source) do not: CODEX_HOME='~/x'
	// (quoted, so no shell expanded it) is the directory "~/x" under the
	// working directory to them, and so it is to skillpm, which writes
	// where the host reads.
	ExpandTilde bool `yaml:"expand_tilde,omitempty" json:"expandTilde,omitempty"`
}

// Resolve returns the absolute directory: a relative Dir or variable value
// is under env.Cwd, "~/" in Dir is env.Home, and "~" in the variable's value
// is expanded only when ExpandTilde says the host does so.
func (d Dir) Resolve(env Env) (string, error) {
	base, from := d.Dir, "the default "+d.Dir
	if d.Env != "" {
		if v := env.Lookup(d.Env); v != "" {
			base, from = v, "$"+d.Env+"="+v
			if !d.ExpandTilde && strings.HasPrefix(v, "~") {
				base = "./" + v // the host reads it as a relative path
			}
		}
	}
	switch {
	case (base == "~" || strings.HasPrefix(base, "~/")) && env.Home == "":
		return "", fmt.Errorf("%w: %s needs it", ErrNoHome, from)
	case !strings.HasPrefix(base, "~") && !filepath.IsAbs(base) && env.Cwd == "":
		return "", fmt.Errorf("%w: %s is relative", ErrNoCwd, from)
	}
	p := env.Abs(base)
	if d.Join != "" {
		p = filepath.Join(p, filepath.FromSlash(d.Join))
	}
	return p, nil
}

// String renders the directory as the table states it.
func (d Dir) String() string {
	s := d.Dir
	if d.Env != "" {
		s = "${" + d.Env + ":-" + d.Dir + "}"
	}
	if d.Join != "" {
		s += "/" + d.Join
	}
	return s
}

// SearchEntry is one root a host reads: one of its own scopes, another
// host's scope, or a literal directory.
type SearchEntry struct {
	// Host is the host whose roots are read; "" is the host itself.
	Host string `json:"host,omitempty"`
	// Scope is the scope read.
	Scope Scope `json:"scope"`
	// Dir, when set, is a literal directory read instead of a host's roots.
	Dir *Dir `json:"dir,omitempty"`
	// UnlessEnv names a variable that, when set and not blank, stops the
	// host from reading this entry (Copilot reads ~/.agents/skills only
	// while COPILOT_HOME is unset).
	UnlessEnv string `json:"unlessEnv,omitempty"`
}

// UnmarshalYAML reads "user", "project", "HOST/scope", or a mapping: a
// literal directory {scope, dir, env, join, expand_tilde} or a host's
// roots {scope, host}, either with unless_env.
func (s *SearchEntry) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		host, scope, ok := strings.Cut(n.Value, "/")
		if !ok {
			host, scope = "", n.Value
		}
		*s = SearchEntry{Host: host, Scope: Scope(scope)}
		return nil
	}
	var v struct {
		Scope       Scope  `yaml:"scope"`
		Host        string `yaml:"host"`
		Dir         string `yaml:"dir"`
		Env         string `yaml:"env"`
		Join        string `yaml:"join"`
		ExpandTilde bool   `yaml:"expand_tilde"`
		UnlessEnv   string `yaml:"unless_env"`
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i].Value; k {
		case "scope", "host", "dir", "env", "join", "expand_tilde", "unless_env":
		default:
			return fmt.Errorf("line %d: search entry field %q: use scope, host, dir, env, join, expand_tilde or unless_env", n.Content[i].Line, k)
		}
	}
	if err := n.Decode(&v); err != nil {
		return err
	}
	*s = SearchEntry{Host: v.Host, Scope: v.Scope, UnlessEnv: v.UnlessEnv}
	if v.Host == "" && (v.Dir != "" || v.Env != "" || v.Join != "") {
		s.Dir = &Dir{Env: v.Env, Dir: v.Dir, Join: v.Join, ExpandTilde: v.ExpandTilde}
	}
	return nil
}

// Citation is where one fact about a host comes from: the host's docs or
// code that back it. The file key is sources: (hosts.yaml), kept as
// written.
type Citation struct {
	// Fact is what the citation backs: roots, precedence, symlinks or note.
	Fact string `yaml:"fact" json:"fact"`
	// Ref names the host's docs or code and the version read.
	Ref string `yaml:"ref" json:"ref"`
}

// Host is one row of the table.
type Host struct {
	// ID is the name used with --host.
	ID string `yaml:"id" json:"id"`
	// Name is the display name.
	Name string `yaml:"name" json:"name"`
	// SkillsCLI is the host's id in the agents table of Vercel's skills
	// CLI (npm "skills"), "" when that table lacks it; the table test
	// compares the two through it.
	SkillsCLI string `yaml:"skills_cli,omitempty" json:"skillsCli,omitempty"`
	// User are the host's own user roots; the first is where skillpm
	// installs at user scope. Empty when the host reads no user root
	// (NoUser says why).
	User []Dir `yaml:"user" json:"user"`
	// NoUser is the reason a host has no user root.
	NoUser string `yaml:"no_user,omitempty" json:"noUser,omitempty"`
	// Project are the host's own project roots, relative to the project;
	// the first is where skillpm installs at project scope. Empty when the
	// host reads no project root (NoProject says why).
	Project []Dir `yaml:"project" json:"project"`
	// NoProject is the reason a host has no project root.
	NoProject string `yaml:"no_project,omitempty" json:"noProject,omitempty"`
	// Search lists every root the host reads, highest precedence first.
	Search []SearchEntry `yaml:"search" json:"search"`
	// Duplicates is the host's rule for a name found in several roots.
	Duplicates Duplicates `yaml:"duplicates" json:"duplicates"`
	// Symlinks tells whether a symlinked skill folder loads.
	Symlinks Symlinks `yaml:"symlinks" json:"symlinks"`
	// State is the ASF runner's session state root for this host; nil
	// puts it under the first user root's parent.
	State *Dir `yaml:"state,omitempty" json:"state,omitempty"`
	// Detect tells how to find the host on this machine.
	Detect Detect `yaml:"detect,omitempty" json:"detect"`
	// StrictYAML is true for a host that reads the frontmatter with a
	// strict YAML parser: a value with an unquoted ": ", which most hosts
	// read as text, makes it leave the skill out.
	StrictYAML bool `yaml:"strict_yaml,omitempty" json:"strictYaml,omitempty"`
	// Citations back the facts above (the sources: key).
	Citations []Citation `yaml:"sources" json:"sources"`
	// Builtin is false for hosts added by a user file.
	Builtin bool `yaml:"-" json:"builtin"`
}

// Root is one resolved discovery root.
type Root struct {
	// Host is the host the root belongs to.
	Host string `json:"host"`
	// Scope is user or project.
	Scope Scope `json:"scope"`
	// Dir is the absolute directory.
	Dir string `json:"dir"`
}

// Table is an immutable set of hosts, sorted by id.
type Table struct {
	hosts []Host
}

//go:generate go run ./internal/gentable

// builtin checks the built-in table (table.go, generated from hosts.yaml)
// once; the result is never modified.
var builtin = sync.OnceValue(func() *Table {
	t, err := newTable(nil, builtinHosts)
	if err != nil {
		panic("hosts: the built-in table is invalid: " + err.Error()) // caught by TestBuiltin
	}
	return t
})

// Builtin returns the embedded table.
func Builtin() *Table { return builtin() }

var idRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// Parse reads a hosts file: a mapping with one key, hosts, a list of Host.
// name is used in errors.
func Parse(data []byte, name string, isBuiltin bool) ([]Host, error) {
	var doc struct {
		Hosts []Host `yaml:"hosts"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidTable, name, err)
	}
	for i := range doc.Hosts {
		doc.Hosts[i].Builtin = isBuiltin
	}
	return doc.Hosts, nil
}

func newTable(base *Table, add []Host) (*Table, error) {
	t := &Table{}
	seen := map[string]bool{}
	if base != nil {
		t.hosts = append(t.hosts, base.hosts...)
		for _, h := range base.hosts {
			seen[h.ID] = true
		}
	}
	for _, h := range add {
		if seen[h.ID] {
			return nil, fmt.Errorf("%w: host %q is defined twice (a hosts file may add hosts, not redefine them)", ErrInvalidTable, h.ID)
		}
		seen[h.ID] = true
		t.hosts = append(t.hosts, h)
	}
	for _, h := range t.hosts {
		if err := h.check(seen); err != nil {
			return nil, err
		}
	}
	sort.Slice(t.hosts, func(i, j int) bool { return t.hosts[i].ID < t.hosts[j].ID })
	return t, nil
}

func (h Host) check(known map[string]bool) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: host %q: %s", ErrInvalidTable, h.ID, fmt.Sprintf(format, a...))
	}
	if !idRE.MatchString(h.ID) {
		return bad("the id must be lower-case letters, digits and '-', starting with a letter")
	}
	if h.Name == "" {
		return bad("name is missing")
	}
	if len(h.User) == 0 && h.NoUser == "" {
		return bad("no user root and no no_user reason")
	}
	for _, d := range append(append([]Dir{}, h.User...), h.Project...) {
		if d.Dir == "" {
			return bad("a root has no dir")
		}
	}
	for _, d := range h.Project {
		if strings.HasPrefix(d.Dir, "~") || filepath.IsAbs(d.Dir) {
			return bad("project root %s must be relative to the project", d.Dir)
		}
	}
	if len(h.Project) == 0 && h.NoProject == "" {
		return bad("no project root and no no_project reason")
	}
	switch h.Duplicates {
	case FirstWins, All, Unordered:
	default:
		return bad("duplicates is %q: use first-wins, all or unordered", h.Duplicates)
	}
	switch h.Symlinks {
	case SymlinksFollowed, SymlinksIgnored, SymlinksUnknown:
	default:
		return bad("symlinks is %q: use followed, ignored or unknown", h.Symlinks)
	}
	if len(h.Search) == 0 {
		return bad("search is empty")
	}
	for _, s := range h.Search {
		if s.Scope != ScopeUser && s.Scope != ScopeProject {
			return bad("search entry scope %q: use user or project", s.Scope)
		}
		if s.Host != "" && !known[s.Host] {
			return bad("search names unknown host %q", s.Host)
		}
		if s.Dir != nil && s.Dir.Dir == "" {
			return bad("a search entry has no dir")
		}
	}
	for _, d := range h.Detect.Paths {
		if d.Dir == "" {
			return bad("a detect path has no dir")
		}
	}
	for _, b := range h.Detect.Binaries {
		if b == "" || strings.ContainsRune(b, '/') {
			return bad("detect binary %q must be a bare command name", b)
		}
	}
	if len(h.Citations) == 0 {
		return bad("no sources: say where each fact comes from")
	}
	return nil
}

// WithFile returns the table plus the hosts in the file at path. A missing
// file returns t unchanged when optional is true.
func (t *Table) WithFile(path string, optional bool) (*Table, error) {
	data, err := os.ReadFile(path)
	if optional && errors.Is(err, os.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the hosts file: %w", err)
	}
	hs, err := Parse(data, path, false)
	if err != nil {
		return nil, err
	}
	nt, err := newTable(t, hs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return nt, nil
}

// EnvFile names the user hosts file; unset, it is
// $XDG_CONFIG_HOME/skillpm/hosts.yaml (else ~/.config/skillpm/hosts.yaml).
const EnvFile = "SKILLPM_HOSTS"

// UserFile returns the user hosts file and whether it must exist (it must
// when named by $SKILLPM_HOSTS).
func UserFile(env Env) (string, bool) {
	if p := env.Lookup(EnvFile); p != "" {
		return env.Abs(p), true
	}
	d, err := Dir{Env: "XDG_CONFIG_HOME", Dir: "~/.config", Join: filepath.Join("skillpm", "hosts.yaml")}.Resolve(env)
	if err != nil {
		return "", false
	}
	return d, false
}

// Load returns the built-in table plus the user's hosts file, if any.
func Load(env Env) (*Table, error) {
	p, required := UserFile(env)
	if p == "" {
		return Builtin(), nil
	}
	return Builtin().WithFile(p, !required)
}

// Hosts returns a copy of the rows, sorted by id.
func (t *Table) Hosts() []Host {
	out := make([]Host, len(t.hosts))
	copy(out, t.hosts)
	return out
}

// IDs returns the host ids, sorted.
func (t *Table) IDs() []string {
	out := make([]string, 0, len(t.hosts))
	for _, h := range t.hosts {
		out = append(out, h.ID)
	}
	return out
}

// Get returns the host with the given id.
func (t *Table) Get(id string) (Host, error) {
	for _, h := range t.hosts {
		if h.ID == id {
			return h, nil
		}
	}
	return Host{}, &UnknownHostError{ID: id, Known: t.IDs()}
}

// RootDir returns where skillpm installs for host id at scope: the host's
// first own root of that scope.
func (t *Table) RootDir(id string, s Scope, env Env) (string, error) {
	h, err := t.Get(id)
	if err != nil {
		return "", err
	}
	return h.RootDir(s, env)
}

// RootDir returns the host's first own root at scope s.
func (h Host) RootDir(s Scope, env Env) (string, error) {
	var dirs []Dir
	switch s {
	case ScopeUser:
		if len(h.User) == 0 {
			return "", &NoUserRootError{Host: h.ID, Reason: h.NoUser}
		}
		dirs = h.User
	case ScopeProject:
		if len(h.Project) == 0 {
			return "", &NoProjectRootError{Host: h.ID, Reason: h.NoProject}
		}
		dirs = h.Project
	default:
		return "", fmt.Errorf("%w %q: use user or project", ErrUnknownScope, s)
	}
	d, err := dirs[0].Resolve(env)
	if err != nil {
		return "", fmt.Errorf("the %s %s root: %w", h.ID, s, err)
	}
	return d, nil
}

// SearchRoots returns every root host id reads, highest precedence first,
// each directory once (with the host and scope of its first mention). A
// root that cannot be resolved (no home directory) is left out.
func (t *Table) SearchRoots(id string, env Env) ([]Root, error) {
	h, err := t.Get(id)
	if err != nil {
		return nil, err
	}
	var out []Root
	seen := map[string]bool{}
	add := func(host string, s Scope, d Dir) {
		p, err := d.Resolve(env)
		if err != nil || seen[p] {
			return
		}
		seen[p] = true
		out = append(out, Root{Host: host, Scope: s, Dir: p})
	}
	for _, e := range h.Search {
		if e.UnlessEnv != "" && env.Lookup(e.UnlessEnv) != "" {
			continue
		}
		if e.Dir != nil {
			add(h.ID, e.Scope, *e.Dir)
			continue
		}
		src := h
		if e.Host != "" {
			if src, err = t.Get(e.Host); err != nil {
				return nil, err
			}
		}
		dirs := src.User
		if e.Scope == ScopeProject {
			dirs = src.Project
		}
		for _, d := range dirs {
			add(src.ID, e.Scope, d)
		}
	}
	return out, nil
}

// StateRoot is the ASF runner's session state root for host id: the
// host's State, else state/asf beside its first user root (in that root's
// parent, so that no state folder lands among the skills).
func (t *Table) StateRoot(id string, env Env) (string, error) {
	h, err := t.Get(id)
	if err != nil {
		return "", err
	}
	switch {
	case h.State != nil:
		return h.State.Resolve(env)
	case len(h.User) > 0:
		d, err := h.User[0].Resolve(env)
		if err != nil {
			return "", err
		}
		return filepath.Join(filepath.Dir(d), "state", "asf"), nil
	default:
		return "", &NoUserRootError{Host: h.ID, Reason: h.NoUser}
	}
}

// Sharing returns the ids of the hosts whose own roots include dir (as
// resolved with env), sorted: the hosts one copy installed there serves
// as their own.
func (t *Table) Sharing(dir string, env Env) []string {
	var out []string
	for _, h := range t.hosts {
		for _, d := range append(append([]Dir{}, h.User...), h.Project...) {
			if p, err := d.Resolve(env); err == nil && p == dir {
				out = append(out, h.ID)
				break
			}
		}
	}
	return out
}

// Readers returns the ids of the hosts that read dir, own root or not,
// sorted.
func (t *Table) Readers(dir string, env Env) []string {
	var out []string
	for _, h := range t.hosts {
		roots, err := t.SearchRoots(h.ID, env)
		if err != nil {
			continue
		}
		for _, r := range roots {
			if r.Dir == dir {
				out = append(out, h.ID)
				break
			}
		}
	}
	return out
}
