package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/source"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

func remoteClient(t *testing.T, mod func(*Options)) *Client {
	return testClient(t, func(o *Options) {
		o.PlainHTTP = true
		if mod != nil {
			mod(o)
		}
	})
}

func remoteSourceFor(t *testing.T, c *Client, host string) Source {
	t.Helper()
	src, err := c.Remote(host + "/skills")
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestRemoteRegistry runs the source cycle against a real distribution
// registry.
func TestRemoteRegistry(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	c := remoteClient(t, nil)
	exerciseSource(t, c, remoteSourceFor(t, c, reg.Host))
}

// TestRemoteSurvivesFaults injects a failure into the first try of every
// distinct request (500, 429, resets before the answer and in the middle
// of a blob, a hang) and expects publish, list, resolve and pull to
// succeed through retries.
func TestRemoteSurvivesFaults(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	proxy := registrytest.NewProxy(t, reg, func(r *http.Request, n int) registrytest.Fault {
		if n > 0 {
			return registrytest.Pass
		}
		p := r.URL.Path
		switch {
		case r.Method == http.MethodGet && strings.Contains(p, "/blobs/"):
			return registrytest.ResetMidBody
		case r.Method == http.MethodPut && strings.Contains(p, "/blobs/uploads/"):
			return registrytest.Reset
		case r.Method == http.MethodPost:
			return registrytest.Status429
		case strings.HasSuffix(p, "/tags/list"):
			return registrytest.Hang
		case strings.Contains(p, "/manifests/"):
			return registrytest.Status500
		}
		return registrytest.Pass
	})
	c := remoteClient(t, func(o *Options) { o.Timeouts.Stall = 300 * time.Millisecond })
	src := remoteSourceFor(t, c, proxy.Host)
	ctx := context.Background()
	for _, v := range []string{"1.0.0", "1.4.0", "2.0.0"} {
		publish(t, c, src, writeSkill(t, t.TempDir(), skillSpec{name: "flaky", version: v}), PublishOptions{})
	}
	// A fresh client: nothing cached in memory or on disk.
	c2 := remoteClient(t, func(o *Options) { o.Timeouts.Stall = 300 * time.Millisecond })
	repo, _ := c2.Repository(remoteSourceFor(t, c2, proxy.Host), "flaky")
	sel, _ := source.ParseSelector("^1")
	res, err := repo.Resolve(ctx, sel, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version.String() != "1.4.0" {
		t.Errorf("^1 resolved to %s", res.Version)
	}
	m, err := repo.Manifest(ctx, res.Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Pull(ctx, m, filepath.Join(t.TempDir(), "out"), PullOptions{}); err != nil {
		t.Fatal(err)
	}
	log := strings.Join(proxy.Log(), "\n")
	for _, f := range []string{"500", "429", "reset", "reset-mid-body", "hang"} {
		if !strings.Contains(log, " "+f+"\n") && !strings.HasSuffix(log, " "+f) {
			t.Errorf("fault %s never injected; log:\n%s", f, log)
		}
	}
}

// TestRemoteGivesUp checks that a registry failing every request is an
// ErrRegistry after a bounded number of attempts.
func TestRemoteGivesUp(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	proxy := registrytest.NewProxy(t, reg, func(*http.Request, int) registrytest.Fault { return registrytest.Status500 })
	c := remoteClient(t, nil)
	_, err := c.Publish(context.Background(), remoteSourceFor(t, c, proxy.Host), build(t, writeSkill(t, t.TempDir(), skillSpec{name: "doomed", version: "1.0.0"})), PublishOptions{})
	var re *RequestError
	if !errors.Is(err, ErrRegistry) || !errors.As(err, &re) || re.Registry != proxy.Host || re.Repository != "skills/doomed" {
		t.Fatalf("publish to a failing registry: %v, want a *RequestError naming it", err)
	}
	if n := proxy.Count("", "/"); n != c.opts.Retry.MaxRetries+1 {
		t.Errorf("%d requests, want %d (1 + MaxRetries)", n, c.opts.Retry.MaxRetries+1)
	}
}

// TestRemoteTamperedBlob serves a layer with one byte flipped: the pull
// fails with a *DigestMismatchError naming registry, repository and
// digest, after exactly one download.
func TestRemoteTamperedBlob(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	c := remoteClient(t, nil)
	dir := writeSkill(t, t.TempDir(), skillSpec{name: "victim", version: "1.0.0", files: map[string]string{"data.txt": strings.Repeat("payload ", 1000)}})
	res := publish(t, c, remoteSourceFor(t, c, reg.Host), dir, PublishOptions{})
	layer := build(t, dir).Manifest.Layers[0]

	proxy := registrytest.NewProxy(t, reg, func(r *http.Request, _ int) registrytest.Fault {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/blobs/"+layer.Digest.String()) {
			return registrytest.Corrupt
		}
		return registrytest.Pass
	})
	c2 := remoteClient(t, nil)
	repo, _ := c2.Repository(remoteSourceFor(t, c2, proxy.Host), "victim")
	m, err := repo.Manifest(context.Background(), res.Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "out")
	_, err = repo.Pull(context.Background(), m, dest, PullOptions{})
	var dm *DigestMismatchError
	if !errors.As(err, &dm) || !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("pull of a tampered blob: %v, want *DigestMismatchError", err)
	}
	if dm.Registry != proxy.Host || dm.Repository != "skills/victim" || dm.Digest != layer.Digest.String() {
		t.Errorf("mismatch names %s %s %s", dm.Registry, dm.Repository, dm.Digest)
	}
	for _, s := range []string{proxy.Host, "skills/victim", layer.Digest.String()} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q lacks %s", err, s)
		}
	}
	if n := proxy.Count(http.MethodGet, "/blobs/"+layer.Digest.String()); n != 1 {
		t.Errorf("tampered blob fetched %d times, want 1 (no retry loop)", n)
	}
}

