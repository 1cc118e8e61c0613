// Command release-image builds skillpm's container image from the release
// binaries without Docker: one layer per architecture holding the static
// binary, a passwd/group entry for a non-root user, a home and /tmp and
// the CA bundle, assembled with go-containerregistry into a linux/amd64 +
// linux/arm64 index in an OCI image layout. Every timestamp is -created,
// so the same binaries and CA bundle give the same image digest.
//
// Usage (scripts/release.sh runs it):
//
//	go run ./internal/cmd/release-image -bin bin/release -out bin/release/image \
//	  -version v1.2.3 -revision <sha> -created 2026-12-01T00:00:00Z
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's user: not root, with the uid/gid distroless images use for
// "nonroot", so volume permissions carry over.
const (
	uid      = 65532
	userName = "skillpm"
	homeDir  = "/home/skillpm"
	binPath  = "/usr/local/bin/skillpm"
)

type options struct {
	binDir, out, version, revision, caCerts, source string
	created                                         time.Time
}

func main() {
	var o options
	var created string
	flag.StringVar(&o.binDir, "bin", "bin/release", "directory holding skillpm-linux-amd64 and skillpm-linux-arm64")
	flag.StringVar(&o.out, "out", "bin/release/image", "OCI image layout directory to write (replaced)")
	flag.StringVar(&o.version, "version", "", "image version: the layout's ref name and the version label")
	flag.StringVar(&o.revision, "revision", "", "VCS revision label")
	flag.StringVar(&o.source, "source", "https://github.com/skillpm/skillpm", "source repository label")
	flag.StringVar(&o.caCerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "PEM CA bundle to install as /etc/ssl/certs/ca-certificates.crt")
	flag.StringVar(&created, "created", "", "RFC 3339 creation time of the image and of every file in it (the commit time)")
	flag.Parse()
	t, err := time.Parse(time.RFC3339, created)
	if err != nil || o.version == "" {
		fmt.Fprintln(os.Stderr, "release-image: -version and -created (RFC 3339) are required")
		os.Exit(2)
	}
	o.created = t.UTC()
	digest, err := build(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release-image:", err)
		os.Exit(1)
	}
	fmt.Printf("image %s in %s (ref %s)\n", digest, o.out, o.version)
}

func build(o options) (v1.Hash, error) {
	ca, err := os.ReadFile(o.caCerts)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("CA bundle: %w (install ca-certificates or pass -ca-certs)", err)
	}
	var idx v1.ImageIndex = mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, arch := range []string{"amd64", "arm64"} {
		bin, err := os.ReadFile(filepath.Join(o.binDir, "skillpm-linux-"+arch))
		if err != nil {
			return v1.Hash{}, err
		}
		img, err := image(o, arch, bin, ca)
		if err != nil {
			return v1.Hash{}, fmt.Errorf("linux/%s: %w", arch, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add: img,
			Descriptor: v1.Descriptor{
				Platform: &v1.Platform{OS: "linux", Architecture: arch},
			},
		})
	}
	if err := os.RemoveAll(o.out); err != nil {
		return v1.Hash{}, err
	}
	p, err := layout.Write(o.out, empty.Index)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": o.version,
	})); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}

// image is one architecture's image: a single layer and a config whose
// entrypoint is skillpm, run as the non-root user.
func image(o options, arch string, bin, ca []byte) (v1.Image, error) {
	tb, err := rootfs(o.created, bin, ca)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(tb)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(mutate.ConfigMediaType(empty.Image, types.OCIConfigJSON), types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	created := v1.Time{Time: o.created}
	cf.Architecture, cf.OS, cf.Created = arch, "linux", created
	cf.Config = v1.Config{
		User:       fmt.Sprintf("%d:%d", uid, uid),
		Entrypoint: []string{binPath},
		WorkingDir: homeDir,
		Env: []string{
			"PATH=/usr/local/bin:/usr/bin:/bin",
			"HOME=" + homeDir,
			"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":    "skillpm",
			"org.opencontainers.image.version":  o.version,
			"org.opencontainers.image.revision": o.revision,
			"org.opencontainers.image.source":   o.source,
			"org.opencontainers.image.created":  o.created.Format(time.RFC3339),
		},
	}
	cf.History = []v1.History{{Created: created, CreatedBy: "release-image: skillpm " + o.version}}
	return mutate.ConfigFile(img, cf)
}

// rootfs is the layer: sorted entries, root-owned but for the user's home,
// every time the creation time.
func rootfs(created time.Time, bin, ca []byte) ([]byte, error) {
	type entry struct {
		name  string
		mode  int64
		owner int
		body  []byte
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", userName, uid, uid, userName, homeDir)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", userName, uid)
	entries := []entry{
		{name: "etc/", mode: 0o755},
		{name: "etc/group", mode: 0o644, body: []byte(group)},
		{name: "etc/passwd", mode: 0o644, body: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755},
		{name: "etc/ssl/certs/", mode: 0o755},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, body: ca},
		{name: "home/", mode: 0o755},
		{name: "home/skillpm/", mode: 0o755, owner: uid},
		{name: "tmp/", mode: 0o1777},
		{name: "usr/", mode: 0o755},
		{name: "usr/local/", mode: 0o755},
		{name: "usr/local/bin/", mode: 0o755},
		{name: "usr/local/bin/skillpm", mode: 0o755, body: bin},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{
			Name: e.name, Mode: e.mode, Uid: e.owner, Gid: e.owner,
			ModTime: created, Format: tar.FormatPAX,
		}
		if e.name[len(e.name)-1] == '/' {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, errors.Join(errors.New("writing the layer"), err)
	}
	return buf.Bytes(), nil
}
