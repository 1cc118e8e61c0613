package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// A version's status after release (yanked, deprecated) is a signed
// in-toto attestation attached to its manifest as a referrer, so mirrors
// and bundles copy it with the signatures. Finding it through the
// referrers of every version would cost a round trip per version on each
// resolution, so the newest status of a version is also tagged
// StatusTag(version): the tag list, which resolution reads anyway, says
// which versions have one. The tag is only where to look; what counts is
// the signed attestation, read and verified over the version's digest.

// StatusTagPrefix starts the tag of a version's status attestation. A tag
// with it never parses as a version ([VersionFromTag]).
const StatusTagPrefix = "status-"

// StatusTag is the tag of the status attestation of version.
func StatusTag(version string) string { return StatusTagPrefix + Tag(version) }

// StatusVersions returns the versions (as tags give them, "_" read as
// "+") that tags hold a status tag for.
func StatusVersions(tags []string) map[string]bool {
	out := map[string]bool{}
	for _, t := range tags {
		if rest, ok := strings.CutPrefix(t, StatusTagPrefix); ok {
			if v := VersionFromTag(rest); v != nil {
				out[v.Original()] = true
			}
		}
	}
	return out
}

// TagStatus tags desc, a status attestation referrer of version, as
// StatusTag(version), replacing the tag of an older status.
func (r *Repository) TagStatus(ctx context.Context, desc ocispec.Descriptor, version string) error {
	if VersionFromTag(Tag(version)) == nil {
		return fmt.Errorf("%s: %w: %q is not a version", r.loc, ErrInvalidRef, version)
	}
	st, release, err := r.src.OpenWrite(ctx, r.name)
	if err != nil {
		return r.fail("tag status", err)
	}
	defer release()
	defer r.c.forget(r.loc.String())
	return r.fail("tag status", st.Tag(ctx, desc, StatusTag(version)))
}

// statusTag copies version's status tag, when the source has one, so that
// resolution against the copy sees the yank; the attestation it points to
// is a referrer of the version, which the version's copy carried.
func (cp *copier) statusTag(ctx context.Context, version string) error {
	tags, err := cp.repo.Tags(ctx)
	if err != nil {
		return err
	}
	tag := StatusTag(version)
	if !slices.Contains(tags, tag) {
		return nil
	}
	desc, raw, err := cp.fetchTag(ctx, tag)
	if err != nil {
		return err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("%s:%s: %w: %v", cp.repo.loc, tag, ErrInvalidArtifact, err)
	}
	if err := cp.open(ctx); err != nil {
		return err
	}
	_, err = cp.manifest(ctx, desc, raw, m, tag, false)
	return err
}
