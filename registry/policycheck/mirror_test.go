package policycheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"oras.land/oras-go/v2/registry/remote"
)

// lie rewrites a's permissions annotation to "[]", keeping everything
// else: what a caller passing its own annotations would publish.
func lie(t testing.TB, a *registry.Artifact) *registry.Artifact {
	t.Helper()
	b := *a
	b.Manifest.Annotations = map[string]string{}
	for k, v := range a.Manifest.Annotations {
		b.Manifest.Annotations[k] = v
	}
	b.Manifest.Annotations[registry.AnnotationPermissions] = "[]"
	mb, err := json.Marshal(b.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	b.ManifestBytes = mb
	b.Descriptor.Digest, b.Descriptor.Size = digest.FromBytes(mb), int64(len(mb))
	return &b
}

// TestMirrorCheckRefusesLyingArtifact: a signed artifact whose
// permissions annotation says [] while its layer declares shell:execute,
// pushed by hand to a real registry, is refused by a mirror with MirrorCheck;
// the honest one beside it is copied.
func TestMirrorCheckRefusesLyingArtifact(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	ctx := context.Background()
	c := testClient(t)
	pub, _ := testKeys(t)
	src, err := c.Remote(reg.Host + "/skills")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"liar", "honest"} {
		a := build(t, name, "1.0.0", "verified", "shell:execute")
		if name == "liar" {
			a = lie(t, a)
		}
		repo, err := remote.NewRepository(reg.Host + "/skills/" + name)
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
		if err := repo.PushReference(ctx, a.Descriptor, bytes.NewReader(a.ManifestBytes), registry.Tag("1.0.0")); err != nil {
			t.Fatal(err)
		}
		r, err := c.Repository(src, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.AttachSignature(ctx, a.Descriptor, signWith(t, pub, a.Descriptor), registry.AttachOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dst, err := c.Layout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Mirror(ctx, src, dst, registry.MirrorOptions{Names: []string{"honest", "liar"}, Verify: MirrorCheck(VerifyOptions{Trust: trustKeys(pub)})})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Versions {
		switch v.Name {
		case "liar":
			if v.Status != registry.MirrorRefused || !errors.Is(v.Err, registry.ErrContentMismatch) || !errors.Is(v.Err, registry.ErrUnverified) || !strings.Contains(v.Err.Error(), "[]") || !strings.Contains(v.Err.Error(), "shell:execute") {
				t.Errorf("liar: %s %v, want refused naming [] and shell:execute", v.Status, v.Err)
			}
		case "honest":
			if v.Status != registry.MirrorCopied || v.Err != nil || v.Tier != "experimental" {
				t.Errorf("honest: %s %v", v.Status, v.Err)
			}
		}
	}
}

// TestMirrorCheckTiers: under a policy where the publisher attests
// community and the auditor verified, a mirror with MinTier verified
// copies the countersigned skill at verified, refuses the one only the
// publisher signed as below the minimum and the unsigned one as
// unverified.
func TestMirrorCheckTiers(t *testing.T) {
	ctx := context.Background()
	c := testClient(t)
	publisher, auditor := testKeys(t)
	src, _ := c.Layout(filepath.Join(t.TempDir(), "src"))
	publish(t, c, src, build(t, "audited", "1.0.0", "verified"), publisher, auditor)
	publish(t, c, src, build(t, "published", "1.0.0", "verified"), publisher)
	publish(t, c, src, build(t, "unsigned", "1.0.0", "verified"))
	dst, _ := c.Layout(filepath.Join(t.TempDir(), "dst"))
	check := MirrorCheck(VerifyOptions{Trust: trustKeys(publisher, auditor), Policy: marketplacePolicy(t, publisher, auditor)})
	res, err := c.Mirror(ctx, src, dst, registry.MirrorOptions{Names: []string{"audited", "published", "unsigned"}, MinTier: "verified", Verify: check})
	if err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	want := map[string]struct {
		status registry.MirrorStatus
		tier   string
		why    string
	}{
		"audited":   {registry.MirrorCopied, "verified", ""},
		"published": {registry.MirrorRefused, "community", "below the minimum tier verified"},
		"unsigned":  {registry.MirrorRefused, "experimental", "no signature verifies"},
	}
	for _, v := range res.Versions {
		w := want[v.Name]
		if v.Status != w.status || string(v.Tier) != w.tier || w.why != "" && (!errors.Is(v.Err, registry.ErrUnverified) || !strings.Contains(v.Err.Error(), w.why)) {
			t.Errorf("%s: %s at %q (%v), want %s at %s (%s)", v.Name, v.Status, v.Tier, v.Err, w.status, w.tier, w.why)
		}
	}
	if got, _ := c.SourceNames(ctx, dst); len(got) != 1 || got[0] != "audited" {
		t.Errorf("the destination holds %v, want only audited", got)
	}
}
