package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

func skillpmVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print skillpm's version",
		Example: "  skillpm version",
		Args:    exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			if g.json() {
				return json.NewEncoder(g.stdout).Encode(map[string]string{"version": skillpmVersion()})
			}
			_, err := fmt.Fprintf(g.stdout, "skillpm %s\n", skillpmVersion())
			return err
		},
	}
}
