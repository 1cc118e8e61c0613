package sparse_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/sparse"
)

func TestCheck(t *testing.T) {
	man := digest.FromString("manifest").String()
	layer := digest.FromString("layer")
	entry := func() *sparse.Entry {
		return &sparse.Entry{Name: "lib", Doc: &sparse.Skill{Format: sparse.Format, Name: "lib", Versions: []sparse.Version{{
			Version: "1.0.0", Manifest: man, Layer: layer.String(), LayerSize: 10, Tree: "sha256:tree", Requires: map[string]string{"x": "^1"},
		}}}}
	}
	manifest := func() *registry.SkillVersion {
		return &registry.SkillVersion{
			Descriptor: ocispec.Descriptor{Digest: digest.Digest(man)},
			OCI:        ocispec.Manifest{Layers: []ocispec.Descriptor{{Digest: layer, Size: 10}}},
			Metadata:   registry.Metadata{Name: "lib", Version: "1.0.0", Tree: "sha256:tree", Requires: map[string]string{"x": "^1"}},
		}
	}
	if err := entry().Check("1.0.0", manifest()); err != nil {
		t.Fatalf("an honest entry: %v", err)
	}
	for _, tc := range []struct {
		name    string
		version string
		edit    func(*registry.SkillVersion)
		want    []string
	}{
		{"other version", "1.0.0", func(m *registry.SkillVersion) { m.Metadata.Version = "1.1.0" }, []string{"lib@1.0.0", "lib@1.1.0", man}},
		{"other layer", "1.0.0", func(m *registry.SkillVersion) { m.OCI.Layers[0].Digest = digest.FromString("other") }, []string{"layer", layer.String(), digest.FromString("other").String()}},
		{"other size", "1.0.0", func(m *registry.SkillVersion) { m.OCI.Layers[0].Size = 11 }, []string{"10 bytes", "11 bytes"}},
		{"other tree", "1.0.0", func(m *registry.SkillVersion) { m.Metadata.Tree = "" }, []string{"tree hash", "sha256:tree"}},
		{"other requires", "1.0.0", func(m *registry.SkillVersion) { m.Metadata.Requires = nil }, []string{"requires", "x:^1"}},
		{"other digest", "1.0.0", func(m *registry.SkillVersion) { m.Descriptor.Digest = digest.FromString("x") }, []string{man, digest.FromString("x").String()}},
		{"unlisted version", "2.0.0", func(*registry.SkillVersion) {}, []string{"lib@2.0.0", "no such version"}},
	} {
		m := manifest()
		tc.edit(m)
		err := entry().Check(tc.version, m)
		var le *sparse.LieError
		if !errors.Is(err, sparse.ErrLies) || !errors.As(err, &le) {
			t.Errorf("%s: err = %v, want a *LieError", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not name %s", tc.name, err, w)
			}
		}
	}
}
