package registry

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/source"
)

// TestRegistryRequestsBound: however many goroutines ask one registry at
// once, no more than Options.RegistryRequests requests await their answers.
func TestRegistryRequestsBound(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	tr := registrytest.NewTrace()
	// The delay keeps requests in flight long enough to overlap when
	// nothing bounds them.
	proxy := registrytest.NewProxyWith(t, reg, registrytest.ProxyOptions{Delay: 5 * time.Millisecond, Trace: tr})
	c := remoteClient(t, func(o *Options) { o.RegistryRequests = 3 })
	src := remoteSourceFor(t, c, proxy.Host)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			repo, err := c.Repository(src, fmt.Sprintf("absent-%02d", i))
			if err != nil {
				t.Error(err)
				return
			}
			// Each is a 404: a request all the same.
			_, _ = repo.Tags(ctx)
		})
	}
	wg.Wait()
	if n := tr.Requests(); n < 12 {
		t.Fatalf("%d requests, want at least 12", n)
	}
	if n := tr.MaxInFlight(); n > 3 {
		t.Errorf("%d requests in flight at once; RegistryRequests is 3", n)
	}
	if _, err := New(Options{RegistryRequests: -1}); err == nil {
		t.Error("New accepted a negative RegistryRequests")
	}
}

// TestCachedManifestAsksNothing: a manifest asked for by digest, or a
// version pinned to a cached manifest, costs no request in a new process
// sharing the content cache; a pin to content the cache lacks, or to
// another skill's manifest, pins nothing.
func TestCachedManifestAsksNothing(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	proxy := registrytest.NewProxy(t, reg, nil)
	c := remoteClient(t, nil)
	src := remoteSourceFor(t, c, reg.Host)
	res := publish(t, c, src, writeSkill(t, t.TempDir(), skillSpec{name: "pinned", version: "1.2.0", requires: map[string]string{"dep": "^1"}}), PublishOptions{})
	publish(t, c, src, writeSkill(t, t.TempDir(), skillSpec{name: "other", version: "1.2.0"}), PublishOptions{})
	ctx := context.Background()
	open := func(c *Client, name string) *Repository {
		t.Helper()
		r, err := c.Repository(remoteSourceFor(t, c, proxy.Host), name)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	v := semver.MustParse("1.2.0")
	// The first process reads both manifests by tag: into the cache.
	c1 := remoteClient(t, nil)
	for _, n := range []string{"pinned", "other"} {
		if _, err := open(c1, n).Metadata(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	d := res.Descriptor.Digest
	other, err := open(c1, "other").Metadata(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	shared := func(o *Options) { o.CacheDir = c1.opts.CacheDir }

	before := len(proxy.Log())
	c2 := remoteClient(t, shared)
	m, err := open(c2, "pinned").Get(ctx, source.Selector{Kind: source.SelectDigest, Raw: d.String(), Digest: d}, false)
	if err != nil || m.Descriptor.Digest != d || m.Metadata.Requires["dep"] != "^1" {
		t.Fatalf("Get by digest = %+v, %v", m, err)
	}
	c3 := remoteClient(t, shared)
	r3 := open(c3, "pinned")
	r3.Pin(ctx, "1.2.0", d)
	if m, err := r3.Metadata(ctx, v); err != nil || m.Descriptor.Digest != d {
		t.Fatalf("Metadata after Pin = %+v, %v", m, err)
	}
	if log := proxy.Log()[before:]; len(log) != 0 {
		t.Errorf("cached manifests cost requests: %v", log)
	}

	// With an empty cache, a manifest by digest is one GET, no HEAD.
	before = len(proxy.Log())
	c5 := remoteClient(t, nil)
	if m, err := open(c5, "pinned").Get(ctx, source.Selector{Kind: source.SelectDigest, Raw: d.String(), Digest: d}, false); err != nil || m.Descriptor.Digest != d {
		t.Fatalf("Get by digest, empty cache = %+v, %v", m, err)
	}
	if log := proxy.Log()[before:]; len(log) != 1 || !strings.HasPrefix(log[0], "GET ") {
		t.Errorf("a manifest by digest cost %v; want one GET", log)
	}

	// Pins that must not take: another skill's manifest, and a digest the
	// cache does not hold. Each version is then read by its tag.
	c4 := remoteClient(t, shared)
	r4 := open(c4, "pinned")
	r4.Pin(ctx, "1.2.0", other.Descriptor.Digest)
	r4.Pin(ctx, "1.3.0", digest.FromString("not cached"))
	if m, err := r4.Metadata(ctx, v); err != nil || m.Descriptor.Digest != d {
		t.Fatalf("Metadata after a wrong pin = %+v, %v", m, err)
	}
	if n := proxy.Count(http.MethodGet, "/pinned/manifests/1.2.0"); n != 2 {
		t.Errorf("the tag was read %d times, want 2 (first process, wrong pin)", n)
	}
}
