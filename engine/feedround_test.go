package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// TestFeedInFirstRound: an install that resolves, and an outdated check,
// ask for the advisory feed in the same round trip as their first
// questions (the sparse index, the tag lists), not once the versions are
// known: on a link with latency, the feed then costs no round of its own.
// The client's transport counts, for each request it sends, the answers
// it had received by then: the feed's first request must be sent before
// any answer came back. The proxy's link is slow (150ms each way), so the
// first round lasts long enough for every question of it to be sent.
func TestFeedInFirstRound(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	open := func(host, cache string, tr http.RoundTripper) *engine.Engine {
		c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(work, cache), EmbeddedDir: filepath.Join(work, "embedded"),
			Credentials: credentials.NewMemoryStore(), Transport: tr})
		if err != nil {
			t.Fatal(err)
		}
		e, err := engine.Open(ctx, engine.Options{Client: c, Source: host + "/round", PolicyFile: filepath.Join(work, "policy.yaml"),
			// Installs go to work/root.
			Env: hosts.Env{Home: work, Cwd: work}, Target: roots.Target{Roots: []string{filepath.Join(work, "root")}}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if err := os.WriteFile(filepath.Join(work, "policy.yaml"), []byte("version: 1\npolicies: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(work, "src", "solo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: solo\ndescription: A skill for the feed round test. Use when testing.\nversion: 1.0.0\n---\n# Solo\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := open(reg.Host, "cache", nil).Publish(ctx, engine.PublishRequest{Dir: dir, NoVCS: true}); err != nil {
		t.Fatal(err)
	}
	// Each command is a new process: its own client, an empty cache.
	proxy := registrytest.NewProxyWith(t, reg, registrytest.ProxyOptions{Delay: 150 * time.Millisecond})
	rec := &roundRecorder{base: http.DefaultTransport}
	if _, err := open(proxy.Host, "cache-install", rec).Install(ctx, engine.InstallRequest{Refs: []string{"solo@^1"}, Consent: engine.Consent{AllowExperimental: true}}); err != nil {
		t.Fatal(err)
	}
	rec.check(t, "install")
	rec = &roundRecorder{base: http.DefaultTransport}
	res, err := open(proxy.Host, "cache-outdated", rec).Outdated(ctx, engine.OutdatedRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skills) != 1 {
		t.Fatalf("outdated checked %d skills, want 1", len(res.Skills))
	}
	rec.check(t, "outdated")
}

// roundRecorder is a transport that notes, for each request, how many
// answers had come back when it was sent.
type roundRecorder struct {
	base     http.RoundTripper
	mu       sync.Mutex
	answered int
	sent     []string
}

func (r *roundRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.sent = append(r.sent, fmt.Sprintf("%d %s %s", r.answered, req.Method, req.URL.Path))
	r.mu.Unlock()
	resp, err := r.base.RoundTrip(req)
	r.mu.Lock()
	r.answered++
	r.mu.Unlock()
	return resp, err
}

// check fails unless the feed's first request and the first tag list
// were both sent before any answer.
func (r *roundRecorder) check(t *testing.T, cmd string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, what := range []string{"/" + registry.AdvisoriesRepository + "/", "/solo/tags/list"} {
		i := slices.IndexFunc(r.sent, func(s string) bool { return strings.Contains(s, what) })
		if i < 0 || !strings.HasPrefix(r.sent[i], "0 ") {
			t.Errorf("%s: %s is not asked in the first round (requests as \"answers so far, request\"):\n%s", cmd, what, strings.Join(r.sent, "\n"))
		}
	}
}
