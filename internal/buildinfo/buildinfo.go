// Package buildinfo is what a skillpm binary knows of its own build: the
// stamps a release build sets with -ldflags -X, else what the go command
// recorded. The command line prints it (skillpm version, user agents);
// the engine and the HTTP API name the program by it in the audit
// reports they write, so that every front end says the same without
// passing it along.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Build stamps, set with -ldflags "-X
// github.com/skillpm/skillpm/internal/buildinfo.version=v1.2.3 -X
// ....commit=<sha> -X ....commitTime=<RFC 3339> -X ....modified=false"
// (scripts/release.sh sets them from git); the linker writes them, nothing
// assigns them at run time. Left empty, they come from the build
// information the go command embeds: the module version for `go install
// …@v1.2.3`, and the vcs.* settings of a -buildvcs build. The release
// script stamps them itself because the go command records no VCS
// information in a git worktree (it looks for a .git directory, and a
// worktree has a .git file) and because -buildvcs stamps nothing from a
// source archive.
var (
	version    = ""
	commit     = ""
	commitTime = ""
	modified   = ""
)

// Info is a build's version, commit, toolchain and platform, as `skillpm
// version` reports them.
type Info struct {
	// Version is the release version, the module version, else "devel".
	Version string `json:"version"`
	// Commit is the VCS revision the binary was built from; "" when the
	// build carried no VCS information (-buildvcs=false, no .git).
	Commit     string `json:"commit"`
	CommitTime string `json:"commitTime,omitempty"`
	// Modified reports a build from a tree with uncommitted changes; it is
	// meaningful only when Commit is set.
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// Read returns the version, commit and dirty flag stamped into the binary,
// else the ones the go command embedded.
func Read() Info {
	info := Info{Version: version, Commit: commit, CommitTime: commitTime, Modified: modified == "true", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if commit != "" {
				break
			}
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.time":
				info.CommitTime = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if info.Version == "" {
		info.Version = "devel"
	}
	return info
}

// Tool names the program in the audit reports it writes: "skillpm" and
// its version ("skillpm v1.2.3").
func Tool() string { return "skillpm " + Read().Version }
