package sparse_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/sparse"
)

type env struct {
	t   *testing.T
	c   *registry.Client
	src registry.Source
	dir string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	dir := t.TempDir()
	c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(dir, "cache"), EmbeddedDir: filepath.Join(dir, "embedded")})
	if err != nil {
		t.Fatal(err)
	}
	src, err := c.Remote(reg.Host + "/ns")
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, c: c, src: src, dir: dir}
}

func (e *env) publish(name, version, requires string) *registry.PublishResult {
	e.t.Helper()
	fm := fmt.Sprintf("---\nname: %s\ndescription: Skill %s. Use in tests.\nversion: %s\n", name, name, version)
	if requires != "" {
		fm += "metadata:\n  gaia:\n    requirements:\n      skills:\n        " + requires + ": ^1\n"
	}
	d := filepath.Join(e.dir, "src", name+"-"+version, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(fm+"---\n# "+name+"\n"), 0o644); err != nil {
		e.t.Fatal(err)
	}
	ctx := context.Background()
	a, err := registry.Build(ctx, d, registry.BuildOptions{NoVCS: true})
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := e.c.Publish(ctx, e.src, a, registry.PublishOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// An update re-pushes only the documents of the skills it names, keeps
// the others' digests, and an unchanged index issued at the same second
// keeps its manifest digest (and so its signatures). The issued-at time
// is fixed here: the manifest carries it, so two updates a second apart
// are two digests by design.
func TestUpdateIsIncremental(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	issued := time.Now()
	e.publish("lib", "1.0.0", "")
	app := e.publish("app", "1.0.0", "lib")
	first, err := sparse.Update(ctx, e.c, e.src, sparse.UpdateOptions{Names: []string{"app", "lib"}, Issued: issued})
	if err != nil {
		t.Fatal(err)
	}
	if first.Skills != 2 || len(first.Changed) != 2 {
		t.Fatalf("first update: %+v", first)
	}
	ix, err := sparse.Fetch(ctx, e.src)
	if err != nil {
		t.Fatal(err)
	}
	appDoc := ix.Entries["app"].Layer.Digest
	if got := ix.Entries["app"].Requires; !slices.Equal(got, []string{"lib"}) {
		t.Errorf("app's root entry requires %q, want [lib]", got)
	}

	again, err := sparse.Update(ctx, e.c, e.src, sparse.UpdateOptions{Names: []string{"app", "lib"}, Issued: issued})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Changed) != 0 || again.Descriptor.Digest != first.Descriptor.Digest {
		t.Errorf("unchanged update: changed %q, digest %s then %s", again.Changed, first.Descriptor.Digest, again.Descriptor.Digest)
	}

	e.publish("lib", "1.1.0", "")
	upd, err := sparse.Update(ctx, e.c, e.src, sparse.UpdateOptions{Names: []string{"lib"}, IfExists: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(upd.Changed, []string{"lib"}) || upd.Skills != 2 {
		t.Fatalf("update of lib: %+v", upd)
	}
	ix, err = sparse.Fetch(ctx, e.src)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Entries["app"].Layer.Digest != appDoc {
		t.Errorf("app's document changed from %s to %s", appDoc, ix.Entries["app"].Layer.Digest)
	}
	if got := ix.Entries["lib"].Latest; got != "1.1.0" {
		t.Errorf("lib latest %q", got)
	}
	if err := ix.Load(ctx, []string{"app"}, 0); err != nil {
		t.Fatal(err)
	}
	v := ix.Entries["app"].Find("1.0.0")
	if v == nil || v.Manifest != app.Descriptor.Digest.String() || v.Requires["lib"] != "^1" {
		t.Errorf("app@1.0.0 in the index: %+v, want manifest %s requiring lib ^1", v, app.Descriptor.Digest)
	}
	if ix.Entries["lib"].Doc == nil || len(ix.Entries["lib"].Doc.Versions) != 2 {
		t.Errorf("loading app did not load lib, which it requires: %+v", ix.Entries["lib"].Doc)
	}
}

func TestUpdateIfExistsWritesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.publish("lib", "1.0.0", "")
	res, err := sparse.Update(ctx, e.c, e.src, sparse.UpdateOptions{Names: []string{"lib"}, IfExists: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Descriptor.Digest != "" {
		t.Errorf("IfExists wrote an index: %+v", res)
	}
	if _, err := sparse.Fetch(ctx, e.src); !errors.Is(err, sparse.ErrNoIndex) {
		t.Errorf("Fetch: %v, want ErrNoIndex", err)
	}
}

// TestFreshness: an index carries its issued-at and expiry times; it is
// fresh between them, stale after the expiry or when issued in the future
// past the clock skew, and an index without them (hand-written, or from
// before they existed) is stale too.
func TestFreshness(t *testing.T) {
	e := newEnv(t)
	e.publish("lib", "1.0.0", "")
	ctx := context.Background()
	issued := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if _, err := sparse.Update(ctx, e.c, e.src, sparse.UpdateOptions{Issued: issued, Validity: time.Hour}); err != nil {
		t.Fatal(err)
	}
	ix, err := sparse.Fetch(ctx, e.src)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Issued.Equal(issued) || !ix.Expires.Equal(issued.Add(time.Hour)) {
		t.Fatalf("times %s .. %s", ix.Issued, ix.Expires)
	}
	for _, c := range []struct {
		now  time.Time
		want string
	}{
		{issued.Add(30 * time.Minute), ""},
		{issued.Add(-time.Minute), ""},
		{issued.Add(2 * time.Hour), "expired at 2026-03-01T13:00:00Z (issued 2026-03-01T12:00:00Z)"},
		{issued.Add(-time.Hour), "issued at 2026-03-01T12:00:00Z, in the future"},
	} {
		err := ix.Fresh(c.now)
		if c.want == "" && err != nil || c.want != "" && (!errors.Is(err, sparse.ErrStale) || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("at %s: %v, want %q", c.now, err, c.want)
		}
	}
	ix.Issued, ix.Expires = time.Time{}, time.Time{}
	if err := ix.Fresh(issued); !errors.Is(err, sparse.ErrStale) || !strings.Contains(err.Error(), "no issued-at and expiry") {
		t.Errorf("without times: %v", err)
	}
}
