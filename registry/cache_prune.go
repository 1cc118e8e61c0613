package registry

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// maxPruneManifest bounds the blobs PruneCache reads as possible
// manifests; skill manifests and signature manifests are a few KiB.
const maxPruneManifest = 4 << 20

// PruneResult is what [PruneCache] removed.
type PruneResult struct {
	// Kept and Removed count blobs; Freed is the bytes removed.
	Kept, Removed int
	Freed         int64
}

// PruneCache removes from the content cache in dir (see
// [DefaultCacheDir]) every blob that none of the manifest digests in keep
// reaches: a kept manifest keeps its config, its layers and the manifests
// it lists, and the referrers (signatures, attestations) whose subject is
// kept, with their own blobs. Whatever it removes can be fetched again.
// Files that are not blobs of the cache are left alone.
func PruneCache(ctx context.Context, dir string, keep []string) (PruneResult, error) {
	var res PruneResult
	blobs := map[digest.Digest]string{} // digest -> path
	sizes := map[digest.Digest]int64{}
	root := filepath.Join(dir, ocispec.ImageBlobsDir)
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return fs.SkipAll
			}
			return err
		}
		if e.IsDir() || !e.Type().IsRegular() {
			return nil
		}
		alg := filepath.Base(filepath.Dir(path))
		d := digest.NewDigestFromEncoded(digest.Algorithm(alg), e.Name())
		if d.Validate() != nil {
			return nil // a temporary file or something else: not ours to judge
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		blobs[d], sizes[d] = path, info.Size()
		return nil
	})
	if err != nil {
		return res, err
	}
	children := map[digest.Digest][]digest.Digest{}
	referrers := map[digest.Digest][]digest.Digest{}
	for d, path := range blobs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if sizes[d] > maxPruneManifest {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) == 0 || data[0] != '{' {
			continue
		}
		var m struct {
			Config    *ocispec.Descriptor  `json:"config"`
			Layers    []ocispec.Descriptor `json:"layers"`
			Manifests []ocispec.Descriptor `json:"manifests"`
			Subject   *ocispec.Descriptor  `json:"subject"`
		}
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		if m.Config != nil {
			children[d] = append(children[d], m.Config.Digest)
		}
		for _, l := range m.Layers {
			children[d] = append(children[d], l.Digest)
		}
		for _, l := range m.Manifests {
			children[d] = append(children[d], l.Digest)
		}
		if m.Subject != nil {
			referrers[m.Subject.Digest] = append(referrers[m.Subject.Digest], d)
		}
	}
	marked := map[digest.Digest]bool{}
	var queue []digest.Digest
	for _, k := range keep {
		if d, err := digest.Parse(k); err == nil {
			queue = append(queue, d)
		}
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if marked[d] {
			continue
		}
		marked[d] = true
		queue = append(queue, children[d]...)
		queue = append(queue, referrers[d]...)
	}
	for d, path := range blobs {
		if marked[d] {
			res.Kept++
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
		res.Removed++
		res.Freed += sizes[d]
	}
	return res, nil
}
