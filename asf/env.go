package asf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/hosts"
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

// HooksHost is the host whose hooks the runner answers and installs when
// none is named: Claude Code, whose hook format Codex shares (HookHosts).
const HooksHost = "claude"

// DefaultHost is the host whose state root holds session state when none is
// named. It is HooksHost, not install's default host (agents), on purpose:
// the two answer different questions. Install's host says where a skill is
// written; the runner's says whose session state and hook format to use,
// and the hook the agent host runs (without flags) and the commands the
// agent then runs must agree on it for the whole workflow, so it cannot
// follow the configuration or the receipts as install's does. Where the
// skills are found does not depend on it: the runner searches every host's
// roots (DefaultSearchPath), so a skill installed with install's defaults
// is found with the runner's.
const DefaultHost = HooksHost

// Env is the process environment the runner depends on: home, working
// directory, variables and hosts table. It is
// the hosts package's Env, shared with install, list and the HTTP API, so
// CODEX_HOME=~/x or GAIA_CONFIG_DIR=rel names the same directory to all.
type Env = hosts.Env

// OSEnv returns the environment of the running process.
func OSEnv() (Env, error) {
	// Without a home directory only the user-scope roots are missing;
	// explicit roots and state paths still work.
	home, _ := os.UserHomeDir()
	wd, err := os.Getwd()
	if err != nil {
		return Env{}, fmt.Errorf("finding the working directory: %w", err)
	}
	return Env{Home: home, Cwd: wd, Getenv: os.Getenv}, nil
}

// HostNames lists the hosts the runner knows: the hosts table's ids.
func HostNames() []string { return hosts.Builtin().IDs() }

func lookupHost(env Env, name string) (hosts.Host, error) {
	if name == "" {
		name = DefaultHost
	}
	h, err := env.Table().Get(name)
	if err != nil {
		return hosts.Host{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownHost, name, strings.Join(env.Table().IDs(), ", "))
	}
	return h, nil
}

// DefaultSearchPath returns the hosts' skill discovery roots from the
// hosts table: every host's own project roots (under env.Cwd) before every
// user root (bare project roots such as OpenClaw's ./skills left out), so a project's skills shadow the user's whichever host they
// were installed for; within a scope, hosts in id order. Roots that need a
// missing home directory are left out.
func DefaultSearchPath(env Env) []string {
	var project, user []string
	for _, h := range env.Table().Hosts() {
		for _, d := range h.Project {
			// A bare project root (OpenClaw's "skills", its workspace
			// folder) would make any repository's skills/ directory
			// callable; the runner keeps to the hosts' dot-directories.
			if !strings.HasPrefix(d.Dir, ".") {
				continue
			}
			if p, err := d.Resolve(env); err == nil {
				project = append(project, p)
			}
		}
		for _, d := range h.User {
			if p, err := d.Resolve(env); err == nil {
				user = append(user, p)
			}
		}
	}
	return dedupe(append(project, user...))
}

// SearchPath is where skill calls are resolved, first match wins: the
// explicit roots (--skills-root) or, when there are none, $ASF_SKILLS_ROOT;
// then DefaultSearchPath. Relative roots are relative to env.Cwd.
func SearchPath(explicit []string, env Env) []string {
	var roots []string
	if len(explicit) == 0 {
		explicit = filepath.SplitList(env.Lookup(EnvSkillsRoot))
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
	h, err := lookupHost(env, hostName)
	if err != nil {
		return "", err
	}
	r, err := env.Table().StateRoot(h.ID, env)
	if err != nil {
		return "", &markedError{err: fmt.Errorf("the %s state root: %w", h.ID, err), mark: ErrNoStateRoot}
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
