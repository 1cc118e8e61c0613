// Command skillpm is a package manager and signing registry client for agent
// skills: it validates, packs, publishes, signs, resolves, installs and runs
// skills stored as OCI artifacts.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
)

// gcPercent is the collector's target when GOGC is not set. A command's
// heap stays small (an install of five skills peaks near 20 MB, the audit
// of 870 skills near 150 MB at this setting), and Go's default of 100
// collects every few MB while a command starts: nine collections in a cold
// install, about 5% of its CPU.
const gcPercent = 400

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