// TestRemoteAuth publishes to a password-protected registry (htpasswd):
// refused without credentials, accepted after Login, refused again after
// Logout.
func TestRemoteAuth(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Username: "alice", Password: "s3cret-pass"})
	cfg := filepath.Join(t.TempDir(), "docker", "config.json")
	newClient := func() *Client {
		store, err := credentials.NewStore(cfg, credentials.StoreOptions{AllowPlaintextPut: true})
		if err != nil {
			t.Fatal(err)
		}
		return remoteClient(t, func(o *Options) { o.Credentials = store })
	}
	ctx := context.Background()
	dir := writeSkill(t, t.TempDir(), skillSpec{name: "private", version: "1.0.0"})

	c := newClient()
	_, err := c.Publish(ctx, remoteSourceFor(t, c, reg.Host), build(t, dir), PublishOptions{})
	if !errors.Is(err, ErrUnauthorized) || !errors.Is(err, ErrRegistry) {
		t.Fatalf("anonymous publish: %v, want ErrUnauthorized", err)
	}
	if _, err := c.Login(ctx, reg.Host, "alice", "wrong"); err == nil {
		t.Fatal("Login accepted a wrong password")
	}
	if _, err := c.Login(ctx, reg.Host, "alice", "s3cret-pass"); err != nil {
		t.Fatal(err)
	}
	c = newClient()
	publish(t, c, remoteSourceFor(t, c, reg.Host), dir, PublishOptions{})
	repo, _ := c.Repository(remoteSourceFor(t, c, reg.Host), "private")
	if vs, err := repo.Versions(ctx); err != nil || len(vs) != 1 {
		t.Fatalf("Versions after login: %v, %v", vs, err)
	}
	if err := c.Logout(ctx, reg.Host); err != nil {
		t.Fatal(err)
	}
	c = newClient()
	repo, _ = c.Repository(remoteSourceFor(t, c, reg.Host), "private")
	if _, err := repo.Versions(ctx); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("Versions after logout: %v, want ErrUnauthorized", err)
	}
}

