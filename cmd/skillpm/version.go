package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Build stamps, set with -ldflags "-X main.version=v1.2.3 -X
// main.commit=<sha> -X main.commitTime=<RFC 3339> -X main.modified=false"
// (scripts/release.sh sets them from git). Left empty, they come from the
// build information the go command embeds: the module version for
// `go install …@v1.2.3`, and the vcs.* settings of a -buildvcs build. The release script stamps them
// itself because the go command records no VCS information in a git
// worktree (it looks for a .git directory, and a worktree has a .git file)
// and because -buildvcs stamps nothing from a source archive.
var (
	version    = ""
	commit     = ""
	commitTime = ""
	modified   = ""
)

// buildInfo is what `skillpm version` reports.
type buildInfo struct {
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

// readBuildInfo reads the version, commit and dirty flag the go command
// embedded in the binary.
func readBuildInfo() buildInfo {
	info := buildInfo{Version: version, Commit: commit, CommitTime: commitTime, Modified: modified == "true", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
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

// skillpmVersion is the version alone, for user agents and audit reports.
func skillpmVersion() string { return readBuildInfo().Version }

// String is the one line `skillpm --version` prints (without the leading
// "skillpm ").
func (b buildInfo) String() string {
	commit := "unknown commit"
	if b.Commit != "" {
		commit = "commit " + b.Commit
		if b.Modified {
			commit += ", modified"
		}
	}
	return fmt.Sprintf("%s (%s, %s, %s)", b.Version, commit, b.Go, b.Platform)
}

// write prints the build information as text or JSON.
func (b buildInfo) write(w io.Writer, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(b)
	}
	commit, modified := b.Commit, fmt.Sprint(b.Modified)
	if commit == "" {
		commit, modified = "unknown (built without VCS information)", "unknown"
	}
	_, err := fmt.Fprintf(w, "skillpm %s\ncommit:   %s\nmodified: %s\ngo:       %s\nplatform: %s\n",
		b.Version, commit, modified, b.Go, b.Platform)
	return err
}

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print skillpm's version, commit and whether the build tree was modified",
		Long: `Print skillpm's version, the VCS commit it was built from, whether the tree
had uncommitted changes, and the Go toolchain and platform. Release
binaries carry all of them; a build made with -buildvcs=false reports the
commit as unknown.`,
		Example: "  skillpm version\n  skillpm version --output json\n  skillpm --version",
		Args:    exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			if g.json() {
				return g.writeJSON(readBuildInfo())
			}
			return readBuildInfo().write(g.stdout, false)
		},
	}
}
