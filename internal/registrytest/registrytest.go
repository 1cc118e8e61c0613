// Package registrytest runs the parts registry tests need: a registry on
// a free loopback port, the oras CLI, and a reverse proxy that injects
// failures in front of the registry.
//
// Built with -tags integration (make test) the registry is the
// distribution binary and a missing part fails the test, saying how to
// install it (scripts/test-tools.sh installs them all); without the tag
// the registry is in-process and tests of outside tools skip, so
// `go test ./...` needs nothing but Go.
package registrytest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/build"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Install commands for the outside parts, as CI runs them.
const (
	RegistryInstall = "go install github.com/distribution/distribution/v3/cmd/registry@v3.1.2"
	OrasInstall     = "go install oras.land/oras/cmd/oras@v1.3.6"
)

// Binary returns the path of an outside tool: from PATH, else $GOBIN, else
// $GOPATH/bin. When it is missing the test fails, with install in the
// message: nothing skips. The tests that run outside tools are in files
// built only with -tags integration.
func Binary(t testing.TB, name, install string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range filepath.SplitList(build.Default.GOPATH) {
		dirs = append(dirs, filepath.Join(d, "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	// .ci/run installs it; a test that needs it never passes without it.
	t.Fatalf("%s not found in PATH, $GOBIN or $GOPATH/bin; install it with: %s", name, install)
	return ""
}

// Oras returns the path of the oras CLI (see Binary).
func Oras(t testing.TB) string {
	t.Helper()
	return Binary(t, "oras", OrasInstall)
}

// Options configures Start.
type Options struct {
	// Username and Password, when both set, protect the registry with
	// htpasswd basic authentication.
	Username, Password string
	// InMemory keeps the registry's storage in memory instead of on disk.
	// Benchmarks use it so that a client comparison is not bound by the
	// registry fsyncing every blob.
	InMemory bool
}

// Registry is a running distribution registry.
type Registry struct {
	// Host is "127.0.0.1:PORT".
	Host string
	// URL is "http://127.0.0.1:PORT".
	URL string
	// Dir holds the config, htpasswd file and storage.
	Dir string
	// Username and Password are the credentials, when auth is on.
	Username, Password string

	cmd  *exec.Cmd
	out  *SyncBuffer
	done chan struct{}
}

// Start runs the registry binary (distribution v3) with filesystem storage
// in a temporary directory on a free loopback port, waits until /v2/
// answers, and stops it when the test ends. Its log is shown when the
// test fails. Without -tags integration (Integration) it serves an
// in-process registry instead (startInProcess).
func Start(t testing.TB, opts Options) *Registry {
	t.Helper()
	if !Integration {
		return startInProcess(t, opts)
	}
	bin := Binary(t, "registry", RegistryInstall)
	dir := t.TempDir()
	auth := ""
	if opts.Username != "" && opts.Password != "" {
		hash, err := bcrypt.GenerateFromPassword([]byte(opts.Password), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		htpasswd := filepath.Join(dir, "htpasswd")
		if err := os.WriteFile(htpasswd, []byte(opts.Username+":"+string(hash)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		auth = fmt.Sprintf("auth:\n  htpasswd:\n    realm: skillpm-test\n    path: %s\n", htpasswd)
	}
	storage := fmt.Sprintf("  filesystem:\n    rootdirectory: %s\n", filepath.Join(dir, "data"))
	if opts.InMemory {
		storage = "  inmemory: {}\n"
	}
	var lastErr error
	// A free port can be taken between probing and the registry binding
	// it; a few tries make that harmless.
	for range 5 {
		host, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		cfg := filepath.Join(dir, "config.yml")
		conf := fmt.Sprintf(`version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
%s  delete:
    enabled: true
  cache:
    blobdescriptor: inmemory
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: %s
  secret: registrytest-secret
%s`, storage, host, auth)
		if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		r := &Registry{Host: host, URL: "http://" + host, Dir: dir, Username: opts.Username, Password: opts.Password,
			out: &SyncBuffer{}, done: make(chan struct{})}
		r.cmd = exec.Command(bin, "serve", cfg)
		r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
		if err := r.cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		go func() { r.cmd.Wait(); close(r.done) }()
		// Generous: on a loaded machine the registry binary can take many
		// seconds to start; a registry that never answers still fails.
		if lastErr = r.waitReady(2 * time.Minute); lastErr == nil {
			t.Cleanup(func() {
				r.stop()
				if t.Failed() {
					t.Logf("registry log:\n%s", r.out.String())
				}
			})
			return r
		}
		r.stop()
	}
	t.Fatalf("registry did not start: %v", lastErr)
	return nil
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitReady polls /v2/ until it answers 200 or 401 (auth on), the process
// exits, or the deadline passes.
func (r *Registry) waitReady(max time.Duration) error {
	deadline := time.Now().Add(max)
	client := &http.Client{Timeout: time.Second}
	for wait := 10 * time.Millisecond; ; wait = min(wait*2, 200*time.Millisecond) {
		resp, err := client.Get(r.URL + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return nil
			}
		}
		select {
		case <-r.done:
			return fmt.Errorf("registry exited: %s", strings.TrimSpace(r.out.String()))
		case <-time.After(wait):
		}
		if time.Now().After(deadline) {
			return errors.New("registry did not answer /v2/ within " + max.String())
		}
	}
}

func (r *Registry) stop() {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
	}
}

// RunOras runs the oras CLI with args in dir, with an isolated Docker
// config (dir/.docker-config), and returns its combined output; a failure fails the test.
func RunOras(ctx context.Context, t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := OrasCmd(ctx, t, dir, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("oras %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// OrasCmd returns an oras command with an isolated Docker config, for
// callers that time or inspect it themselves.
func OrasCmd(ctx context.Context, t testing.TB, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, Oras(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+filepath.Join(dir, ".docker-config"))
	return cmd
}

// SyncBuffer is a bytes.Buffer that one goroutine writes while another
// reads it (a child process's output, a progress bar's).
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what has been written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
