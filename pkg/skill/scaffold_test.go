package skill

import (
	"context"
	"path/filepath"
	"testing"
)

// TestScaffoldPublishRules: init's skill claims the tier asked for and is
// refused for publishing only for its placeholder description.
func TestScaffoldPublishRules(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "web-notes")
	if err := ScaffoldWith(ctx, dir, ScaffoldOptions{Tier: "community"}); err != nil {
		t.Fatal(err)
	}
	s, ds := Load(ctx, dir, Options{Mode: Strict})
	if ds.HasErrors() || s.Gaia.SecurityTier != "community" || s.Version != "0.1.0" {
		t.Fatalf("tier %q version %q:\n%s", s.Gaia.SecurityTier, s.Version, render(ds))
	}
	_, ds = Load(ctx, dir, Options{Mode: Strict, Publish: true})
	if len(ds.Errors()) != 1 || !ds.Has(CodeDescriptionPlaceholder) {
		t.Fatalf("publish rules:\n%s", render(ds))
	}
	if err := ScaffoldWith(ctx, filepath.Join(t.TempDir(), "x"), ScaffoldOptions{Tier: "gold"}); err == nil {
		t.Fatal("tier gold accepted")
	}
}
