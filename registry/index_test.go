package registry

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// TestIndexRoundTrip builds, pushes and reads back the index of a layout
// source; a rebuild with nothing changed has the same digest; a source
// without an index is ErrNoIndex.
func TestIndexRoundTrip(t *testing.T) {
	ctx := context.Background()
	c := testClient(t, nil)
	src, _ := c.Layout(filepath.Join(t.TempDir(), "src"))
	if _, _, err := c.FetchIndex(ctx, src); err == nil || !errors.Is(err, ErrNoIndex) {
		t.Fatalf("no index: %v", err)
	}
	work := t.TempDir()
	publish(t, c, src, writeSkill(t, work, skillSpec{name: "web-research", version: "1.0.0", permissions: []string{"network:read"}}), PublishOptions{})
	publish(t, c, src, writeSkill(t, work, skillSpec{name: "web-research", version: "1.1.0", tier: "verified", permissions: []string{"network:read"}}), PublishOptions{})
	publish(t, c, src, writeSkill(t, work, skillSpec{name: "web-research", version: "2.0.0-rc.1"}), PublishOptions{})
	publish(t, c, src, writeSkill(t, work, skillSpec{name: "notes", version: "0.1.0"}), PublishOptions{})
	idx, err := c.BuildIndex(ctx, src, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d1, err := c.PushIndex(ctx, src, idx)
	if err != nil {
		t.Fatal(err)
	}
	got, d2, err := freshClient(t, c).FetchIndex(ctx, src)
	if err != nil || d1.Digest != d2.Digest {
		t.Fatal(err, d1.Digest, d2.Digest)
	}
	// The manifest carries no time (oras' PackManifest would add a
	// created annotation), so a rebuild in another second has the same
	// digest too.
	repo, err := c.Repository(src, IndexRepository)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := repo.fetchBytes(ctx, d1, 1<<20, "manifest")
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil || len(m.Annotations) != 0 || m.ArtifactType != IndexArtifactType {
		t.Errorf("index manifest: %v, annotations %v, artifact type %q; want none and %s", err, m.Annotations, m.ArtifactType, IndexArtifactType)
	}
	if len(got.Skills) != 2 || got.Skills[1].Name != "web-research" {
		t.Fatalf("index: %+v", got.Skills)
	}
	w := got.Skills[1]
	if w.Latest != "1.1.0" || w.Tier != "verified" || !slices.Equal(w.Permissions, []string{"network:read"}) || len(w.Versions) != 3 || w.LatestDigest() == "" {
		t.Errorf("web-research entry: %+v", w)
	}
	idx2, err := c.BuildIndex(ctx, src, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d3, err := c.PushIndex(ctx, src, idx2); err != nil || d3.Digest != d1.Digest {
		t.Errorf("rebuild: %v %s != %s", err, d3.Digest, d1.Digest)
	}
}
