package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

// sparseEnv is a hostileEnv whose namespace sparse/ is reached through a
// proxy that logs every request.
type sparseEnv struct {
	*hostileEnv
	proxy *registrytest.Proxy
	src   registry.Source // straight to the registry, for publishing
	// cache, when set, is the installs' content cache; else each install
	// starts with an empty one.
	cache string
}

func newSparseEnv(t *testing.T) *sparseEnv {
	t.Helper()
	e := &sparseEnv{hostileEnv: newHostileEnv(t)}
	e.proxy = registrytest.NewProxy(t, e.reg, nil)
	var err error
	if e.src, err = e.client.Remote(e.reg.Host + "/sparse"); err != nil {
		t.Fatal(err)
	}
	return e
}

// publish builds, publishes and signs name@version requiring deps.
func (e *sparseEnv) publish(name, version string, deps ...string) ocispec.Descriptor {
	e.t.Helper()
	fm := fmt.Sprintf("---\nname: %s\ndescription: Skill %s for tests. Use in tests.\nversion: %s\n", name, name, version)
	fm += "metadata:\n  gaia:\n    security_tier: community\n"
	if len(deps) > 0 {
		fm += "    requirements:\n      skills:\n"
		for _, d := range deps {
			fm += fmt.Sprintf("        %s: ^1\n", d)
		}
	}
	a := e.build(name+"-"+version, name, map[string]string{"SKILL.md": fm + "---\n# " + name + "\n"})
	ctx := context.Background()
	res, err := e.client.Publish(ctx, e.src, a, registry.PublishOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.sign(name, res.Descriptor, e.key)
	return res.Descriptor
}

func (e *sparseEnv) sign(repoName string, desc ocispec.Descriptor, kp *sign.KeyPair) {
	e.t.Helper()
	ctx := context.Background()
	r, err := e.client.Repository(e.src, repoName)
	if err != nil {
		e.t.Fatal(err)
	}
	sig, err := sign.Sign(ctx, desc, sign.SignOptions{Key: kp.Key})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := r.AttachSignature(ctx, desc, sig.Bundle, registry.AttachOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// index builds the namespace's sparse index and signs it with kp.
func (e *sparseEnv) index(kp *sign.KeyPair) ocispec.Descriptor {
	e.t.Helper()
	res, err := sparse.Update(context.Background(), e.client, e.src, sparse.UpdateOptions{Names: []string{"app", "lib"}})
	if err != nil {
		e.t.Fatal(err)
	}
	e.sign(sparse.Repository, res.Descriptor, kp)
	return res.Descriptor
}

// install installs app (any version) through the proxy into a fresh root
// with a fresh cache, returning the lock, the warnings and the error.
func (e *sparseEnv) installApp(t *testing.T) (*Result, []string, error) {
	t.Helper()
	return e.installAppWith(t, nil)
}

// installAppWith is installApp with a previous lock and more skills asked
// for beside app.
func (e *sparseEnv) installAppWith(t *testing.T, prev *resolve.Lockfile, more ...string) (*Result, []string, error) {
	t.Helper()
	cache := e.cache
	if cache == "" {
		cache = t.TempDir()
	}
	c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: cache, EmbeddedDir: filepath.Join(e.work, "embedded")})
	if err != nil {
		t.Fatal(err)
	}
	g, err := catalog.New(c, resolve.Namespace{Default: e.proxy.Host + "/sparse"})
	if err != nil {
		t.Fatal(err)
	}
	var warns []string
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: t.TempDir()}}, Policy: e.policy, Trust: e.trust,
		Warn: func(s string) { warns = append(warns, s) }}
	m := &resolve.Manifest{File: "test", Skills: []resolve.Requirement{{Name: "app", Range: "^1"}}}
	for _, n := range more {
		m.Skills = append(m.Skills, resolve.Requirement{Name: n, Range: "^1"})
	}
	res, err := Install(context.Background(), c, g, m, prev, opts)
	return res, warns, err
}

func lockedVersion(t *testing.T, res *Result, name string) string {
	t.Helper()
	for _, ls := range res.Lock.Skills {
		if ls.Name == name {
			return ls.Version
		}
	}
	t.Fatalf("%s is not in the lock", name)
	return ""
}

