package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/source"
)

// faultTimeouts are small, so that the timeouts the fault tests trip
// cost little; the assertions are on what happened, never on time.
var faultTimeouts = Timeouts{Dial: time.Second, TLSHandshake: time.Second, Stall: 100 * time.Millisecond, Response: 150 * time.Millisecond}

// faultTargets are the requests a pull makes: the tag list, the manifest
// by tag, the layer.
var faultTargets = []string{"/tags/list", "/manifests/", "/blobs/"}

// refused is what a fault on a target is refused as rather than retried:
// bytes that are not what their digest says are never fetched again from
// the same registry. Everything else recovers on the next try.
func refused(f registrytest.Fault, target string) bool {
	switch f {
	case registrytest.Corrupt, registrytest.Pad, registrytest.WrongLength:
		return target != "/tags/list" || f == registrytest.WrongLength
	}
	return false
}

// TestFaultKinds injects every fault of the proxy into the first try, and
// then into every try, of each request a pull makes. A first-try fault
// is retried and the pull succeeds, unless the bytes were wrong (refused
// with the digest named, without a second download); a fault on every
// try fails cleanly: a one-line error naming the registry and the
// request, within the retries. A blob that drips is a slow link, bounded
// by the stall timeout only, so drip is tried on the small answers.
func TestFaultKinds(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	c := remoteClient(t, nil)
	publish(t, c, remoteSourceFor(t, c, reg.Host), writeSkill(t, t.TempDir(), skillSpec{name: "solo", version: "1.0.0"}), PublishOptions{})
	for _, always := range []bool{false, true} {
		for _, f := range registrytest.AllFaults {
			for _, target := range faultTargets {
				if f == registrytest.Drip && target == "/blobs/" {
					continue
				}
				name := fmt.Sprintf("%s/%s/always=%v", f, strings.Trim(target, "/"), always)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					proxy := registrytest.NewProxyWith(t, reg, registrytest.ProxyOptions{Drip: 10 * time.Millisecond, RetryAfter: "0",
						Rule: func(r *http.Request, n int) registrytest.Fault {
							if (always || n == 0) && strings.Contains(r.URL.Path, target) {
								return f
							}
							return registrytest.Pass
						}})
					c := remoteClient(t, func(o *Options) { o.Timeouts = faultTimeouts })
					repo, _ := c.Repository(remoteSourceFor(t, c, proxy.Host), "solo")
					sel, _ := source.ParseSelector("^1")
					m, err := repo.Get(context.Background(), sel, false)
					if err == nil {
						_, err = repo.Pull(context.Background(), m, filepath.Join(t.TempDir(), "out"), PullOptions{})
					}
					tries := proxy.Count(http.MethodGet, target)
					switch {
					case refused(f, target) && target != "/tags/list":
						var dm *DigestMismatchError
						if !errors.As(err, &dm) || !strings.Contains(err.Error(), "sha256:") {
							t.Fatalf("err = %v, want a *DigestMismatchError naming the digest", err)
						}
						if tries != 1 {
							t.Errorf("%d downloads of content that failed its digest, want 1", tries)
						}
					case target == "/tags/list" && (f == registrytest.Corrupt || f == registrytest.Pad):
						// A tag list has no digest: a flipped byte or
						// trailing bytes may still parse. Either way,
						// nothing is trusted from it but names to ask for.
						if err != nil && !strings.Contains(err.Error(), proxy.Host) {
							t.Errorf("message %q does not name the registry", err)
						}
					case !always && !refused(f, target):
						if err != nil {
							t.Fatalf("a fault on the first try only: %v", err)
						}
					default:
						if err == nil {
							t.Fatal("a fault on every try: no error")
						}
						if !errors.Is(err, ErrRegistry) && !errors.Is(err, ErrDigestMismatch) {
							t.Errorf("err = %v, not a registry error", err)
						}
						msg := err.Error()
						if !strings.Contains(msg, proxy.Host) || strings.Contains(msg, "\n") {
							t.Errorf("message %q is not one line naming the registry %s", msg, proxy.Host)
						}
						// A JSON body cut short by a lying Content-Length is
						// oras-go's decoding error, the one left in its words.
						if strings.Contains(msg, `"http://`) && f != registrytest.WrongLength {
							t.Errorf("message %q carries the Go error chain", msg)
						}
						if most := 1 + c.opts.Retry.MaxRetries; tries > most*(maxRedirects+1) {
							t.Errorf("%d tries of %s, want at most %d", tries, target, most)
						}
					}
				})
			}
		}
	}
}

