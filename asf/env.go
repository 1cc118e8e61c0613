package asf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables the runner reads.
const (
	// EnvSkillsRoot lists skill roots (a filepath.SplitList list) searched
	// before the hosts' discovery roots, as the reference runtime's
	// ASF_SKILLS_ROOT.
	EnvSkillsRoot = "ASF_SKILLS_ROOT"
	// EnvState overrides the state file path, as in the reference runtime.
	EnvState = "ASF_STATE"
	// EnvSession is the session id when no --session and no hook payload
	// gives one.
	EnvSession = "ASF_SESSION"
)

// DefaultHost is the host whose state root holds session state when none is
// named: Claude Code, whose hooks the runner adapts first.
const DefaultHost = "claude"

// Env is the part of the process environment the runner depends on. Tests
// build one by hand; OSEnv reads the real one.
type Env struct {
	// Home is the user's home directory.
	Home string
	// WorkDir is the working directory: the project scope of discovery
	// roots and where a git worktree is looked for.
	WorkDir string
	// Getenv reads an environment variable; nil reads nothing.
	Getenv func(string) string
}

// OSEnv returns the environment of the running process.
func OSEnv() (Env, error) {
	// Without a home directory only the user-scope roots are missing;
	// explicit roots and state paths still work.
	home, _ := os.UserHomeDir()
	wd, err := os.Getwd()
	if err != nil {
		return Env{}, fmt.Errorf("finding the working directory: %w", err)
	}
	return Env{Home: home, WorkDir: wd, Getenv: os.Getenv}, nil
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Abs makes p absolute: "~/" is the home directory and a relative path is
// relative to WorkDir.
func (e Env) Abs(p string) string {
	switch {
	case p == "~":
		p = e.Home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(e.Home, p[2:])
	case !filepath.IsAbs(p):
		p = filepath.Join(e.WorkDir, p)
	}
	return filepath.Clean(p)
}

// host is one row of the hosts table.
type host struct {
	name string
	// project is the project-scope skills root, relative to the work dir.
	project string
	// user is the user-scope skills root.
	user func(Env) string
	// state is the root of session state files.
	state func(Env) string
}

// envOr returns $name joined with elem when the variable is set, else
// def under the home directory.
func envOr(e Env, name, def string, elem ...string) string {
	if v := e.getenv(name); v != "" {
		return filepath.Join(append([]string{e.Abs(v)}, elem...)...)
	}
	return filepath.Join(append([]string{e.Home, def}, elem...)...)
}

// hosts is the discovery-roots table (design/resolve-install.md) plus each
// host's ASF state root (spec §10). It is this package's only copy, to be
// replaced by the install package's table (install.RootDir, whose host
// order it follows) once the CLI passes the search path in from there.
func hosts() []host {
	return []host{
		{
			name:    "agents",
			project: filepath.Join(".agents", "skills"),
			user:    func(e Env) string { return filepath.Join(e.Home, ".agents", "skills") },
			state:   func(e Env) string { return filepath.Join(e.Home, ".agents", "state", "asf") },
		},
		{
			name:    "claude",
			project: filepath.Join(".claude", "skills"),
			user:    func(e Env) string { return filepath.Join(e.Home, ".claude", "skills") },
			state:   func(e Env) string { return filepath.Join(e.Home, ".claude", "state", "asf") },
		},
		{
			name:    "codex",
			project: filepath.Join(".codex", "skills"),
			user:    func(e Env) string { return envOr(e, "CODEX_HOME", ".codex", "skills") },
			state:   func(e Env) string { return envOr(e, "CODEX_HOME", ".codex", "state", "asf") },
		},
		{
			name:    "gaia",
			project: filepath.Join(".gaia", "skills"),
			user:    func(e Env) string { return envOr(e, "GAIA_CONFIG_DIR", ".gaia", "skills") },
			state:   func(e Env) string { return envOr(e, "GAIA_CONFIG_DIR", ".gaia", "state", "asf") },
		},
		{
			name:    "opencode",
			project: filepath.Join(".opencode", "skills"),
			user:    func(e Env) string { return filepath.Join(e.Home, ".config", "opencode", "skills") },
			state:   func(e Env) string { return filepath.Join(e.Home, ".local", "share", "opencode", "state", "asf") },
		},
	}
}

// HostNames lists the hosts the runner knows, in precedence order.
func HostNames() []string {
	var out []string
	for _, h := range hosts() {
		out = append(out, h.name)
	}
	return out
}

func lookupHost(name string) (host, error) {
	if name == "" {
		name = DefaultHost
	}
	for _, h := range hosts() {
		if h.name == name {
			return h, nil
		}
	}
	return host{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownHost, name, strings.Join(HostNames(), ", "))
}

// DefaultSearchPath returns the hosts' skill discovery roots: every
// project-scope root (relative to env.WorkDir) before every user-scope
// root, so a project's skills shadow the user's whichever host they were
// installed for; within a scope, hosts in the install package's order
// (agents, claude, codex, gaia, opencode). It is the part of the search
// path the install package's table is to provide.
func DefaultSearchPath(env Env) []string {
	var project, user []string
	for _, h := range hosts() {
		project = append(project, env.Abs(h.project))
		if u := h.user(env); filepath.IsAbs(u) {
			user = append(user, u)
		}
	}
	return dedupe(append(project, user...))
}

// SearchPath is where skill calls are resolved, first match wins: the
// explicit roots (--skills-root) or, when there are none, $ASF_SKILLS_ROOT;
// then DefaultSearchPath. Relative roots are relative to env.WorkDir.
func SearchPath(explicit []string, env Env) []string {
	var roots []string
	if len(explicit) == 0 {
		explicit = filepath.SplitList(env.getenv(EnvSkillsRoot))
	}
	for _, r := range explicit {
		if strings.TrimSpace(r) != "" {
			roots = append(roots, env.Abs(r))
		}
	}
	return dedupe(append(roots, DefaultSearchPath(env)...))
}

// StateRoot is the directory holding a host's session state files.
func StateRoot(hostName string, env Env) (string, error) {
	h, err := lookupHost(hostName)
	if err != nil {
		return "", err
	}
	r := h.state(env)
	if !filepath.IsAbs(r) {
		return "", fmt.Errorf("no home directory for the %s state root: pass --state-root DIR or --state FILE", h.name)
	}
	return r, nil
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := in[:0:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
