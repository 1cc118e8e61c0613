package registry

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/source"
)

// exerciseSource runs the publish / list / resolve / pull / immutability
// cycle that every source must pass.
func exerciseSource(t *testing.T, c *Client, src Source) {
	ctx := context.Background()
	work := t.TempDir()
	const name = "demo-skill"
	dirs := map[string]string{}
	for _, v := range []string{"1.0.0", "1.2.0", "1.10.0-rc.1", "2.0.0", "1.3.0+build.7"} {
		dirs[v] = writeSkill(t, work, skillSpec{name: name, version: v,
			requires:    map[string]string{"web-search": ">=1.0, <2.0", "code": "^1"},
			permissions: []string{"network:read"},
			files:       map[string]string{"scripts/run.sh": "echo " + v + "\n"}})
		res := publish(t, c, src, dirs[v], PublishOptions{})
		if res.Unchanged || res.Replaced != nil {
			t.Fatalf("first publish of %s: %+v", v, res)
		}
		if res.Tag != Tag(v) {
			t.Errorf("tag %q, want %q", res.Tag, Tag(v))
		}
	}
	repo, err := c.Repository(src, name)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("list", func(t *testing.T) {
		vs, err := repo.Versions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"1.0.0", "1.2.0", "1.3.0+build.7", "1.10.0-rc.1", "2.0.0"}
		if got := versionStrings(vs); !slices.Equal(got, want) {
			t.Errorf("versions %v, want %v", got, want)
		}
		tags, _ := repo.Tags(ctx)
		if !slices.Contains(tags, "1.3.0_build.7") {
			t.Errorf("tags %v lack 1.3.0_build.7 (+ written as _)", tags)
		}
	})

	t.Run("resolve", func(t *testing.T) {
		for _, tc := range []struct {
			sel  string
			pre  bool
			want string
		}{
			{"^1", false, "1.3.0+build.7"},
			{"^1", true, "1.10.0-rc.1"},
			{"~1.2", false, "1.2.0"},
			{"1.0.0", false, "1.0.0"},
			{"1.3.0+build.7", false, "1.3.0+build.7"},
			{"1.3.0_build.7", false, "1.3.0+build.7"},
			{"^1.10.0-rc.0", false, "1.10.0-rc.1"},
			{"", false, "2.0.0"},
			{"*", false, "2.0.0"},
		} {
			sel, err := source.ParseSelector(tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			res, err := repo.Resolve(ctx, sel, tc.pre)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.sel, err)
			}
			if res.Version.String() != tc.want {
				t.Errorf("Resolve(%q, pre=%v) = %s, want %s", tc.sel, tc.pre, res.Version, tc.want)
			}
			m, err := repo.Manifest(ctx, res.Descriptor)
			if err != nil {
				t.Fatal(err)
			}
			if m.Metadata.Version != tc.want {
				t.Errorf("manifest of %q says version %s", tc.sel, m.Metadata.Version)
			}
		}
		for _, bad := range []string{"^3", "1.1.0"} {
			sel, _ := source.ParseSelector(bad)
			_, err := repo.Resolve(ctx, sel, false)
			if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "available: 1.0.0") {
				t.Errorf("Resolve(%q) = %v, want ErrNotFound listing versions", bad, err)
			}
		}
		// By digest.
		res, _ := repo.Resolve(ctx, source.Selector{Kind: source.SelectVersion, Version: semver.MustParse("1.2.0")}, false)
		byDigest, err := repo.Resolve(ctx, source.Selector{Kind: source.SelectDigest, Digest: res.Descriptor.Digest}, false)
		if err != nil || byDigest.Descriptor.Digest != res.Descriptor.Digest {
			t.Errorf("Resolve(digest) = %v, %v", byDigest, err)
		}
		m, err := repo.Get(ctx, source.Selector{Kind: source.SelectDigest, Digest: res.Descriptor.Digest}, false)
		if err != nil || m.Metadata.Version != "1.2.0" {
			t.Errorf("Get(digest) = %v, %v", m, err)
		}
		_, err = c.Repository(src, "no-such-skill")
		if err != nil {
			t.Fatal(err)
		}
		missing, _ := c.Repository(src, "no-such-skill")
		if _, err := missing.Versions(ctx); !errors.Is(err, ErrNotFound) {
			t.Errorf("Versions of a missing skill: %v, want ErrNotFound", err)
		}
	})

	t.Run("metadata", func(t *testing.T) {
		m, err := repo.Metadata(ctx, semver.MustParse("1.2.0"))
		if err != nil {
			t.Fatal(err)
		}
		md := m.Metadata
		if md.Name != name || md.Tier != "community" || md.License != "MIT" || len(md.FromConfig) != 0 {
			t.Errorf("metadata %+v", md)
		}
		if md.Requires["web-search"] != ">=1.0, <2.0" || md.Requires["code"] != "^1" || len(md.Requires) != 2 {
			t.Errorf("requires %v", md.Requires)
		}
		if !slices.Equal(md.Permissions, []string{"network:read"}) {
			t.Errorf("permissions %v", md.Permissions)
		}
		rs := Provider{Client: c, Default: src}
		deps, err := rs.Dependencies(ctx, name, semver.MustParse("1.0.0"))
		if err != nil || deps["code"] != "^1" {
			t.Errorf("Provider.Dependencies = %v, %v", deps, err)
		}
		if _, err := rs.Dependencies(ctx, name, semver.MustParse("9.9.9")); !errors.Is(err, ErrNotFound) {
			t.Errorf("Dependencies of a missing version: %v, want ErrNotFound", err)
		}
	})

	t.Run("pull", func(t *testing.T) {
		sel, _ := source.ParseSelector("^1")
		res, err := repo.Resolve(ctx, sel, false)
		if err != nil {
			t.Fatal(err)
		}
		m, err := repo.Manifest(ctx, res.Descriptor)
		if err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(t.TempDir(), "out")
		pr, err := repo.Pull(ctx, m, dest, PullOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !pr.TreeVerified {
			t.Error("tree not verified")
		}
		want, err := archive.TreeHashDir(ctx, dirs["1.3.0+build.7"], archive.PackOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pr.Summary.TreeHash != want.TreeHash {
			t.Errorf("pulled tree %s, source tree %s", pr.Summary.TreeHash, want.TreeHash)
		}
		got, err := os.ReadFile(filepath.Join(dest, "scripts", "run.sh"))
		if err != nil || string(got) != "echo 1.3.0+build.7\n" {
			t.Errorf("scripts/run.sh = %q, %v", got, err)
		}
		// A second pull comes from the cache and still verifies.
		dest2 := filepath.Join(t.TempDir(), "out2")
		if _, err := repo.Pull(ctx, m, dest2, PullOptions{}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("immutability", func(t *testing.T) {
		// Same files again: same digest, a no-op.
		res := publish(t, c, src, dirs["1.2.0"], PublishOptions{})
		if !res.Unchanged {
			t.Errorf("republishing the same digest: %+v, want Unchanged", res)
		}
		// Same files from another commit: provenance differs, content does
		// not, so it is no conflict either.
		other, err := Build(ctx, dirs["1.2.0"], BuildOptions{NoVCS: true, Revision: "0123abcd", Source: "https://example.com/x.git"})
		if err != nil {
			t.Fatal(err)
		}
		if other.Descriptor.Digest == res.Descriptor.Digest {
			t.Fatal("a revision annotation did not change the digest")
		}
		again, err := c.Publish(ctx, src, other, PublishOptions{})
		if err != nil || !again.Unchanged || again.Descriptor.Digest != res.Descriptor.Digest {
			t.Errorf("republishing the same files from another commit: %+v, %v; want Unchanged at %s", again, err, res.Descriptor.Digest)
		}
		// Same version, other content: refused.
		changed := writeSkill(t, work, skillSpec{name: name, version: "1.2.0", body: "changed"})
		_, err = c.Publish(ctx, src, build(t, changed), PublishOptions{})
		var ie *ImmutableError
		if !errors.As(err, &ie) || !errors.Is(err, ErrImmutable) {
			t.Fatalf("republishing 1.2.0 with other content: %v, want *ImmutableError", err)
		}
		if ie.Existing != res.Descriptor.Digest.String() {
			t.Errorf("ImmutableError.Existing = %s, want %s", ie.Existing, res.Descriptor.Digest)
		}
		// --force overwrites and says what it replaced.
		forced, err := c.Publish(ctx, src, build(t, changed), PublishOptions{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if forced.Replaced == nil || forced.Replaced.Digest != res.Descriptor.Digest {
			t.Errorf("forced publish replaced %v, want %s", forced.Replaced, res.Descriptor.Digest)
		}
		r2, _ := c.Repository(src, name)
		got, err := r2.Resolve(ctx, source.Selector{Kind: source.SelectVersion, Version: semver.MustParse("1.2.0")}, false)
		if err != nil || got.Descriptor.Digest != forced.Descriptor.Digest {
			t.Errorf("after --force, 1.2.0 resolves to %v (%v), want %s", got.Descriptor.Digest, err, forced.Descriptor.Digest)
		}
	})
}

func TestEmbeddedRegistry(t *testing.T) {
	c := testClient(t, nil)
	exerciseSource(t, c, c.Embedded())

	names, err := c.Embedded().(Names).Names(context.Background())
	if err != nil || !slices.Equal(names, []string{"demo-skill"}) {
		t.Errorf("Names() = %v, %v", names, err)
	}
	// A fresh client (a new process) reads what the first published.
	c2 := testClient(t, func(o *Options) { o.EmbeddedDir = c.opts.EmbeddedDir })
	repo, _ := c2.Repository(c2.Embedded(), "demo-skill")
	vs, err := repo.Versions(context.Background())
	if err != nil || len(vs) != 5 {
		t.Errorf("second client sees %v, %v", vs, err)
	}
}

func TestLayoutSourceRef(t *testing.T) {
	c := testClient(t, nil)
	dir := t.TempDir()
	src, err := c.Layout(dir)
	if err != nil {
		t.Fatal(err)
	}
	skillDir := writeSkill(t, t.TempDir(), skillSpec{name: "oem-skill", version: "1.0.0"})
	publish(t, c, src, skillDir, PublishOptions{})
	if _, err := os.Stat(filepath.Join(dir, "oem-skill", "oci-layout")); err != nil {
		t.Fatalf("no OCI layout written: %v", err)
	}
	ref, err := source.ParseRef("oci-layout:" + dir + "/oem-skill@^1")
	if err != nil {
		t.Fatal(err)
	}
	c2 := testClient(t, nil)
	repo, err := c2.OpenRef(ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := repo.Resolve(context.Background(), ref.Selector, false)
	if err != nil || res.Version.String() != "1.0.0" {
		t.Fatalf("Resolve = %v, %v", res, err)
	}
}

func TestInvalidSkillsNeverPublish(t *testing.T) {
	work := t.TempDir()
	for _, tc := range []struct {
		name string
		spec skillSpec
	}{
		{"zero version", skillSpec{name: "zero", version: "0.0.0"}},
		{"not semver", skillSpec{name: "loose", version: "1.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSkill(t, work, tc.spec)
			_, err := Build(context.Background(), dir, BuildOptions{NoVCS: true})
			if err == nil {
				t.Fatal("Build accepted an unpublishable skill")
			}
		})
	}
	// No SKILL.md at all.
	if _, err := Build(context.Background(), t.TempDir(), BuildOptions{}); err == nil {
		t.Error("Build accepted a directory without SKILL.md")
	}
}

func TestTamperedLayoutBlob(t *testing.T) {
	c := testClient(t, nil)
	skillDir := writeSkill(t, t.TempDir(), skillSpec{name: "victim", version: "1.0.0"})
	res := publish(t, c, c.Embedded(), skillDir, PublishOptions{})
	a := build(t, skillDir)
	layer := a.Manifest.Layers[0]
	p := filepath.Join(c.opts.EmbeddedDir, "victim", "blobs", "sha256", layer.Digest.Encoded())
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c2 := testClient(t, func(o *Options) { o.EmbeddedDir = c.opts.EmbeddedDir })
	repo, _ := c2.Repository(c2.Embedded(), "victim")
	m, err := repo.Manifest(context.Background(), res.Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "out")
	_, err = repo.Pull(context.Background(), m, dest, PullOptions{})
	var dm *DigestMismatchError
	if !errors.As(err, &dm) || dm.Digest != layer.Digest.String() || !strings.Contains(err.Error(), "victim") {
		t.Fatalf("Pull of a tampered layout blob: %v, want *DigestMismatchError naming the digest", err)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Error("a failed pull left its destination")
	}
}