// TestBlackHoleBound: a registry that accepts connections and never
// answers costs two tries of Stall each, with the registry and the
// request named, and is then given up: the next request fails without a
// connection, and concurrent ones stop with the first. The wait is
// logged once, while it lasts.
func TestBlackHoleBound(t *testing.T) {
	bh := registrytest.BlackHole(t)
	var log bytes.Buffer
	var mu sync.Mutex
	c := remoteClient(t, func(o *Options) {
		o.Timeouts = faultTimeouts
		o.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &mu}, nil))
	})
	src := remoteSourceFor(t, c, bh.Host)
	repo, _ := c.Repository(src, "solo")
	_, err := repo.Tags(context.Background())
	var ne *NetError
	if !errors.As(err, &ne) || ne.Kind != KindTimeout || !errors.Is(err, ErrUnresponsive) || !errors.Is(err, ErrRegistry) {
		t.Fatalf("err = %v, want a *NetError of KindTimeout", err)
	}
	want := "registry " + bh.Host + " did not answer GET /v2/skills/solo/tags/list within 100ms: is the registry running, and reachable from here?"
	if err.Error() != want {
		t.Errorf("message\n %s\nwant\n %s", err, want)
	}
	if n := bh.Conns(); n != 1+timeoutRetries {
		t.Errorf("%d connections, want %d: one per try", n, 1+timeoutRetries)
	}
	// What was waited for is said once, at Warn, before the timeout.
	mu.Lock()
	notice := "level=WARN msg=\"waiting for registry " + bh.Host + "\" request=\"GET /v2/skills/solo/tags/list\" gives_up_after=100ms"
	if n := strings.Count(log.String(), "msg=\"waiting for registry"); n != 1 || !strings.Contains(log.String(), notice) {
		t.Errorf("log has %d waiting notices, want one %s:\n%s", n, notice, log.String())
	}
	mu.Unlock()
	other, _ := c.Repository(src, "other")
	_, err = other.Tags(context.Background())
	if !errors.As(err, &ne) || !ne.Earlier || !strings.Contains(err.Error(), "not asked again") {
		t.Errorf("second request: %v, want the first failure, not asked again", err)
	}
	if n := bh.Conns(); n != 1+timeoutRetries {
		t.Errorf("%d connections after the registry was given up, want %d", n, 1+timeoutRetries)
	}

	// Many at once on a fresh client: none tries more than twice.
	c2 := remoteClient(t, func(o *Options) { o.Timeouts = faultTimeouts })
	src2 := remoteSourceFor(t, c2, bh.Host)
	before := bh.Conns()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			r, _ := c2.Repository(src2, fmt.Sprintf("s%d", i))
			if _, err := r.Tags(context.Background()); !errors.Is(err, ErrUnresponsive) {
				t.Errorf("concurrent request: %v, want ErrUnresponsive", err)
			}
		})
	}
	wg.Wait()
	if n := bh.Conns() - before; n > 8*(1+timeoutRetries) {
		t.Errorf("%d connections for 8 requests, want at most %d", n, 8*(1+timeoutRetries))
	}
}

