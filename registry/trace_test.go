package registry

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skillpm/skillpm/internal/registrytest"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// TestTraceRequests publishes to a password-protected registry with a
// Trace: every request is reported with its method, URL, status and
// time, the refused first try (401) included, and the password is in
// none of them.
func TestTraceRequests(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Username: "alice", Password: "s3cret-pass"})
	store, err := credentials.NewStore(filepath.Join(t.TempDir(), "config.json"), credentials.StoreOptions{AllowPlaintextPut: true})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var traces []RequestTrace
	c := remoteClient(t, func(o *Options) {
		o.Credentials = store
		o.Trace = func(rt RequestTrace) {
			mu.Lock()
			defer mu.Unlock()
			traces = append(traces, rt)
		}
	})
	ctx := context.Background()
	if _, err := c.Login(ctx, reg.Host, "alice", "s3cret-pass"); err != nil {
		t.Fatal(err)
	}
	publish(t, c, remoteSourceFor(t, c, reg.Host), writeSkill(t, t.TempDir(), skillSpec{name: "traced", version: "1.0.0"}), PublishOptions{})
	mu.Lock()
	defer mu.Unlock()
	statuses := map[int]int{}
	var puts int
	for _, rt := range traces {
		statuses[rt.Status]++
		if rt.Method == http.MethodPut && strings.Contains(rt.URL, "/v2/skills/traced/manifests/") {
			puts++
		}
		if !strings.HasPrefix(rt.URL, "http://"+reg.Host+"/v2/") {
			t.Errorf("trace URL %q: want the registry's /v2/ URL", rt.URL)
		}
		if strings.Contains(rt.URL, "s3cret") || strings.Contains(rt.URL, "alice") {
			t.Errorf("trace URL %q carries the credentials", rt.URL)
		}
		if rt.Duration <= 0 || (rt.Status == 0) != (rt.Err != nil) {
			t.Errorf("trace %+v: want a duration and a status or an error", rt)
		}
	}
	if puts == 0 || statuses[http.StatusUnauthorized] == 0 || statuses[http.StatusCreated] == 0 {
		t.Fatalf("traces %+v: want the manifest PUT, a 401 challenge and a 201", traces)
	}
}

// TestRedactURL keeps the distribution protocol's query and drops user
// information and every other query value (a presigned redirect's
// signature).
func TestRedactURL(t *testing.T) {
	u, _ := url.Parse("https://bob:pw@blob.example/x?X-Amz-Signature=abc&digest=sha256:1&token=t0k")
	got := RedactURL(u)
	if strings.Contains(got, "bob") || strings.Contains(got, "pw@") || strings.Contains(got, "abc") || strings.Contains(got, "t0k") {
		t.Fatalf("RedactURL = %q, credentials left", got)
	}
	if !strings.Contains(got, "digest=sha256%3A1") || !strings.Contains(got, "X-Amz-Signature=REDACTED") {
		t.Fatalf("RedactURL = %q, want digest kept and the signature REDACTED", got)
	}
}
