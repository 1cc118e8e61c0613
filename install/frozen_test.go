package install

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// frozen installs app from lock with Frozen, through the proxy, into a
// fresh root with a fresh cache.
func (e *sparseEnv) frozen(t *testing.T, lock *resolve.Lockfile) (*Result, []string, error) {
	t.Helper()
	c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: t.TempDir(), EmbeddedDir: filepath.Join(e.work, "embedded")})
	if err != nil {
		t.Fatal(err)
	}
	g, err := catalog.New(c, resolve.Namespace{Default: e.proxy.Host + "/sparse"})
	if err != nil {
		t.Fatal(err)
	}
	var warns []string
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: t.TempDir()}}, Policy: e.policy, Trust: e.trust,
		Frozen: true, Warn: func(s string) { warns = append(warns, s) }}
	m := &resolve.Manifest{File: "test", Skills: []resolve.Requirement{{Name: "app", Range: "^1"}}}
	res, err := Install(context.Background(), c, g, m, lock, opts)
	return res, warns, err
}

// relock returns a copy of l through its file form, with edit applied to
// each entry.
func relock(t *testing.T, l *resolve.Lockfile, edit func(*resolve.LockedSkill)) *resolve.Lockfile {
	t.Helper()
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	out, err := resolve.ParseLockfile("skills.lock", data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out.Skills {
		edit(&out.Skills[i])
	}
	return out
}

// The lock records each version's layer and the referrers whose bundles
// verified, so install --frozen reads everything by digest: no tag list,
// no manifest by tag, no referrers listing. The signatures are verified
// again (the tier is the publisher's), a layer the manifest does not
// state is refused with both digests, and a lock without the digests is
// installed the old way, with a warning.
func TestFrozenReadsByDigestOnly(t *testing.T) {
	e := newSparseEnv(t)
	e.publish("lib", "1.0.0")
	e.publish("app", "1.0.0", "lib")
	res, _, err := e.installApp(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, ls := range res.Lock.Skills {
		if ls.Layer == nil || len(ls.Referrers) != 1 || ls.Referrers[0].Bundle.Digest == "" {
			t.Fatalf("%s: the lock records layer %+v, referrers %+v; want the layer and the one signature", ls.Name, ls.Layer, ls.Referrers)
		}
	}
	lock := relock(t, res.Lock, func(*resolve.LockedSkill) {})

	before := len(e.proxy.Log())
	got, warns, err := e.frozen(t, lock)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) > 0 {
		t.Errorf("warnings: %q", warns)
	}
	log := e.proxy.Log()[before:]
	for _, l := range log {
		if strings.Contains(l, "/tags/") || strings.Contains(l, "/referrers/") || strings.Contains(l, "/manifests/sha256-") || strings.Contains(l, "/manifests/1.") {
			t.Errorf("install --frozen asked %s: only reads by digest were expected", l)
		}
	}
	// Each referrer manifest and bundle is read once: the verification
	// reads what the prefetch put in the cache.
	for _, ls := range lock.Skills {
		for _, r := range ls.Referrers {
			for _, d := range []string{r.Digest, r.Bundle.Digest} {
				n := 0
				for _, l := range log {
					if strings.Contains(l, d) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%s: %s was asked for %d times, want once", ls.Name, d, n)
				}
			}
		}
	}
	for _, ls := range got.Lock.Skills {
		if ls.Tier != "community" || len(ls.Signers) != 1 {
			t.Errorf("%s: tier %s, signers %v; want community from the verified signature", ls.Name, ls.Tier, ls.Signers)
		}
	}

	// lib's layer in app's entry: the manifest states another.
	var libLayer string
	for _, ls := range lock.Skills {
		if ls.Name == "lib" {
			libLayer = ls.Layer.Digest
		}
	}
	var appLayer string
	bad := relock(t, lock, func(ls *resolve.LockedSkill) {
		if ls.Name == "app" {
			appLayer = ls.Layer.Digest
			ls.Layer.Digest = libLayer
		}
	})
	_, _, err = e.frozen(t, bad)
	if !errors.Is(err, registry.ErrDigestMismatch) || !strings.Contains(err.Error(), libLayer) || !strings.Contains(err.Error(), appLayer) {
		t.Errorf("a lock naming another layer: %v, want a digest mismatch naming %s and %s", err, libLayer, appLayer)
	}

	// A lock from before the digests were recorded.
	old := relock(t, lock, func(ls *resolve.LockedSkill) { ls.Layer, ls.Referrers = nil, nil })
	before = len(e.proxy.Log())
	got, warns, err = e.frozen(t, old)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "records no layer and signature digests for app, lib") {
		t.Errorf("warnings %q, want one naming app and lib", warns)
	}
	if !slices.ContainsFunc(e.proxy.Log()[before:], func(l string) bool { return strings.Contains(l, "/referrers/") }) {
		t.Errorf("an old lock's signatures were not listed")
	}
	for _, ls := range got.Lock.Skills {
		if ls.Tier != "community" {
			t.Errorf("%s: tier %s from an old lock, want community", ls.Name, ls.Tier)
		}
	}
}
