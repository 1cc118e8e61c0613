package registry

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

func TestPruneCache(t *testing.T) {
	dir := t.TempDir()
	put := func(data []byte) digest.Digest {
		d := digest.FromBytes(data)
		p := filepath.Join(dir, ocispec.ImageBlobsDir, "sha256", d.Encoded())
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	manifest := func(config digest.Digest, layers []digest.Digest, subject *digest.Digest) digest.Digest {
		m := ocispec.Manifest{Config: ocispec.Descriptor{Digest: config}}
		for _, l := range layers {
			m.Layers = append(m.Layers, ocispec.Descriptor{Digest: l})
		}
		if subject != nil {
			m.Subject = &ocispec.Descriptor{Digest: *subject}
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return put(b)
	}
	keptCfg, keptLayer := put([]byte("config-a")), put([]byte("layer-a"))
	kept := manifest(keptCfg, []digest.Digest{keptLayer}, nil)
	sigLayer := put([]byte("bundle-a"))
	sig := manifest(put([]byte("{}")), []digest.Digest{sigLayer}, &kept)
	goneLayer := put([]byte("layer-b"))
	gone := manifest(put([]byte("config-b")), []digest.Digest{goneLayer}, nil)
	if err := os.WriteFile(filepath.Join(dir, "blobs", "sha256", ".tmp-123"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := PruneCache(context.Background(), dir, []string{kept.String()})
	if err != nil {
		t.Fatal(err)
	}
	exists := func(d digest.Digest) bool {
		_, err := os.Stat(filepath.Join(dir, "blobs", "sha256", d.Encoded()))
		return err == nil
	}
	for _, d := range []digest.Digest{kept, keptCfg, keptLayer, sig, sigLayer} {
		if !exists(d) {
			t.Errorf("%s was removed", d)
		}
	}
	for _, d := range []digest.Digest{gone, goneLayer} {
		if exists(d) {
			t.Errorf("%s was kept", d)
		}
	}
	if res.Removed != 3 || res.Kept != 6 {
		t.Errorf("result %+v, want 3 removed and 6 kept", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "blobs", "sha256", ".tmp-123")); err != nil {
		t.Errorf("a file that is not a blob was removed: %v", err)
	}
	if _, err := PruneCache(context.Background(), filepath.Join(dir, "missing"), nil); err != nil {
		t.Errorf("missing cache: %v", err)
	}
}
