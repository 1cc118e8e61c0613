package registry

import (
	"context"
	"crypto"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/sign"
)

// A version's status after release (yanked, deprecated) is a signed
// in-toto attestation attached to its manifest as a referrer, so mirrors
// and bundles copy it with the signatures. Finding it through the
// referrers of every version would cost a round trip per version on each
// resolution, so the newest status of a version is also tagged
// StatusTag(version): the tag list, which resolution reads anyway, says
// which versions have one. The tag is only where to look; what counts is
// the signed attestation, read and verified over the version's digest.

// Status is the predicate of a status attestation: what the publisher
// says of one version after releasing it. Each change signs the whole
// status again with Serial one higher, so the newest is the one with the
// highest Serial, whatever the registry lists first.
type Status struct {
	// Name and Version name the version, as its manifest does.
	Name    string `json:"name"`
	Version string `json:"version"`
	// Serial orders the statuses of a version, starting at 1.
	Serial int `json:"serial"`
	// Yanked withholds the version from new resolutions; a lock that
	// pins it still installs it, with a warning.
	Yanked bool `json:"yanked,omitempty"`
	// Reason says why it was yanked.
	Reason string `json:"reason,omitempty"`
	// Deprecated is the message shown wherever the version is; "" means
	// not deprecated.
	Deprecated string `json:"deprecated,omitempty"`
	// Time is when it was signed (informational: Serial orders).
	Time time.Time `json:"time"`
}

// VersionStatus is the status of a version that counts, with who signed
// it and the statuses that were found and do not count.
type VersionStatus struct {
	// Status is the newest status signed by a publisher of the version;
	// zero when there is none.
	Status
	// Signer signed Status.
	Signer *sign.Identity `json:"signer,omitempty"`
	// Ignored says, for each status attestation that does not count, why:
	// it does not verify under the trust policy, or its signer did not
	// sign the version.
	Ignored []string `json:"ignored,omitempty"`
}

// StatusChange is one version whose status was set: the new status, and
// the referrer it was attached as.
type StatusChange struct {
	// Name, Version and Digest name the version.
	Name    string `json:"name"`
	Version string `json:"version"`
	Digest  string `json:"digest"`
	// Status is what was signed.
	Status Status `json:"status"`
	// Referrer is the attestation's referrer manifest.
	Referrer string `json:"referrer"`
	// Unchanged is true when the status already said so: nothing was
	// signed.
	Unchanged bool `json:"unchanged,omitempty"`
}

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

// CheckPublisher refuses to let key change m's status unless a signature
// of m attached in r verifies with it (ErrNotPublisher): only a version's
// publisher may yank or deprecate it. It is checked before a status is
// signed, as readers ignore a status its version's signers did not sign.
func (r *Repository) CheckPublisher(ctx context.Context, m *SkillVersion, key crypto.PublicKey) error {
	set, err := r.Signatures(ctx, m.Descriptor)
	if err != nil {
		return err
	}
	res, err := sign.VerifyAll(ctx, set.Raw(), m.Descriptor.Digest, sign.VerifyOptions{PublicKeys: []crypto.PublicKey{key}})
	if err != nil {
		return err
	}
	if len(res.Verified) == 0 {
		return fmt.Errorf("%w: %s@%s (%s) is not signed by key %s: only a key that signed a version may change its status", ErrNotPublisher, m.Metadata.Name, m.Metadata.Version, m.Descriptor.Digest, sign.Fingerprint(key))
	}
	return nil
}
