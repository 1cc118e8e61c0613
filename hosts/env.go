package hosts

import (
	"os"
	"path/filepath"
	"strings"
)

// Env is the part of the process environment that places discovery roots:
// the home directory, the working directory (the project), environment
// variables and the hosts table. Install, list, the ASF runner and the HTTP
// API all resolve roots through one Env, so a variable such as
// GAIA_CONFIG_DIR=~/gaia means the same directory to each of them.
type Env struct {
	// Home is the user's home directory; "" leaves user roots unresolved.
	Home string
	// Cwd is the working directory: project roots and relative paths are
	// resolved against it.
	Cwd string
	// Getenv reads an environment variable; nil reads nothing.
	Getenv func(string) string
	// Hosts is the hosts table; nil is Builtin().
	Hosts *Table
}

// OSEnv returns the environment of the running process with the built-in
// hosts table. A missing home directory only leaves user roots unresolved.
func OSEnv() Env {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return Env{Home: home, Cwd: cwd, Getenv: os.Getenv}
}

// Lookup returns the value of an environment variable, "" when unset.
func (e Env) Lookup(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return strings.TrimSpace(e.Getenv(k))
}

// Abs makes p absolute as a shell user expects: "~" and "~/..." are under
// Home, a relative path is under Cwd. Without the Home or Cwd it needs the
// result stays relative; Dir.Resolve reports that case as an error.
func (e Env) Abs(p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		p = filepath.Join(e.Home, strings.TrimPrefix(p[1:], "/"))
	case !filepath.IsAbs(p):
		p = filepath.Join(e.Cwd, p)
	}
	return filepath.Clean(p)
}

// Table returns the hosts table to use: e.Hosts, else the built-in one.
func (e Env) Table() *Table {
	if e.Hosts != nil {
		return e.Hosts
	}
	return Builtin()
}

// ProcessEnv is the one environment every operation resolves roots with
// by default: the process's home, working directory and variables, and
// the hosts table with the user's hosts file ($SKILLPM_HOSTS, else
// $XDG_CONFIG_HOME/skillpm/hosts.yaml).
func ProcessEnv() (Env, error) {
	env := OSEnv()
	t, err := Load(env)
	if err != nil {
		return Env{}, err
	}
	env.Hosts = t
	return env, nil
}
