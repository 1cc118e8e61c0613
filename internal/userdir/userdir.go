// Package userdir says where a user's home and configuration live on
// Linux, macOS and Windows, reading the environment through a getenv
// function so that tests and the HTTP API can pass their own.
//
// The agent hosts skillpm installs for keep their roots under the home
// directory on every OS (Claude Code ~/.claude, Codex ~/.codex, GAIA
// ~/.gaia, OpenCode $XDG_CONFIG_HOME or ~/.config, also on macOS and
// Windows), so what differs between OSes is only how the home directory
// is found: $HOME on Unix, %USERPROFILE% on Windows, where HOME is
// usually unset. skillpm's own configuration follows XDG where it is set
// and the OS convention where it is not.
package userdir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Home returns the user's home directory as os.UserHomeDir finds it on
// goos ("windows": %USERPROFILE%, else %HOMEDRIVE%%HOMEPATH%; other
// systems: $HOME), or "" when the environment names none.
func Home(goos string, getenv func(string) string) string {
	if goos != "windows" {
		return getenv("HOME")
	}
	if h := getenv("USERPROFILE"); h != "" {
		return h
	}
	if d, p := getenv("HOMEDRIVE"), getenv("HOMEPATH"); d != "" && p != "" {
		return d + p
	}
	// A HOME set by hand (MSYS, Git Bash) is the last resort.
	return getenv("HOME")
}

// ConfigHome returns the directory that holds per-application
// configuration directories: $XDG_CONFIG_HOME when it is an absolute path
// (the XDG rule: a relative value is ignored), else %APPDATA% on Windows,
// else ~/.config (on macOS too, as command-line tools such as git, gh and
// oras do, rather than ~/Library/Application Support). It returns "" when
// none can be found.
func ConfigHome(goos string, getenv func(string) string) string {
	return baseDir(goos, getenv, "XDG_CONFIG_HOME", "APPDATA", ".config")
}

// StateHome returns the directory that holds per-application state (what
// a program remembers on this machine that is neither configuration nor
// cache): $XDG_STATE_HOME when it is an absolute path, else %LOCALAPPDATA%
// on Windows, else ~/.local/state. It returns "" when none can be found.
func StateHome(goos string, getenv func(string) string) string {
	return baseDir(goos, getenv, "XDG_STATE_HOME", "LOCALAPPDATA", ".local", "state")
}

// baseDir is the XDG base directory rule: the variable xdg when it holds
// an absolute path, else the variable windows on Windows, else under in
// the home directory, else "".
func baseDir(goos string, getenv func(string) string, xdg, windows string, under ...string) string {
	if d := getenv(xdg); d != "" && isAbs(goos, d) {
		return d
	}
	if goos == "windows" {
		if d := getenv(windows); d != "" {
			return d
		}
	}
	if h := Home(goos, getenv); h != "" {
		return filepath.Join(append([]string{h}, under...)...)
	}
	return ""
}

// isAbs is filepath.IsAbs for goos, so that the Windows rules can be
// tested on any system: a drive letter followed by a separator, or a UNC
// path, is absolute there.
func isAbs(goos, p string) bool {
	if goos != "windows" {
		return len(p) > 0 && p[0] == '/'
	}
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		c := p[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return len(p) >= 2 && (p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/')
}

// SkillpmCache is skillpm's cache directory: $SKILLPM_CACHE, else
// $XDG_CACHE_HOME/skillpm, else the platform's user cache directory plus
// /skillpm. It is the one rule for every cache skillpm keeps (registry
// content, git fetches, compiled parsers, audit findings), so that pruning
// or moving the cache moves all of them.
func SkillpmCache() (string, error) {
	if d := os.Getenv("SKILLPM_CACHE"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "skillpm"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: set SKILLPM_CACHE or XDG_CACHE_HOME: %w", err)
	}
	return filepath.Join(d, "skillpm"), nil
}
