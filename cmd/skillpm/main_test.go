package main

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"skillpm": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the CLI end to end: cmd/skillpm/testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, "testdata/script"))
}
