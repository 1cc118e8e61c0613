package advisory

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/tiers"
)

// TestCheckUnsignedFeed: a feed pushed without a signature is reported
// (ErrUntrustedFeed, saying it is not signed) and never obeyed (no Index),
// even though it parses and names a malicious version.
func TestCheckUnsignedFeed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, err := registry.New(registry.Options{CacheDir: filepath.Join(dir, "cache"), EmbeddedDir: filepath.Join(dir, "registry")})
	if err != nil {
		t.Fatal(err)
	}
	src := c.Embedded()
	if _, _, err := c.PushAdvisories(ctx, src, feedOf(malicious)); err != nil {
		t.Fatal(err)
	}
	ch, err := Check(ctx, c, src, CheckOptions{Policy: &tiers.Policy{}})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Digest == "" {
		t.Fatal("the pushed feed was not found")
	}
	if !errors.Is(ch.Problem, ErrUntrustedFeed) || ch.Index != nil || ch.Feed != nil {
		t.Fatalf("unsigned feed: problem %v, index %v, feed %v; want ErrUntrustedFeed and nothing obeyed", ch.Problem, ch.Index, ch.Feed)
	}
}
