package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cliEnv gives in-process CLI runs an isolated home, XDG directories and
// passphrase environment.
func cliEnv(t *testing.T, work string) {
	t.Helper()
	for k, sub := range map[string]string{"HOME": "home", "XDG_CONFIG_HOME": "config", "XDG_DATA_HOME": "data", "XDG_CACHE_HOME": "cache", "XDG_STATE_HOME": "state", "DOCKER_CONFIG": "docker"} {
		t.Setenv(k, filepath.Join(work, sub))
	}
	t.Setenv("SOURCE_DATE_EPOCH", "")
	t.Setenv("SIGSTORE_ID_TOKEN", "")
	t.Setenv(envPassword, "")
	t.Setenv(envCosignPassword, "")
	os.Unsetenv(envPassword)
	os.Unsetenv(envCosignPassword)
}

// skillpm runs the CLI in-process and fails the test unless it exits with
// want.
func skillpm(t *testing.T, want int, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != want {
		t.Fatalf("skillpm %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out.String(), errb.String())
	}
	return out.String()
}
