package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/skillpm/skillpm/internal/registrytest"
)

// TestRegistryScripts runs testdata/registry/*.txtar against two
// registries: $REGISTRY (open) and $AUTH_REGISTRY (basic authentication,
// user $AUTH_USER, password in the file $WORK/.auth-password). They are
// distribution binaries in the integration build, in-process otherwise.
// $CLOSED_REGISTRY is a port nothing listens on, $BLACKHOLE_REGISTRY one
// that accepts connections and never answers, $CORRUPT_REGISTRY
// $REGISTRY behind a proxy that alters one byte of every blob it serves.
func TestRegistryScripts(t *testing.T) {
	testscript.Run(t, registryScripts(t, "testdata/registry", ""))
}

// registryScripts is the testscript setup of TestRegistryScripts for the
// scripts in dir, with bin (when not "") first on PATH.
func registryScripts(t *testing.T, dir, bin string) testscript.Params {
	open := registrytest.Start(t, registrytest.Options{})
	auth := registrytest.Start(t, registrytest.Options{Username: "alice", Password: "s3cret-pass"})
	closed, blackHole := registrytest.ClosedPort(t), registrytest.BlackHole(t)
	corrupt := registrytest.NewProxy(t, open, func(r *http.Request, _ int) registrytest.Fault {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/") {
			return registrytest.Corrupt
		}
		return registrytest.Pass
	})
	p := scriptParams(t, dir)
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		env.Setenv("REGISTRY", open.Host)
		env.Setenv("AUTH_REGISTRY", auth.Host)
		env.Setenv("AUTH_USER", auth.Username)
		env.Setenv("CLOSED_REGISTRY", closed)
		env.Setenv("BLACKHOLE_REGISTRY", blackHole.Host)
		env.Setenv("CORRUPT_REGISTRY", corrupt.Host)
		if bin != "" {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
		}
		return os.WriteFile(filepath.Join(env.WorkDir, ".auth-password"), []byte(auth.Password+"\n"), 0o600)
	}
	return p
}
