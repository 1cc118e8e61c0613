// Command skillpm is a package manager and signing registry client for agent
// skills: it validates, packs, publishes, signs, resolves, installs and runs
// skills stored as OCI artifacts.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