// The solver reads the signed index: no manifest is asked for by tag (the
// registry path asks for one per version it considers), and the
// solution is the newest.
func TestSparseIndexResolves(t *testing.T) {
	e := newSparseEnv(t)
	e.publish("lib", "1.0.0")
	e.publish("lib", "1.1.0")
	e.publish("app", "1.0.0", "lib")
	e.index(e.key)
	res, warns, err := e.installApp(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) > 0 {
		t.Errorf("warnings: %q", warns)
	}
	if v := lockedVersion(t, res, "lib"); v != "1.1.0" {
		t.Errorf("lib %s, want 1.1.0", v)
	}
	for _, tag := range []string{"/manifests/1.0.0", "/manifests/1.1.0"} {
		if n := e.proxy.Count("", tag); n != 0 {
			t.Errorf("%d requests for %s: the index should have answered\n%s", n, tag, strings.Join(e.proxy.Log(), "\n"))
		}
	}
	if n := e.proxy.Count("GET", "/manifests/"+sparse.Tag); n != 1 {
		t.Errorf("%d GETs of the index manifest, want 1", n)
	}
	// The index lists each version's signature referrers: they are read
	// by digest, not listed, and still verified (the publisher key earns
	// community).
	for _, repo := range []string{"/sparse/app/", "/sparse/lib/"} {
		if n := e.proxy.Count("GET", repo+"referrers/") + e.proxy.Count("GET", repo+"manifests/sha256-"); n != 0 {
			t.Errorf("%d referrers listings in %s: the index lists them", n, repo)
		}
	}
	for _, ls := range res.Lock.Skills {
		if ls.Tier != "community" || len(ls.Signers) != 1 {
			t.Errorf("%s@%s: tier %s, signers %v; want community from the publisher's signature", ls.Name, ls.Version, ls.Tier, ls.Signers)
		}
	}
}

// An index that leaves a signature out cannot raise a tier, only lower
// it: the skill verifies as unsigned.
func TestSparseIndexHidingSignatureLowersTier(t *testing.T) {
	e := newSparseEnv(t)
	e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	e.lie(func(s *sparse.Skill) { s.Versions[0].Referrers = []ocispec.Descriptor{} })
	_, _, err := e.installApp(t)
	if err == nil || !strings.Contains(err.Error(), "lib") || !strings.Contains(err.Error(), "experimental") {
		t.Fatalf("err = %v, want lib refused as an experimental dependency", err)
	}
}

func TestSparseIndexMissingFallsBack(t *testing.T) {
	e := newSparseEnv(t)
	e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	res, warns, err := e.installApp(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lock.Skills) != 2 {
		t.Fatalf("lock: %+v", res.Lock.Skills)
	}
	// A source without an index is the ordinary case: no warning.
	if len(warns) != 0 {
		t.Errorf("warnings %q, want none for a source without a sparse index", warns)
	}
}

// A version published after the index is found by the tag lists read
// beside the manifests: the registry's answer wins, with a warning.
func TestSparseIndexStaleFallsBack(t *testing.T) {
	e := newSparseEnv(t)
	e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	e.index(e.key)
	e.publish("lib", "1.2.0")
	res, warns, err := e.installApp(t)
	if err != nil {
		t.Fatal(err)
	}
	if v := lockedVersion(t, res, "lib"); v != "1.2.0" {
		t.Errorf("lib %s, want 1.2.0 (published after the index)", v)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "stale") || !strings.Contains(warns[0], "lib: ") || !strings.Contains(warns[0], "1.2.0") {
		t.Errorf("warnings %q, want one saying the index is stale about lib 1.2.0", warns)
	}
}

