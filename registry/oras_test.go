//go:build integration

package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/source"
)

// TestOrasPullsSkillpmArtifact: the oras CLI pulls what skillpm published,
// its layer unpacks to the source tree, the manifest bytes are the same,
// and oras discover finds the artifact.
func TestOrasPullsSkillpmArtifact(t *testing.T) {
	registrytest.Oras(t)
	reg := registrytest.Start(t, registrytest.Options{})
	ctx := context.Background()
	c := remoteClient(t, nil)
	const dir = "../testdata/skills/web-research"
	a := build(t, dir)
	if _, err := c.Publish(ctx, remoteSourceFor(t, c, reg.Host), a, PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := reg.Host + "/skills/web-research:1.0.0"
	work := t.TempDir()

	registrytest.RunOras(ctx, t, work, "pull", "--plain-http", "-o", "out", ref)
	layer := filepath.Join(work, "out", "web-research-1.0.0.tar.gz")
	f, err := os.Open(layer)
	if err != nil {
		t.Fatalf("oras pull wrote no %s: %v", filepath.Base(layer), err)
	}
	defer f.Close()
	sum, err := archive.Unpack(ctx, f, filepath.Join(work, "tree"), archive.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := archive.TreeHashDir(ctx, dir, archive.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.TreeHash != src.TreeHash || sum.TreeHash != a.Manifest.Annotations[AnnotationTree] {
		t.Errorf("oras-pulled layer unpacks to %s; source %s; annotation %s", sum.TreeHash, src.TreeHash, a.Manifest.Annotations[AnnotationTree])
	}

	fetched := registrytest.RunOras(ctx, t, work, "manifest", "fetch", "--plain-http", ref)
	if !bytes.Equal(bytes.TrimSpace([]byte(fetched)), a.ManifestBytes) {
		t.Errorf("oras manifest fetch:\n%s\nwant:\n%s", fetched, a.ManifestBytes)
	}

	out := registrytest.RunOras(ctx, t, work, "discover", "--plain-http", "--format", "json", ref)
	var disc struct {
		Digest    string            `json:"digest"`
		MediaType string            `json:"mediaType"`
		Referrers []json.RawMessage `json:"referrers"`
	}
	if err := json.Unmarshal([]byte(out), &disc); err != nil {
		t.Fatalf("oras discover output %q: %v", out, err)
	}
	if disc.Digest != a.Descriptor.Digest.String() || disc.MediaType != a.Descriptor.MediaType || len(disc.Referrers) != 0 {
		t.Errorf("oras discover: %s", out)
	}
}

// TestSkillpmReadsOrasPush: an artifact pushed by `oras push` with
// skillpm's media types but none of its annotations is listed, described
// (from its config) and pulled by skillpm.
func TestSkillpmReadsOrasPush(t *testing.T) {
	registrytest.Oras(t)
	reg := registrytest.Start(t, registrytest.Options{})
	ctx := context.Background()
	dir := writeSkill(t, t.TempDir(), skillSpec{name: "oras-made", version: "2.1.0", permissions: []string{"network:read"},
		requires: map[string]string{"web-search": "^1"}, files: map[string]string{"scripts/x.sh": "echo x\n"}})
	a := build(t, dir)
	work := t.TempDir()
	title := LayerTitle("oras-made", "2.1.0")
	if err := os.WriteFile(filepath.Join(work, "config.json"), a.Config, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, title), a.Layer, 0o644); err != nil {
		t.Fatal(err)
	}
	registrytest.RunOras(ctx, t, work, "push", "--plain-http", "--artifact-type", ArtifactType,
		"--config", "config.json:"+ConfigMediaType, reg.Host+"/skills/oras-made:2.1.0", title+":"+LayerMediaType)

	c := remoteClient(t, nil)
	repo, _ := c.Repository(remoteSourceFor(t, c, reg.Host), "oras-made")
	sel, _ := source.ParseSelector("^2")
	m, err := repo.Get(ctx, sel, false)
	if err != nil {
		t.Fatal(err)
	}
	md := m.Metadata
	if md.Name != "oras-made" || md.Version != "2.1.0" || md.Tier != "community" || md.Requires["web-search"] != "^1" ||
		!slices.Equal(md.Permissions, []string{"network:read"}) || md.Tree != "" {
		t.Errorf("metadata of an oras-pushed skill: %+v", md)
	}
	if !slices.Contains(md.FromConfig, "requires") {
		t.Errorf("FromConfig = %v", md.FromConfig)
	}
	pr, err := repo.Pull(ctx, m, filepath.Join(work, "pulled"), PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pr.TreeVerified || pr.Summary.TreeHash != a.Pack.TreeHash {
		t.Errorf("pull: verified=%v tree %s, want unverified %s", pr.TreeVerified, pr.Summary.TreeHash, a.Pack.TreeHash)
	}
}