// TestClosedPort: nothing listening is said in one line, not retried.
func TestClosedPort(t *testing.T) {
	host := registrytest.ClosedPort(t)
	c := remoteClient(t, nil)
	repo, _ := c.Repository(remoteSourceFor(t, c, host), "solo")
	_, err := repo.Tags(context.Background())
	want := "registry " + host + " refused the connection (GET /v2/skills/solo/tags/list): is the registry running, on that port?"
	if !errors.Is(err, ErrUnreachable) || err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// TestRetryAfter: a 429 or 503's Retry-After is the wait before the
// retry, up to MaxRetryAfter; a longer one is not waited for at all.
// Each retry goes to the Logger.
func TestRetryAfter(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	for _, tc := range []struct {
		retryAfter string
		fault      registrytest.Fault
		tries      int
	}{
		{"1", registrytest.Status503RetryAfter, 2},
		{"1", registrytest.Status429RetryAfter, 2},
		{"60", registrytest.Status503RetryAfter, 1},
	} {
		t.Run(tc.fault.String()+"="+tc.retryAfter, func(t *testing.T) {
			proxy := registrytest.NewProxyWith(t, reg, registrytest.ProxyOptions{RetryAfter: tc.retryAfter,
				Rule: func(r *http.Request, n int) registrytest.Fault {
					if n == 0 {
						return tc.fault
					}
					return registrytest.Pass
				}})
			var log bytes.Buffer
			var mu sync.Mutex
			c := remoteClient(t, func(o *Options) {
				o.Retry.MaxRetryAfter = 2 * time.Second
				o.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &mu}, nil))
			})
			repo, _ := c.Repository(remoteSourceFor(t, c, proxy.Host), "absent")
			_, err := repo.Tags(context.Background())
			if n := proxy.Count(http.MethodGet, "/tags/list"); n != tc.tries {
				t.Fatalf("%d tries, want %d (err %v)", n, tc.tries, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.tries == 2 && !strings.Contains(log.String(), "msg=retrying") || tc.tries == 2 && !strings.Contains(log.String(), "after=1s") {
				t.Errorf("log %q lacks the retry after Retry-After's 1s", log.String())
			}
			if tc.tries == 1 && (err == nil || !strings.Contains(err.Error(), "503")) {
				t.Errorf("a Retry-After beyond the cap: %v, want the 503", err)
			}
		})
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestNoRetryOnNo: 404 and 401 mean no; they are asked once.
func TestNoRetryOnNo(t *testing.T) {
	for _, auth := range []bool{false, true} {
		opts := registrytest.Options{InMemory: true}
		if auth {
			opts.Username, opts.Password = "alice", "s3cret-pass"
		}
		reg := registrytest.Start(t, opts)
		proxy := registrytest.NewProxy(t, reg, nil)
		c := remoteClient(t, nil)
		repo, _ := c.Repository(remoteSourceFor(t, c, proxy.Host), "absent")
		_, err := repo.Tags(context.Background())
		if err == nil {
			t.Fatal("no error")
		}
		if n := proxy.Count(http.MethodGet, "/tags/list"); n != 1 {
			t.Errorf("auth=%v: %d tries of an answer that means no, want 1 (%v)", auth, n, err)
		}
	}
}

// TestPaginationBounds: a tag list whose Link rel="next" points back is
// a loop, and one that goes on without end stops at MaxPages; both are
// ErrHostile, after a bounded number of requests.
func TestPaginationBounds(t *testing.T) {
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		page := r.URL.Query().Get("page")
		next := "0"
		if strings.Contains(r.URL.Path, "/endless/") {
			var n int
			fmt.Sscan(page, &n)
			next = fmt.Sprint(n + 1)
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s?page=%s>; rel="next"`, r.URL.Path, next))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"x","tags":["1.0.%s"]}`, page)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, name := range []string{"loop", "endless"} {
		requests = 0
		c := remoteClient(t, func(o *Options) { o.Limits.MaxPages = 5 })
		repo, _ := c.Repository(remoteSourceFor(t, c, host), name)
		_, err := repo.Tags(context.Background())
		if !errors.Is(err, ErrHostile) || !strings.Contains(err.Error(), host) {
			t.Errorf("%s: %v, want ErrHostile naming the registry", name, err)
		}
		mu.Lock()
		if requests > 6 {
			t.Errorf("%s: %d requests, want at most 6", name, requests)
		}
		mu.Unlock()
	}
}

// TestResponseSizeBound: an answer that is not a blob is read within
// MaxManifestBytes, not without end.
func TestResponseSizeBound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"x","tags":["`+strings.Repeat("a", 64<<10)+`"]}`)
	}))
	t.Cleanup(srv.Close)
	c := remoteClient(t, func(o *Options) { o.Limits.MaxManifestBytes = 4 << 10 })
	repo, _ := c.Repository(remoteSourceFor(t, c, strings.TrimPrefix(srv.URL, "http://")), "huge")
	if _, err := repo.Tags(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a 64 KiB tag list under a 4 KiB bound: %v, want ErrTooLarge", err)
	}
}

// TestResumeWithRange: a layer cut midway is resumed with a Range
// request from the byte it broke at, and the result is verified.
func TestResumeWithRange(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	c := remoteClient(t, nil)
	dir := writeSkill(t, t.TempDir(), skillSpec{name: "big", version: "1.0.0", files: map[string]string{"data.bin": randomText(64 << 10)}})
	res := publish(t, c, remoteSourceFor(t, c, reg.Host), dir, PublishOptions{})
	proxy := registrytest.NewProxyWith(t, reg, registrytest.ProxyOptions{ResetAfter: 1000, AdvertiseRanges: true,
		Rule: func(r *http.Request, n int) registrytest.Fault {
			if n == 0 && strings.Contains(r.URL.Path, "/blobs/") {
				return registrytest.ResetAfter
			}
			return registrytest.Pass
		}})
	c2 := remoteClient(t, nil)
	repo, _ := c2.Repository(remoteSourceFor(t, c2, proxy.Host), "big")
	m, err := repo.Manifest(context.Background(), res.Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Pull(context.Background(), m, filepath.Join(t.TempDir(), "out"), PullOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "GET /v2/skills/big/blobs/" + m.Layer().Digest.String() + " bytes=1000-"
	if rs := proxy.Ranges(); !slices.ContainsFunc(rs, func(s string) bool { return strings.HasPrefix(s, want) }) {
		t.Errorf("ranges %q, want one %q", rs, want)
	}
}

// randomText is n bytes that gzip does not shrink much, so that a layer
// is large enough to be cut midway.
func randomText(n int) string {
	var b strings.Builder
	x := uint32(2463534242)
	for b.Len() < n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789"[x%36])
	}
	return b.String()
}

// TestBudget: requests made under a Budget stop at its bounds, with a
// *BudgetError (ErrHostile) that says what was asked so far.
func TestBudget(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	other := registrytest.NewProxy(t, reg, nil)
	c := remoteClient(t, nil)
	ctx := WithBudget(context.Background(), &Budget{MaxRequests: 5, MaxRegistries: 1})
	src := remoteSourceFor(t, c, reg.Host)
	var err error
	for i := range 10 {
		repo, _ := c.Repository(src, fmt.Sprintf("absent-%d", i))
		if _, err = repo.Tags(ctx); errors.Is(err, ErrHostile) {
			break
		}
	}
	var be *BudgetError
	if !errors.As(err, &be) || be.Requests != 5 || be.Registry != "" || !strings.Contains(err.Error(), "bound of 5 registry requests") {
		t.Fatalf("err = %v, want a *BudgetError after 5 requests", err)
	}
	ctx = WithBudget(context.Background(), &Budget{MaxRegistries: 1})
	repo, _ := c.Repository(src, "absent")
	_, _ = repo.Tags(ctx)
	repo, _ = c.Repository(remoteSourceFor(t, c, other.Host), "absent")
	_, err = repo.Tags(ctx)
	if !errors.As(err, &be) || be.Registry != other.Host || !strings.Contains(err.Error(), "registry "+other.Host+" would be registry number 2") {
		t.Fatalf("err = %v, want a *BudgetError naming the second registry", err)
	}
	if n := other.Count("", ""); n != 0 {
		t.Errorf("the registry over the bound was asked %d times", n)
	}
}

// TestRedirectedBlobIsABlob: a blob a registry redirects to storage under
// a path without /blobs/ is still a blob: streamed, not held to the
// bound on metadata answers.
func TestRedirectedBlobIsABlob(t *testing.T) {
	body := strings.Repeat("x", 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/blobs/") {
			http.Redirect(w, r, "/storage/object-1", http.StatusTemporaryRedirect)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	c := remoteClient(t, func(o *Options) { o.Limits.MaxManifestBytes = 4 << 10 })
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v2/skills/x/blobs/sha256:"+strings.Repeat("0", 64), nil)
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got bytes.Buffer
	if _, err := got.ReadFrom(resp.Body); err != nil || got.Len() != len(body) {
		t.Fatalf("read %d bytes (%v), want %d", got.Len(), err, len(body))
	}
	// The same size as an answer that is not a blob is refused.
	req, _ = http.NewRequest(http.MethodGet, srv.URL+"/v2/skills/x/tags/list", nil)
	if _, err := c.http.Do(req); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a 64 KiB tag list under a 4 KiB bound: %v, want ErrTooLarge", err)
	}
}
