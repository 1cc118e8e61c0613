//go:build integration

package registry

// Mirror tests of behaviour only the distribution registry has (blob
// mounts across repositories, tag deletion with its manifest); the
// in-process registry of the plain build has neither.

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/source"
	"oras.land/oras-go/v2/content"
)

// TestMirrorRequests counts what a mirror between two registries without
// the referrers API asks of each: the source's manifests come in one GET
// by tag and its referrers API is tried once per host; at the destination
// a new version's referrers are pushed without asking whether they exist,
// and the signatures' shared empty config is mounted from the first
// repository that received it rather than uploaded again. The copies
// still verify.
func TestMirrorRequests(t *testing.T) {
	ctx := context.Background()
	reg := registrytest.Start(t, registrytest.Options{})
	pass := func(*http.Request, int) registrytest.Fault { return registrytest.Pass }
	srcProxy := registrytest.NewProxy(t, reg, pass)
	dstProxy := registrytest.NewProxy(t, reg, pass)
	c := remoteClient(t, nil)
	publisher, _ := testKeys(t)
	seedSrc, _ := c.Remote(reg.Host + "/src")
	const n = 4
	names := seedSigned(t, c, seedSrc, "count", n, publisher, nil)

	m := remoteClient(t, nil)
	from, _ := m.Remote(srcProxy.Host + "/src")
	to, _ := m.Remote(dstProxy.Host + "/dst")
	res, err := m.Mirror(ctx, from, to, MirrorOptions{Names: names, Jobs: 1})
	if err != nil || res.Err() != nil || res.Count(MirrorCopied) != n {
		t.Fatalf("mirror: %v, %v, %+v", err, res.Err(), res.Versions)
	}
	count := func(p *registrytest.Proxy, pred func(string) bool) int {
		k := 0
		for _, l := range p.Log() {
			if pred(l) {
				k++
			}
		}
		return k
	}
	if k := count(srcProxy, func(l string) bool { return strings.HasPrefix(l, "HEAD ") }); k != 0 {
		t.Errorf("the source was asked %d HEADs; a version's manifest is one GET by tag: %v", k, srcProxy.Log())
	}
	if k := count(srcProxy, func(l string) bool { return strings.Contains(l, "/referrers/") }); k != 1 {
		t.Errorf("the source's referrers API was tried %d times, want once: %v", k, srcProxy.Log())
	}
	if k := count(dstProxy, func(l string) bool { return strings.HasPrefix(l, "HEAD ") && strings.Contains(l, "/manifests/sha256:") }); k != 0 {
		t.Errorf("the destination was asked %d times whether a new version's referrer exists: %v", k, dstProxy.Log())
	}
	// Each skill's upload is POST then PUT; a mount is a POST alone. The
	// empty config is uploaded once and mounted n-1 times.
	posts := count(dstProxy, func(l string) bool { return strings.HasPrefix(l, "POST ") })
	puts := count(dstProxy, func(l string) bool { return strings.HasPrefix(l, "PUT ") && strings.Contains(l, "/blobs/uploads/") })
	if posts-puts != n-1 {
		t.Errorf("%d blob POSTs and %d upload PUTs: %d mounts, want %d: %v", posts, puts, posts-puts, n-1, dstProxy.Log())
	}
	checkMirrored(t, c, seedSrc, to, names, trustKeys(publisher))
}

