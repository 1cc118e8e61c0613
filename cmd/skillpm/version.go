package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/skillpm/skillpm/internal/buildinfo"
	"github.com/spf13/cobra"
)

// buildInfo is what `skillpm version` reports (buildinfo.Info, with the
// renderings of the command line).
type buildInfo buildinfo.Info

// readBuildInfo reads the version, commit and dirty flag stamped into the
// binary (buildinfo.Read).
func readBuildInfo() buildInfo { return buildInfo(buildinfo.Read()) }

// skillpmVersion is the version alone, for user agents.
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
