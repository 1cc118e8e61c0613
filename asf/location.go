package asf

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Where a state file was chosen from, in order of precedence.
const (
	ScopeExplicit  = "explicit"  // --state
	ScopeSession   = "session"   // --session, a hook payload, or $ASF_SESSION
	ScopeEnv       = "env"       // $ASF_STATE
	ScopeWorktree  = "worktree"  // <git toplevel>/.workflow/state.json
	ScopeWorkspace = "workspace" // <state root>/workspace-<hash of work dir>.json
)

// StateOptions are the caller's choices of state location (the CLI flags).
type StateOptions struct {
	// Path is an explicit state file (--state).
	Path string
	// Root overrides the host's state root (--state-root).
	Root string
	// Session selects <root>/<session>.json (--session).
	Session string
	// Host selects the state root; "" is DefaultHost.
	Host string
}

// Location is a resolved state file.
type Location struct {
	// Path is the state file.
	Path string `json:"path"`
	// Scope is one of the Scope constants.
	Scope string `json:"scope"`
	// Session is the session id for ScopeSession.
	Session string `json:"session,omitempty"`
	// Workspace is the working directory the workflow runs in.
	Workspace string `json:"workspace"`
	// Args are the command-line flags that select this location again; they
	// are appended to every command the runner tells an agent to run.
	Args []string `json:"-"`
}

// sessionRE leaves the length to ValidSession: a bounded repetition
// ({0,127}) compiles to a program as long as its bound, which took a
// millisecond of every process's start.
var sessionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidSession reports whether id is usable as a state file name: 1 to 128
// letters, digits, '.', '_' or '-', starting with a letter or digit and
// without "..", so it cannot name a path outside the state root.
func ValidSession(id string) bool {
	return len(id) <= 128 && sessionRE.MatchString(id) && !strings.Contains(id, "..")
}

// ResolveState picks the state file: --state, then a session
// (<state root>/<session>.json), then $ASF_STATE, then $ASF_SESSION, then
// .workflow/state.json at the top of the git worktree holding env.Cwd,
// else <state root>/workspace-<hash>.json for the work dir. The reference
// runtime keys that last file by skill name, which commands after init do
// not know; a hash of the work dir alone is stable across commands.
func ResolveState(so StateOptions, env Env) (Location, error) {
	loc := Location{Workspace: env.Cwd}
	if so.Path != "" {
		loc.Path, loc.Scope = env.Abs(so.Path), ScopeExplicit
		loc.Args = []string{"--state", loc.Path}
		return loc, nil
	}
	session, fromEnv := so.Session, false
	if session == "" && env.Lookup(EnvState) == "" {
		session, fromEnv = env.Lookup(EnvSession), true
	}
	if _, err := lookupHost(env, so.Host); err != nil {
		return Location{}, err
	}
	if session != "" {
		root, rootArgs, err := stateRoot(so, env)
		if err != nil {
			return Location{}, err
		}
		if !ValidSession(session) {
			src := "--session"
			if fromEnv {
				src = "$" + EnvSession
			}
			return Location{}, fmt.Errorf("%w %q (from %s): use 1-128 letters, digits, '.', '_' or '-'", ErrInvalidSession, session, src)
		}
		loc.Path, loc.Scope, loc.Session = filepath.Join(root, session+".json"), ScopeSession, session
		loc.Args = append([]string{"--session", session}, rootArgs...)
		return loc, nil
	}
	if p := env.Lookup(EnvState); p != "" {
		loc.Path, loc.Scope = env.Abs(p), ScopeEnv
		return loc, nil
	}
	if top := worktreeTop(env.Cwd); top != "" {
		loc.Path, loc.Scope = filepath.Join(top, ".workflow", "state.json"), ScopeWorktree
		return loc, nil
	}
	root, rootArgs, err := stateRoot(so, env)
	if err != nil {
		return Location{}, err
	}
	sum := sha256.Sum256([]byte(canonicalDir(env.Cwd)))
	loc.Path, loc.Scope = filepath.Join(root, "workspace-"+hex.EncodeToString(sum[:8])+".json"), ScopeWorkspace
	loc.Args = rootArgs
	return loc, nil
}

// stateRoot returns the session state root and the flags that select it.
func stateRoot(so StateOptions, env Env) (string, []string, error) {
	if so.Root != "" {
		r := env.Abs(so.Root)
		return r, []string{"--state-root", r}, nil
	}
	r, err := StateRoot(so.Host, env)
	if err != nil {
		return "", nil, err
	}
	var args []string
	if so.Host != "" && so.Host != DefaultHost {
		args = []string{"--host", so.Host}
	}
	return r, args, nil
}

func canonicalDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}

// worktreeTop is `git rev-parse --show-toplevel` without git: the nearest
// directory at or above dir holding .git (a directory, or the file a linked
// worktree has). It returns "" outside a worktree.
func worktreeTop(dir string) string {
	if dir == "" {
		return ""
	}
	dir = canonicalDir(dir)
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
