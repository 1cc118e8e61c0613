//go:build integration

package main

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/skillpm/skillpm/internal/registrytest"
)

// TestOrasScripts runs testdata/oras/*.txtar, interop with the oras CLI
// both ways, with the oras that registrytest.Oras finds first on PATH (a
// missing oras fails the test).
func TestOrasScripts(t *testing.T) {
	bin := filepath.Dir(registrytest.Oras(t))
	testscript.Run(t, registryScripts(t, "testdata/oras", bin))
}
