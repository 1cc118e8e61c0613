package registry

import (
	"context"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// A recorded listing is a hint for its own repository and subject only,
// and what is read through it is checked like a listing's: a referrer of
// another subject is unreadable, never a signature.
func TestKnownReferrers(t *testing.T) {
	ctx := context.Background()
	c := testClient(t, nil)
	src, err := c.Layout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	publisher, _ := testKeys(t)
	work := t.TempDir()
	alpha := publish(t, c, src, writeSkill(t, work, skillSpec{name: "alpha", version: "1.0.0"}), PublishOptions{})
	beta := publish(t, c, src, writeSkill(t, work, skillSpec{name: "beta", version: "1.0.0"}), PublishOptions{})
	repoA, _ := c.Repository(src, "alpha")
	repoB, _ := c.Repository(src, "beta")
	bundle := signWith(t, publisher, alpha.Descriptor)
	ref, err := repoA.AttachSignature(ctx, alpha.Descriptor, bundle, AttachOptions{})
	if err != nil {
		t.Fatal(err)
	}

	if _, ok := repoA.KnownReferrers(alpha.Descriptor.Digest); ok {
		t.Fatal("a listing is known before one was recorded")
	}
	if err := repoA.RememberReferrers(alpha.Descriptor.Digest, []ocispec.Descriptor{ref}); err != nil {
		t.Fatal(err)
	}
	refs, ok := repoA.KnownReferrers(alpha.Descriptor.Digest)
	if !ok || len(refs) != 1 || refs[0].Digest != ref.Digest {
		t.Fatalf("known referrers %v, %v; want %s", refs, ok, ref.Digest)
	}
	if _, ok := repoB.KnownReferrers(alpha.Descriptor.Digest); ok {
		t.Error("another repository's record was used")
	}
	if _, ok := repoA.KnownReferrers(beta.Descriptor.Digest); ok {
		t.Error("another subject's record was used")
	}

	set, err := repoA.SignaturesFrom(ctx, alpha.Descriptor, refs)
	if err != nil || len(set.Bundles) != 1 || string(set.Bundles[0].Bundle) != string(bundle) {
		t.Fatalf("signatures from the record: %+v, %v", set, err)
	}
	b, err := repoA.ReferrerBundle(ctx, ref)
	if err != nil || b.Digest != digest.FromBytes(bundle) || b.Size != int64(len(bundle)) {
		t.Errorf("the referrer's bundle: %v, %v; want %s", b.Digest, err, digest.FromBytes(bundle))
	}
	// alpha's signature offered as beta's: about another subject.
	other, err := repoA.SignaturesFrom(ctx, beta.Descriptor, refs)
	if err != nil || len(other.Bundles) != 0 || len(other.Unreadable) != 1 {
		t.Errorf("alpha's referrer read as beta's: %+v, %v; want it unreadable", other, err)
	}
}
