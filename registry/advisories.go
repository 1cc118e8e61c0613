package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// The advisory feed artifact: one JSON document (registry/advisory reads
// it) in a repository of its own beside the skills, signed like a skill.
const (
	// AdvisoriesRepository is the repository of a source's advisory feed:
	// <source>/skillpm-advisories.
	AdvisoriesRepository = "skillpm-advisories"
	// AdvisoriesTag is the tag the feed is pushed under.
	AdvisoriesTag = "latest"
	// AdvisoriesArtifactType is the feed manifest's artifactType.
	AdvisoriesArtifactType = "application/vnd.skillpm.advisories.v1"
	// AdvisoriesMediaType is the media type of its one JSON layer.
	AdvisoriesMediaType = "application/vnd.skillpm.advisories.v1+json"
	// AdvisoriesTitle is the layer's org.opencontainers.image.title.
	AdvisoriesTitle = "skillpm-advisories.json"
	// MaxAdvisoriesBytes bounds the feed layer read.
	MaxAdvisoriesBytes = 64 << 20
)

// PushAdvisories writes data, an advisory feed document, to src as the
// feed artifact (repository AdvisoriesRepository, tag AdvisoriesTag) and
// returns the repository and the manifest's descriptor, to be signed.
func (c *Client) PushAdvisories(ctx context.Context, src Source, data []byte) (*Repository, ocispec.Descriptor, error) {
	if len(data) == 0 || len(data) > MaxAdvisoriesBytes {
		return nil, ocispec.Descriptor{}, fmt.Errorf("%w: an advisory feed holds 1 to %d bytes, not %d", ErrTooLarge, MaxAdvisoriesBytes, len(data))
	}
	repo, err := c.Repository(src, AdvisoriesRepository)
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	desc, err := c.pushArtifact(ctx, src, AdvisoriesRepository, artifactFile{op: "push advisories",
		mediaType: AdvisoriesMediaType, artifactType: AdvisoriesArtifactType, title: AdvisoriesTitle, tag: AdvisoriesTag}, data)
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	return repo, desc, nil
}

// FetchAdvisories reads src's advisory feed: the tag is resolved every
// time (it moves with each publication), the manifest and the document
// are read by digest and checked against it. It returns the document's
// bytes, the manifest descriptor (what the feed's signatures sign) and the
// repository. A source without a feed is ErrNoAdvisories.
func (c *Client) FetchAdvisories(ctx context.Context, src Source) ([]byte, ocispec.Descriptor, *Repository, error) {
	repo, err := c.Repository(src, AdvisoriesRepository)
	if err != nil {
		return nil, ocispec.Descriptor{}, nil, err
	}
	// Resolved as a version's tag is: kept for an offline reader, which
	// then checks the feed it last read (signatures and expiry included).
	desc, err := repo.resolveTag(ctx, AdvisoriesTag)
	if err != nil {
		if isNotFound(err) || errors.Is(err, ErrNotFound) {
			return nil, ocispec.Descriptor{}, nil, fmt.Errorf("%s: %w (no %s:%s)", src, ErrNoAdvisories, loc(src), AdvisoriesTag)
		}
		return nil, ocispec.Descriptor{}, nil, err
	}
	at := fmt.Sprintf("%s@%s", repo.loc, desc.Digest)
	raw, err := repo.fetchBytes(ctx, desc, c.opts.Limits.MaxManifestBytes, "advisories manifest")
	if err != nil {
		return nil, ocispec.Descriptor{}, nil, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, ocispec.Descriptor{}, nil, fmt.Errorf("%s: %w: %v", at, ErrInvalidArtifact, err)
	}
	if m.ArtifactType != AdvisoriesArtifactType || len(m.Layers) != 1 || m.Layers[0].MediaType != AdvisoriesMediaType {
		return nil, ocispec.Descriptor{}, nil, fmt.Errorf("%s: %w: not a skillpm advisory feed (artifactType %q)", at, ErrInvalidArtifact, m.ArtifactType)
	}
	data, err := repo.fetchBytes(ctx, m.Layers[0], MaxAdvisoriesBytes, "advisories")
	if err != nil {
		return nil, ocispec.Descriptor{}, nil, err
	}
	return data, desc, repo, nil
}

func loc(src Source) Location { return src.Locate(AdvisoriesRepository) }

// CopyAdvisories copies src's advisory feed, its manifest byte for byte
// (so its signatures still verify) with every signature referrer, to dst,
// as mirror and bundle do: a bundle checked offline is checked against
// the feed it was made with, which its expiry still bounds. copied is
// false when src has no feed.
func (c *Client) CopyAdvisories(ctx context.Context, src, dst Source) (copied bool, err error) {
	_, desc, repo, err := c.FetchAdvisories(ctx, src)
	if errors.Is(err, ErrNoAdvisories) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	set, err := repo.Signatures(ctx, desc)
	if err != nil {
		return false, err
	}
	cp, err := c.openCopy(ctx, repo, dst)
	if err != nil {
		return false, err
	}
	defer cp.release()
	if err := cp.open(ctx); err != nil {
		return false, err
	}
	push := func(d ocispec.Descriptor, tag string) error {
		d = ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: d.Digest, Size: d.Size}
		raw, err := repo.fetchBytes(ctx, d, c.opts.Limits.MaxManifestBytes, "advisories manifest")
		if err != nil {
			return err
		}
		var m ocispec.Manifest
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%s@%s: %w: %v", repo.loc, d.Digest, ErrInvalidArtifact, err)
		}
		_, err = cp.manifest(ctx, d, raw, m, tag, false)
		return err
	}
	if err := push(desc, AdvisoriesTag); err != nil {
		return false, err
	}
	for _, b := range set.Bundles {
		if err := push(b.Referrer, ""); err != nil {
			return false, err
		}
	}
	return true, nil
}