// TestProviderCaches checks that resolution reads manifests only,
// and that a repeated resolve asks the registry nothing it has seen.
func TestProviderCaches(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	proxy := registrytest.NewProxy(t, reg, func(*http.Request, int) registrytest.Fault { return registrytest.Pass })
	c := remoteClient(t, nil)
	src := remoteSourceFor(t, c, reg.Host)
	for _, v := range []string{"1.0.0", "1.1.0"} {
		publish(t, c, src, writeSkill(t, t.TempDir(), skillSpec{name: "dep-a", version: v, requires: map[string]string{"dep-b": "^" + v}}), PublishOptions{})
	}
	ctx := context.Background()
	resolveAll := func(c *Client) {
		t.Helper()
		rs := Provider{Client: c, Default: remoteSourceFor(t, c, proxy.Host)}
		vs, err := rs.Versions(ctx, "dep-a")
		if err != nil || len(vs) != 2 {
			t.Fatalf("Versions = %v, %v", vs, err)
		}
		for _, v := range vs {
			deps, err := rs.Dependencies(ctx, "dep-a", v)
			if err != nil || deps["dep-b"] != "^"+v.String() {
				t.Fatalf("Dependencies(%s) = %v, %v", v, deps, err)
			}
		}
	}
	c1 := remoteClient(t, nil)
	resolveAll(c1)
	first := len(proxy.Log())
	if n := proxy.Count(http.MethodGet, "/blobs/"); n != 0 {
		t.Errorf("resolution downloaded %d blobs; it must read manifests only", n)
	}
	resolveAll(c1)
	if again := len(proxy.Log()); again != first {
		t.Errorf("a repeated resolve made %d more requests: %v", again-first, proxy.Log()[first:])
	}
	// One request for the tags, one per version (its manifest by tag),
	// nothing else; a new process with the same disk cache does the same.
	if first != 3 {
		t.Errorf("first resolve made %d requests, want 3: %v", first, proxy.Log())
	}
	c2 := remoteClient(t, func(o *Options) { o.CacheDir = c1.opts.CacheDir })
	resolveAll(c2)
	if n := len(proxy.Log()) - first; n != 3 {
		t.Errorf("a second process made %d requests, want 3: %v", n, proxy.Log()[first:])
	}
}