// TestMirrorWithinRegistry promotes skills between two namespaces of one
// registry: every blob is mounted from the source repository (one POST,
// no download, no upload), and the copies verify.
func TestMirrorWithinRegistry(t *testing.T) {
	ctx := context.Background()
	reg := registrytest.Start(t, registrytest.Options{})
	proxy := registrytest.NewProxy(t, reg, func(*http.Request, int) registrytest.Fault { return registrytest.Pass })
	c := remoteClient(t, nil)
	publisher, _ := testKeys(t)
	staging, _ := c.Remote(proxy.Host + "/staging")
	const n = 3
	names := seedSigned(t, c, staging, "promo", n, publisher, nil)

	m := remoteClient(t, nil)
	from, _ := m.Remote(proxy.Host + "/staging")
	to, _ := m.Remote(proxy.Host + "/prod")
	before := len(proxy.Log())
	res, err := m.Mirror(ctx, from, to, MirrorOptions{Names: names, Jobs: 2})
	if err != nil || res.Err() != nil || res.Count(MirrorCopied) != n {
		t.Fatalf("mirror: %v, %v, %+v", err, res.Err(), res.Versions)
	}
	var gets, posts, puts int
	for _, l := range proxy.Log()[before:] {
		switch {
		case strings.HasPrefix(l, "GET ") && strings.Contains(l, "/blobs/"):
			gets++
		case strings.HasPrefix(l, "POST "):
			posts++
		case strings.HasPrefix(l, "PUT ") && strings.Contains(l, "/blobs/uploads/"):
			puts++
		}
	}
	// Per skill: config, layer, the signature's empty config and bundle.
	if gets != 0 || puts != 0 || posts != 4*n {
		t.Errorf("%d blob GETs, %d upload PUTs, %d POSTs; want 0, 0 and %d mounts: %v", gets, puts, posts, 4*n, proxy.Log()[before:])
	}
	checkMirrored(t, c, staging, to, names, trustKeys(publisher))
}

// TestMirrorRepairsReferrersIndex loses the destination's referrers index
// (as a copy interrupted between pushing a signature and indexing it
// would): running the mirror again lists the destination's referrers,
// finds the signature missing, and pushes and indexes it again.
func TestMirrorRepairsReferrersIndex(t *testing.T) {
	ctx := context.Background()
	reg := registrytest.Start(t, registrytest.Options{})
	c := remoteClient(t, nil)
	publisher, _ := testKeys(t)
	src, _ := c.Remote(reg.Host + "/src")
	dst, _ := c.Remote(reg.Host + "/dst")
	names := seedSigned(t, c, src, "repair", 1, publisher, nil)
	if res, err := c.Mirror(ctx, src, dst, MirrorOptions{Names: names}); err != nil || res.Count(MirrorCopied) != 1 {
		t.Fatalf("mirror: %v %+v", err, res)
	}
	verified := func() int {
		t.Helper()
		fc := freshClient(t, c)
		repo, _ := fc.Repository(dst, names[0])
		sel, _ := source.ParseSelector("1.0.0")
		m, err := repo.Get(ctx, sel, false)
		if err != nil {
			t.Fatal(err)
		}
		v, err := repo.VerifySignatures(ctx, m, trustKeys(publisher))
		if err != nil {
			t.Fatal(err)
		}
		return v.Verified()
	}
	if n := verified(); n != 1 {
		t.Fatalf("after the mirror %d signatures verify at the destination", n)
	}
	// Lose the index: delete the tag schema's index manifest.
	repo, _ := c.Repository(dst, names[0])
	st, err := dst.OpenRead(ctx, names[0])
	if err != nil {
		t.Fatal(err)
	}
	sel, _ := source.ParseSelector("1.0.0")
	m, err := repo.Get(ctx, sel, false)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := st.Resolve(ctx, strings.Replace(m.Descriptor.Digest.String(), ":", "-", 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.(content.Deleter).Delete(ctx, idx); err != nil {
		t.Fatal(err)
	}
	if n := verified(); n != 0 {
		t.Fatalf("with the index gone %d signatures still verify", n)
	}
	res, err := freshClient(t, c).Mirror(ctx, src, dst, MirrorOptions{Names: names})
	if err != nil || res.Err() != nil || res.Count(MirrorCopied) != 1 || res.Versions[0].ReferrersCopied != 1 {
		t.Fatalf("rerun: %v %+v", err, res)
	}
	if n := verified(); n != 1 {
		t.Errorf("after the rerun %d signatures verify at the destination, want 1", n)
	}
}
