package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
	"oras.land/oras-go/v2/registry/remote"
)

// TestVerifyFindsSignatureAmongJunkReferrers: 1,000 junk signature
// referrers, all claiming to be newer, are attached to a skill on a real
// distribution registry before its one real signature. verify used to
// read the first 256 and report 0 verified: a squatter could demote any
// skill. The real signature is now found, and the junk is counted.
func TestVerifyFindsSignatureAmongJunkReferrers(t *testing.T) {
	// In memory: the registry does not fsync 1,000 pushes.
	reg := registrytest.Start(t, registrytest.Options{InMemory: true})
	ctx := context.Background()
	c := remoteClient(t, nil)
	pub, _ := testKeys(t)
	src := remoteSourceFor(t, c, reg.Host)
	a := build(t, writeSkill(t, t.TempDir(), skillSpec{name: "flooded", version: "1.0.0", tier: "verified"}))
	if _, err := c.Publish(ctx, src, a, PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	repo, err := remote.NewRepository(reg.Host + "/skills/flooded")
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	// Pushed as to a registry with the referrers API, so that the one
	// index listing them all is written once below, not once per push.
	if err := repo.SetReferrersCapability(true); err != nil {
		t.Fatal(err)
	}
	junk := []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`)
	junkDesc := ocispec.Descriptor{MediaType: sign.BundleMediaType, Digest: digest.FromBytes(junk), Size: int64(len(junk))}
	if err := repo.Push(ctx, junkDesc, bytes.NewReader(junk)); err != nil {
		t.Fatal(err)
	}
	empty := []byte("{}")
	emptyDesc := ocispec.Descriptor{MediaType: ocispec.MediaTypeEmptyJSON, Digest: digest.FromBytes(empty), Size: 2}
	if err := repo.Push(ctx, emptyDesc, bytes.NewReader(empty)); err != nil {
		t.Fatal(err)
	}
	const flood = 1000
	idx := ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex}
	subject := a.Descriptor
	subject.Annotations, subject.ArtifactType = nil, ""
	for i := range flood {
		ann := map[string]string{
			sign.AnnotationBundlePredicateType: sign.PredicateType,
			ocispec.AnnotationCreated:          fmt.Sprintf("2099-01-01T00:%02d:%02dZ", i/60%60, i%60),
			"junk":                             fmt.Sprint(i),
		}
		m := ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
			ArtifactType: sign.BundleMediaType, Config: emptyDesc, Layers: []ocispec.Descriptor{junkDesc}, Subject: &subject, Annotations: ann}
		mb, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(mb), Size: int64(len(mb))}
		if err := repo.Push(ctx, d, bytes.NewReader(mb)); err != nil {
			t.Fatal(err)
		}
		d.ArtifactType, d.Annotations = sign.BundleMediaType, ann
		idx.Manifests = append(idx.Manifests, d)
	}
	ib, err := json.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	id := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: digest.FromBytes(ib), Size: int64(len(ib))}
	if err := repo.PushReference(ctx, id, bytes.NewReader(ib), strings.Replace(a.Descriptor.Digest.String(), ":", "-", 1)); err != nil {
		t.Fatal(err)
	}
	// The one real signature, attached last, through the tag schema.
	r, err := c.Repository(src, "flooded")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.AttachSignature(ctx, a.Descriptor, signWith(t, pub, a.Descriptor), AttachOptions{}); err != nil {
		t.Fatal(err)
	}
	fresh := freshClient(t, c)
	fr, err := fresh.Repository(src, "flooded")
	if err != nil {
		t.Fatal(err)
	}
	sel, _ := source.ParseSelector("1.0.0")
	m, err := fr.Get(ctx, sel, false)
	if err != nil {
		t.Fatal(err)
	}
	v, err := fr.VerifySignatures(ctx, m, trustKeys(pub))
	if err != nil {
		t.Fatal(err)
	}
	if v.Verified() != 1 || len(v.Signers) != 1 {
		t.Fatalf("%d verified, %d failed, signers %v: the real signature is lost among %d junk referrers", v.Verified(), len(v.Failures()), v.Signers, flood)
	}
	if n := len(v.Failures()); n != flood {
		t.Errorf("%d failures reported, want the %d junk referrers", n, flood)
	}
}

// TestJunkCannotCrowdOutSignatures: 4,200 junk bundle referrers dated in
// the future, and 4,200 more listed without their type, against one real
// signature dated now: the real one is within the MaxSignatures read.
// Reading 8,400 referrers from a registry costs too long for every run,
// so the order is checked on the listing, as bundles reads it.
func TestJunkCannotCrowdOutSignatures(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	real := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: sign.BundleMediaType, Digest: digest.FromString("real"),
		Annotations: map[string]string{sign.AnnotationBundlePredicateType: sign.PredicateType, ocispec.AnnotationCreated: now.Add(-time.Hour).Format(time.RFC3339)}}
	var cands []ocispec.Descriptor
	for i := range 4200 {
		cands = append(cands,
			ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: sign.BundleMediaType, Digest: digest.FromString(fmt.Sprint("future", i)),
				Annotations: map[string]string{sign.AnnotationBundlePredicateType: sign.PredicateType, ocispec.AnnotationCreated: "2099-01-01T00:00:00Z"}},
			ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString(fmt.Sprint("untyped", i)),
				Annotations: map[string]string{ocispec.AnnotationCreated: now.Format(time.RFC3339)}})
	}
	cands = append(cands, real)
	orderCandidates(cands, sign.PredicateType, now)
	at := slices.IndexFunc(cands, func(d ocispec.Descriptor) bool { return d.Digest == real.Digest })
	if at < 0 || at >= MaxSignatures {
		t.Fatalf("the real signature is read %dth, past the %d read", at, MaxSignatures)
	}
	if at != 0 {
		t.Errorf("the real signature is read %dth, want first", at)
	}
	// Honest signatures keep newest-first among themselves.
	older := real
	older.Digest, older.Annotations = digest.FromString("older"), map[string]string{sign.AnnotationBundlePredicateType: sign.PredicateType, ocispec.AnnotationCreated: now.Add(-48 * time.Hour).Format(time.RFC3339)}
	two := []ocispec.Descriptor{older, real}
	orderCandidates(two, sign.PredicateType, now)
	if two[0].Digest != real.Digest {
		t.Errorf("honest signatures are not newest first: %v", two)
	}
}
