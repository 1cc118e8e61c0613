package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// What a registry lists (a repository's tags, a manifest's referrers) and
// which manifest a tag names cannot be checked against a digest, so the
// content cache cannot hold them. An offline client (Options.Offline)
// still needs them to resolve a range or to find a version's signatures,
// so every listing a client reads from a registry is also kept, as the
// registry gave it, under <cache>/listings. Only an offline client reads
// them back, and what they name is still fetched by digest and verified:
// signatures and digests are checked on the bytes, so a listing kept here
// can make an offline answer stale (a version published since is not
// seen) but never makes anything trusted.

// listingsDir is the folder of kept listings inside the content cache.
const listingsDir = "listings"

// maxListingBytes bounds a kept listing when it is read back: a listing
// is bounded when it is read from a registry (Limits.MaxPages pages of at
// most MaxManifestBytes), a kept one by the same order of size.
const maxListingBytes = 64 << 20

// listing is the file kept for one listing.
type listing struct {
	// Key says what was listed ("tags REPO", "tag REPO:TAG",
	// "referrers REPO@DIGEST TYPE"): a file whose key differs (a hash
	// collision, a hand edit) answers nothing.
	Key string `json:"key"`
	// Time is when the registry gave it.
	Time time.Time `json:"time"`
	// Tags is a tag list.
	Tags []string `json:"tags,omitempty"`
	// Descriptors are referrers, or the one manifest a tag names.
	Descriptors []ocispec.Descriptor `json:"descriptors,omitempty"`
}

func (c *Client) listingPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(c.opts.CacheDir, listingsDir, hex.EncodeToString(sum[:]))
}

// keepListing keeps l for an offline client. Failing to keep it costs a
// later offline command an answer, never this one: it is logged only.
func (c *Client) keepListing(ctx context.Context, l listing) {
	if c.opts.Offline {
		return
	}
	l.Time = time.Now().UTC()
	if err := c.writeListing(l); err != nil {
		c.log().LogAttrs(ctx, slog.LevelDebug, "listing not kept", slog.String("listing", l.Key), slog.String("cause", err.Error()))
	}
}

func (c *Client) writeListing(l listing) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	p := c.listingPath(l.Key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// keptListing returns the listing kept under key when the client is
// offline; ok is false when it is online or nothing usable is kept (the
// caller then asks, and offline that fails naming the request).
func (c *Client) keptListing(key string) (l listing, ok bool) {
	if !c.opts.Offline {
		return listing{}, false
	}
	p := c.listingPath(key)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxListingBytes {
		return listing{}, false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return listing{}, false
	}
	if err := json.Unmarshal(data, &l); err != nil || l.Key != key {
		return listing{}, false
	}
	return l, true
}
