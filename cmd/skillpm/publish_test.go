package main

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/skillpm/skillpm/internal/registrytest"
)

// TestRegistryScripts runs testdata/registry/*.txtar against real
// distribution registries: $REGISTRY (open) and $AUTH_REGISTRY (htpasswd,
// user $AUTH_USER, password in the file $WORK/.auth-password). The oras
// CLI is on PATH when installed ([exec:oras]).
func TestRegistryScripts(t *testing.T) {
	open := registrytest.Start(t, registrytest.Options{})
	auth := registrytest.Start(t, registrytest.Options{Username: "alice", Password: "s3cret-pass"})
	p := scriptParams(t, "testdata/registry")
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		env.Setenv("REGISTRY", open.Host)
		env.Setenv("AUTH_REGISTRY", auth.Host)
		env.Setenv("AUTH_USER", auth.Username)
		var bins []string
		for _, d := range filepath.SplitList(build.Default.GOPATH) {
			bins = append(bins, filepath.Join(d, "bin"))
		}
		env.Setenv("PATH", env.Getenv("PATH")+string(os.PathListSeparator)+strings.Join(bins, string(os.PathListSeparator)))
		return os.WriteFile(filepath.Join(env.WorkDir, ".auth-password"), []byte(auth.Password+"\n"), 0o600)
	}
	testscript.Run(t, p)
}