func TestPlainHTTPOnlyForLoopback(t *testing.T) {
	c := remoteClient(t, nil)
	if _, err := c.Remote("ghcr.io/acme/skills"); !errors.Is(err, ErrPlainHTTP) {
		t.Errorf("--plain-http for ghcr.io: %v, want ErrPlainHTTP", err)
	}
	for _, host := range []string{"localhost:5000", "127.0.0.1:5000", "[::1]:5000"} {
		if _, err := c.Remote(host + "/x"); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	c2 := testClient(t, func(o *Options) { o.PlainHTTPRegistries = []string{"registry.lan:5000"} })
	src, err := c2.Remote("registry.lan:5000/skills")
	if err != nil || !src.(*remoteSource).plain {
		t.Errorf("listed host: %v", err)
	}
	src, _ = c2.Remote("localhost:5000/skills")
	if src.(*remoteSource).plain {
		t.Error("plain HTTP without PlainHTTP or a listing")
	}
}

// TestLoginCredentialHelper stores credentials through a Docker credential
// helper named in the config's credHelpers, as docker login would.
func TestLoginCredentialHelper(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Username: "bob", Password: "helper-pass"})
	bin := t.TempDir()
	store := filepath.Join(t.TempDir(), "secret.json")
	helper := `#!/bin/sh
case "$1" in
store) cat > "` + store + `" ;;
get) if [ -f "` + store + `" ]; then cat "` + store + `"; else echo "credentials not found in native keychain"; exit 1; fi ;;
erase) rm -f "` + store + `" ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "docker-credential-fake"), []byte(helper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cfgDir := t.TempDir()
	cfg := filepath.Join(cfgDir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"credHelpers":{"`+reg.Host+`":"fake"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", cfgDir)
	newClient := func() *Client { return remoteClient(t, func(o *Options) { o.Credentials = nil }) }
	ctx := context.Background()
	res, err := newClient().Login(ctx, reg.Host, "bob", "helper-pass")
	if err != nil {
		t.Fatal(err)
	}
	if res.Helper != "fake" || res.ConfigPath != cfg {
		t.Errorf("LoginResult = %+v", res)
	}
	if data, err := os.ReadFile(cfg); err != nil || strings.Contains(string(data), "helper-pass") || strings.Contains(string(data), "auths") {
		t.Errorf("config file holds credentials: %s", data)
	}
	c := newClient()
	publish(t, c, remoteSourceFor(t, c, reg.Host), writeSkill(t, t.TempDir(), skillSpec{name: "helped", version: "1.0.0"}), PublishOptions{})
	if err := c.Logout(ctx, reg.Host); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Error("logout left the helper's credentials")
	}
}

// TestProgress reports every blob of a publish and a pull.
func TestProgress(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	var mu sync.Mutex
	var events []string
	c := remoteClient(t, func(o *Options) {
		o.Progress = func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			if p.State == ProgressDone || p.State == ProgressSkipped {
				events = append(events, fmt.Sprintf("%s %s %d/%d %d", p.Op, p.Title, p.Bytes, p.Descriptor.Size, p.State))
			}
		}
	})
	src := remoteSourceFor(t, c, reg.Host)
	dir := writeSkill(t, t.TempDir(), skillSpec{name: "shown", version: "1.0.0", files: map[string]string{"big.txt": strings.Repeat("0123456789abcdef", 8<<10)}})
	a := build(t, dir)
	publish(t, c, src, dir, PublishOptions{})
	repo, _ := c.Repository(src, "shown")
	sel, _ := source.ParseSelector("1.0.0")
	m, err := repo.Get(context.Background(), sel, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Pull(context.Background(), m, filepath.Join(t.TempDir(), "out"), PullOptions{}); err != nil {
		t.Fatal(err)
	}
	ls, cs := a.Manifest.Layers[0].Size, a.Manifest.Config.Size
	want := []string{
		fmt.Sprintf("push config %d/%d %d", cs, cs, ProgressDone),
		fmt.Sprintf("push shown-1.0.0.tar.gz %d/%d %d", ls, ls, ProgressDone),
		fmt.Sprintf("push manifest %d/%d %d", a.Descriptor.Size, a.Descriptor.Size, ProgressDone),
		fmt.Sprintf("pull shown-1.0.0.tar.gz %d/%d %d", ls, ls, ProgressDone),
	}
	if !slices.Equal(events, want) {
		t.Errorf("progress:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
}

// TestVerifyRequests counts what verifying a set of skills asks a
// registry without the referrers API (distribution): the API is tried once
// per host, not once per skill; a skill whose tag list (already read) has
// no referrers tag costs no request; one listing serves audits and
// signatures; and a signed skill's signature is still found.
func TestVerifyRequests(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	proxy := registrytest.NewProxy(t, reg, func(*http.Request, int) registrytest.Fault { return registrytest.Pass })
	ctx := context.Background()
	pub := remoteClient(t, nil)
	src := remoteSourceFor(t, pub, proxy.Host)
	names := []string{"quiet-a", "quiet-b", "quiet-c", "signed-d"}
	key, _ := testKeys(t)
	for _, n := range names {
		res := publish(t, pub, src, writeSkill(t, t.TempDir(), skillSpec{name: n, version: "1.0.0"}), PublishOptions{})
		if n == "signed-d" {
			repo, err := pub.Repository(src, n)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := repo.AttachSignature(ctx, res.Descriptor, signWith(t, key, res.Descriptor), AttachOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	sel, err := source.ParseSelector("^1")
	if err != nil {
		t.Fatal(err)
	}

	c := remoteClient(t, nil)
	csrc := remoteSourceFor(t, c, proxy.Host)
	before := len(proxy.Log())
	type got struct {
		repo *Repository
		m    *SkillVersion
	}
	var all []got
	for _, n := range names {
		repo, err := c.Repository(csrc, n)
		if err != nil {
			t.Fatal(err)
		}
		// Resolving reads the tag list, as install's solver does.
		m, err := repo.Get(ctx, sel, false)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got{repo, m})
	}
	resolved := len(proxy.Log())
	for _, g := range all {
		// What policycheck.VerifyWithAudits asks: one listing, then the
		// audits and the signatures among it.
		refs, err := g.repo.Referrers(ctx, g.m.Descriptor, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.repo.VerifyAuditsFrom(ctx, g.m, refs, trustKeys(key)); err != nil {
			t.Fatal(err)
		}
		v, err := g.repo.VerifySignaturesFrom(ctx, g.m, refs, trustKeys(key))
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if g.m.Metadata.Name == "signed-d" {
			want = 1
		}
		if len(v.Signers) != want {
			t.Errorf("%s: %d verified signers, want %d: %+v", g.m.Metadata.Name, len(v.Signers), want, v.Checks)
		}
	}
	log := proxy.Log()[resolved:]
	api, schema := 0, 0
	for _, l := range log {
		switch {
		case strings.Contains(l, "/referrers/"):
			api++
		case strings.Contains(l, "/manifests/sha256-"):
			schema++
		}
	}
	if api != 1 {
		t.Errorf("the referrers API was tried %d times, want once per host: %v", api, log)
	}
	if schema != 1 {
		t.Errorf("the tag schema was read %d times, want once (the signed skill): %v", schema, log)
	}
	if n := resolved - before; n != 2*len(names) {
		t.Errorf("resolving made %d requests, want %d (tags and manifest per skill): %v", n, 2*len(names), proxy.Log()[before:resolved])
	}
}