// An index signed by a key the policy does not name is ignored, with a
// warning: the registry can always answer, and a junk index must not stop
// installs.
func TestSparseIndexUntrustedIgnored(t *testing.T) {
	e := newSparseEnv(t)
	e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	other, err := sign.GenerateKey(sign.ECDSAP256, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.index(other)
	_, warns, err := e.installApp(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "ignoring the sparse index") || !strings.Contains(warns[0], "no signature verifies") {
		t.Errorf("warnings %q, want one ignoring the untrusted index", warns)
	}
	if n := e.proxy.Count("GET", "/manifests/1.0.0"); n == 0 {
		t.Errorf("the registry was not asked: %s", strings.Join(e.proxy.Log(), "\n"))
	}
}

// An index signed by a key the policy trusts only as a publisher (a
// scope over every repository) is ignored, with a warning saying so: who
// may sign the index is a decision of its own, since the index decides
// which versions every solver considers.
func TestSparseIndexPublisherCannotSign(t *testing.T) {
	e := newSparseEnv(t)
	e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	e.index(e.key)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "publisher.pub"), e.key.PublicPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	publishersOnly, _, _ := strings.Cut(hostilePolicy, "  - name: index-signers\n")
	publishersOnly += "ceilings:\n  community: [filesystem:read, network:read, shell:execute]\n"
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(publishersOnly), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	if e.policy, err = tiers.Load(context.Background(), filepath.Join(dir, "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	_, warns, err := e.installApp(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "ignoring the sparse index") || !strings.Contains(warns[0], "not as a signer of the index") || !strings.Contains(warns[0], `through the scope "*" of publishers`) {
		t.Errorf("warnings %q, want the index ignored: its signer is only a publisher", warns)
	}
	if n := e.proxy.Count("GET", "/manifests/1.0.0"); n == 0 {
		t.Errorf("the registry was not asked: %s", strings.Join(e.proxy.Log(), "\n"))
	}
}

// A signed index past its expiry (an old index replayed, or one nobody
// maintains) is reported stale and ignored, never obeyed.
func TestSparseIndexExpiredIgnored(t *testing.T) {
	e := newSparseEnv(t)
	e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	old := time.Now().Add(-8 * 24 * time.Hour)
	res, err := sparse.Update(context.Background(), e.client, e.src, sparse.UpdateOptions{Names: []string{"app", "lib"}, Issued: old})
	if err != nil {
		t.Fatal(err)
	}
	e.sign(sparse.Repository, res.Descriptor, e.key)
	_, warns, err := e.installApp(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "ignoring the sparse index") || !strings.Contains(warns[0], "is stale") || !strings.Contains(warns[0], "expired at "+old.UTC().Add(sparse.DefaultValidity).Format(time.RFC3339)) {
		t.Errorf("warnings %q, want the expired index ignored", warns)
	}
	if n := e.proxy.Count("GET", "/manifests/1.0.0"); n == 0 {
		t.Errorf("the registry was not asked: %s", strings.Join(e.proxy.Log(), "\n"))
	}
}

// lie rewrites the signed index with edit applied to lib's document.
func (e *sparseEnv) lie(edit func(*sparse.Skill)) {
	e.t.Helper()
	ctx := context.Background()
	docs, err := sparse.Describe(ctx, e.client, e.src, []string{"app", "lib"}, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	edit(docs["lib"])
	desc, err := sparse.Write(ctx, e.src, docs)
	if err != nil {
		e.t.Fatal(err)
	}
	e.sign(sparse.Repository, desc, e.key)
}

// TestSparseIndexCannotSteer: the index, signed by its trusted signer,
// says app 1.1.0 requires lib ^9 (its manifest says ^1), which no lib
// satisfies, so a solver believing it would take app 1.0.0, and the lie
// about a version never downloaded would never be checked. The index may
// narrow the choice, never steer it: the registry decides, and app 1.1.0
// is installed.
func TestSparseIndexCannotSteer(t *testing.T) {
	e := newSparseEnv(t)
	e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	e.publish("app", "1.1.0", "lib")
	ctx := context.Background()
	docs, err := sparse.Describe(ctx, e.client, e.src, []string{"app", "lib"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	docs["app"].Versions[1].Requires = map[string]string{"lib": "^9"}
	desc, err := sparse.Write(ctx, e.src, docs)
	if err != nil {
		t.Fatal(err)
	}
	e.sign(sparse.Repository, desc, e.key)
	res, warns, err := e.installApp(t)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Lock.Get("app"); got == nil || got.Version != "1.1.0" {
		t.Fatalf("app = %+v, want 1.1.0 (the index steered the solver)", got)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "would decide against a newer version on its own word") || !strings.Contains(warns[0], "app 1.0.0 is solved, yet 1.1.0 is listed") {
		t.Errorf("warnings %q, want one saying the registry decides", warns)
	}
}

func TestSparseIndexLyingManifestRefused(t *testing.T) {
	e := newSparseEnv(t)
	old := e.publish("lib", "1.0.0")
	cur := e.publish("lib", "1.1.0")
	e.publish("app", "1.0.0", "lib")
	// lib 1.1.0's entry names 1.0.0's manifest (both signed, both real).
	e.lie(func(s *sparse.Skill) { s.Versions[1].Manifest = old.Digest.String() })
	_, warns, err := e.installApp(t)
	if !errors.Is(err, sparse.ErrLies) {
		t.Logf("warnings: %q", warns)
		t.Fatalf("err = %v, want ErrLies", err)
	}
	for _, want := range []string{"lib@1.1.0", old.Digest.String(), cur.Digest.String()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestSparseIndexLyingLayerRefused(t *testing.T) {
	e := newSparseEnv(t)
	e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	fake := digest.FromString("not the layer").String()
	var real string
	e.lie(func(s *sparse.Skill) { real, s.Versions[0].Layer = s.Versions[0].Layer, fake })
	_, warns, err := e.installApp(t)
	if !errors.Is(err, sparse.ErrLies) {
		t.Logf("warnings: %q", warns)
		t.Fatalf("err = %v, want ErrLies", err)
	}
	for _, want := range []string{"lib@1.0.0", fake, real} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

// A version republished (--force) since it was locked keeps the locked
// bytes (in the cache) through the index, as it does through the
// registry: the index's new digest for it is neither taken nor called a
// lie.
func TestSparseIndexKeepsLockedDigest(t *testing.T) {
	e := newSparseEnv(t)
	e.cache = t.TempDir()
	first := e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	e.index(e.key)
	res, warns, err := e.installApp(t)
	if err != nil || len(warns) > 0 {
		t.Fatalf("first install: %v, warnings %q", err, warns)
	}
	a := e.build("lib-1.0.0-again", "lib", map[string]string{"SKILL.md": "---\nname: lib\ndescription: Skill lib, republished. Use in tests.\nversion: 1.0.0\nmetadata:\n  gaia:\n    security_tier: community\n---\n# lib again\n"})
	again, err := e.client.Publish(context.Background(), e.src, a, registry.PublishOptions{Force: true})
	if err != nil || again.Replaced == nil {
		t.Fatalf("republish: %v %+v", err, again)
	}
	e.sign("lib", again.Descriptor, e.key)
	// A new skill asked for beside the lock: a resolution, from the index.
	e.publish("tool", "1.0.0")
	if _, err := sparse.Update(context.Background(), e.client, e.src, sparse.UpdateOptions{Names: []string{"app", "lib", "tool"}}); err != nil {
		t.Fatal(err)
	}
	ix, err := sparse.Fetch(context.Background(), e.src)
	if err != nil {
		t.Fatal(err)
	}
	e.sign(sparse.Repository, ix.Descriptor, e.key)
	res, warns, err = e.installAppWith(t, res.Lock, "tool")
	if err != nil {
		t.Fatalf("install with the lock: %v (warnings %q)", err, warns)
	}
	if len(warns) > 0 {
		t.Errorf("warnings %q: the index should have answered", warns)
	}
	for _, ls := range res.Lock.Skills {
		if ls.Name == "lib" && ls.Digest != first.Digest.String() {
			t.Errorf("lib@1.0.0 is %s, want the locked %s (the index states %s)", ls.Digest, first.Digest, again.Descriptor.Digest)
		}
	}
}

// The index's signature bundles are kept in the content cache under the
// index digest: an install with the same cache and an unchanged index
// lists no referrers of it, yet verifies its bundle again (a policy that
// no longer names the key ignores the index). An index with another
// digest does not reuse them: its referrers are listed at the registry.
func TestSparseIndexSignatureCachedByDigest(t *testing.T) {
	e := newSparseEnv(t)
	e.cache = t.TempDir()
	e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	first := e.index(e.key)
	listings := func(d digest.Digest) int {
		return e.proxy.Count("GET", "/skillpm-index/referrers/"+d.String()) + e.proxy.Count("GET", "/skillpm-index/manifests/sha256-"+d.Encoded())
	}
	var (
		warns []string
		err   error
	)
	var listed int
	for i := range 2 {
		if _, warns, err = e.installApp(t); err != nil || len(warns) > 0 {
			t.Fatalf("install %d: %v, warnings %q", i+1, err, warns)
		}
		if i == 0 {
			listed = listings(first.Digest)
		}
	}
	if listed == 0 {
		t.Fatalf("the first install did not list the index's referrers\n%s", strings.Join(e.proxy.Log(), "\n"))
	}
	if n := listings(first.Digest); n != listed {
		t.Errorf("the second install with the same cache listed the index's referrers again\n%s", strings.Join(e.proxy.Log(), "\n"))
	}

	// The cached bundle is verified, not its verdict: under a policy that
	// does not name the key, the same cache gives no trust.
	trusted := e.policy
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "publisher.pub"), e.key.PublicPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	skillsOnly := strings.Replace(hostilePolicy, `scopes: ["*"]`, `scopes: ["*/sparse/app", "*/sparse/lib"]`, 1)
	skillsOnly = strings.Replace(skillsOnly, `scopes: ["**/skillpm-index"]`, `scopes: ["*/sparse/lib"]`, 1)
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(skillsOnly), 0o644); err != nil {
		t.Fatal(err)
	}
	if e.policy, err = tiers.Load(context.Background(), filepath.Join(dir, "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	_, warns, err = e.installApp(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "ignoring the sparse index") || !strings.Contains(warns[0], "whom no rule") {
		t.Errorf("warnings %q, want the index ignored under a policy that does not name its key", warns)
	}
	e.policy = trusted

	e.publish("lib", "1.1.0")
	second := e.index(e.key)
	if second.Digest == first.Digest {
		t.Fatal("the rebuilt index has the old digest")
	}
	res, warns, err := e.installApp(t)
	if err != nil || len(warns) > 0 {
		t.Fatalf("install after the rebuild: %v, warnings %q", err, warns)
	}
	if v := lockedVersion(t, res, "lib"); v != "1.1.0" {
		t.Errorf("lib %s, want 1.1.0 from the rebuilt index", v)
	}
	if n := listings(second.Digest); n == 0 {
		t.Errorf("the rebuilt index's referrers were not listed: the old digest's bundles are not its")
	}
}
