package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/internal/registrytest"
	"oras.land/oras-go/v2/registry/remote"
)

// lie rewrites a's permissions annotation to "[]", keeping everything
// else: what a caller passing its own annotations would publish.
func lie(t testing.TB, a *Artifact) *Artifact {
	t.Helper()
	b := *a
	b.Manifest.Annotations = map[string]string{}
	for k, v := range a.Manifest.Annotations {
		b.Manifest.Annotations[k] = v
	}
	b.Manifest.Annotations[AnnotationPermissions] = "[]"
	mb, err := json.Marshal(b.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	b.ManifestBytes = mb
	b.Descriptor.Digest, b.Descriptor.Size = digest.FromBytes(mb), int64(len(mb))
	return &b
}

// TestPublishRefusesAnnotationsNotFromContent: Publish takes no
// annotations but the ones Build generates from the content.
func TestPublishRefusesAnnotationsNotFromContent(t *testing.T) {
	c := testClient(t, nil)
	a := build(t, writeSkill(t, t.TempDir(), skillSpec{name: "liar", version: "1.0.0", tier: "community", permissions: []string{"shell:execute"}}))
	_, err := c.Publish(context.Background(), c.Embedded(), lie(t, a), PublishOptions{})
	var ce *ContentMismatchError
	if !errors.As(err, &ce) || ce.Field != "permissions" || !strings.Contains(err.Error(), "shell:execute") {
		t.Fatalf("publish of a lying artifact: %v", err)
	}
	if _, err := c.Publish(context.Background(), c.Embedded(), a, PublishOptions{}); err != nil {
		t.Fatalf("the honest artifact: %v", err)
	}
}

// TestMirrorVerifyRefusesLyingArtifact: a signed artifact whose
// permissions annotation says [] while its layer declares shell:execute,
// pushed by hand to a real registry, is refused by mirror with Verify;
// the honest one beside it is copied.
func TestMirrorVerifyRefusesLyingArtifact(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	ctx := context.Background()
	c := remoteClient(t, nil)
	pub, _ := testKeys(t)
	src := remoteSourceFor(t, c, reg.Host)
	work := t.TempDir()
	for _, s := range []skillSpec{
		{name: "liar", version: "1.0.0", tier: "verified", permissions: []string{"shell:execute"}},
		{name: "honest", version: "1.0.0", tier: "verified", permissions: []string{"shell:execute"}},
	} {
		a := build(t, writeSkill(t, work, s))
		if s.name == "liar" {
			a = lie(t, a)
		}
		repo, err := remote.NewRepository(reg.Host + "/skills/" + s.name)
		if err != nil {
			t.Fatal(err)
		}
		repo.PlainHTTP = true
		for _, b := range []struct {
			d    ocispec.Descriptor
			data []byte
		}{{a.Manifest.Config, a.Config}, {a.Manifest.Layers[0], a.Layer}} {
			if err := repo.Push(ctx, b.d, bytes.NewReader(b.data)); err != nil {
				t.Fatal(err)
			}
		}
		if err := repo.PushReference(ctx, a.Descriptor, bytes.NewReader(a.ManifestBytes), Tag(s.version)); err != nil {
			t.Fatal(err)
		}
		r, err := c.Repository(src, s.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.AttachSignature(ctx, a.Descriptor, signWith(t, pub, a.Descriptor), AttachOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dst, err := c.Layout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	vo := VerifyOptions{Trust: trustKeys(pub)}
	res, err := c.Mirror(ctx, src, dst, MirrorOptions{Names: []string{"honest", "liar"}, Verify: &vo})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Versions {
		switch v.Name {
		case "liar":
			if v.Status != MirrorRefused || !errors.Is(v.Err, ErrContentMismatch) || !strings.Contains(v.Err.Error(), "[]") || !strings.Contains(v.Err.Error(), "shell:execute") {
				t.Errorf("liar: %s %v, want refused naming [] and shell:execute", v.Status, v.Err)
			}
		case "honest":
			if v.Status == MirrorRefused || v.Err != nil {
				t.Errorf("honest: %s %v", v.Status, v.Err)
			}
		}
	}
}
