package registry

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
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
