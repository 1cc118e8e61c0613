package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptParams sets up the environment every CLI script sees: an isolated
// HOME and XDG directories inside the script's work dir, and $TESTDATA
// pointing at the repository's shared fixtures.
func scriptParams(t *testing.T, dir string) testscript.Params {
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	// The audit's parsers are compiled once per process; every skillpm
	// run of the scripts is a process, so they share the compiled code.
	wasmCache := t.TempDir()
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			env.Setenv("HOME", filepath.Join(work, ".home"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(work, ".config"))
			env.Setenv("XDG_DATA_HOME", filepath.Join(work, ".data"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(work, ".cache"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(work, ".state"))
			env.Setenv("TESTDATA", testdata)
			env.Setenv("NO_COLOR", "1")
			env.Setenv("SKILLPM_TREESITTER_CACHE", wasmCache)
			// Every exec of skillpm is this test binary. Built with -race it
			// sleeps a second at exit (the race runtime's atexit_sleep_ms, for
			// goroutines still running): some 600 execs, ten minutes of the
			// suite's wall time spent asleep. Races are still reported as
			// they happen, and the exit status says so.
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return nil
		},
	}
}
