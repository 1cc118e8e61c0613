package registry

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// Sentinel errors. Errors returned by this package wrap one of these, so
// callers classify them with errors.Is; the typed errors below carry the
// fields a message needs.
var (
	// ErrInvalidRef reports a reference or source that does not parse.
	ErrInvalidRef = errdef.New(errdef.Usage, "invalid reference")

	// ErrNotFound reports a repository, version, tag or blob that does not
	// exist, or a range that no published version satisfies.
	ErrNotFound = errdef.New(errdef.NotFound, "not found")

	// ErrImmutable reports an attempt to publish a version that is already
	// published with another digest. See [*ImmutableError].
	ErrImmutable = errdef.New(errdef.Validation, "published versions are immutable")

	// ErrDigestMismatch reports content whose bytes do not match the digest
	// (or size) that named it. See [*DigestMismatchError].
	ErrDigestMismatch = errdef.New(errdef.Registry, "content does not match its digest")

	// ErrTreeMismatch reports an unpacked layer whose tree hash differs from
	// the manifest's dev.skillpm.skill.tree annotation.
	ErrTreeMismatch = errdef.New(errdef.Registry, "unpacked files do not match the manifest's tree hash")

	// ErrNotSkill reports a manifest that is not a skill artifact (another
	// artifactType and config media type).
	ErrNotSkill = errdef.New(errdef.Validation, "not a skill artifact")

	// ErrInvalidArtifact reports a skill manifest that breaks the artifact
	// contract: not one tar+gzip layer, malformed annotations, bad JSON.
	ErrInvalidArtifact = errdef.New(errdef.Validation, "invalid skill artifact")

	// ErrTooLarge reports a descriptor whose size exceeds the configured
	// bound, refused before anything is downloaded.
	ErrTooLarge = errdef.New(errdef.Validation, "content exceeds the size limit")

	// ErrRegistry reports a registry or network failure that persisted
	// after the retries. See [*RequestError].
	ErrRegistry = errdef.New(errdef.Registry, "registry request failed")

	// ErrUnauthorized reports a registry that refused the request for lack
	// of (valid) credentials.
	ErrUnauthorized = errdef.New(errdef.Registry, "registry refused the credentials")

	// ErrPlainHTTP reports plain HTTP asked for a registry that is neither
	// loopback nor listed in Options.PlainHTTPHosts.
	ErrPlainHTTP = errdef.New(errdef.Usage, "plain HTTP is only for loopback registries")

	// ErrServerPlainHTTP reports a registry that answered HTTPS with plain
	// HTTP: it is reached only with plain HTTP allowed, which is only for
	// loopback registries.
	ErrServerPlainHTTP = errdef.New(errdef.Registry, "the registry speaks plain HTTP")

	// ErrInvalidOptions reports options that fail their own validation.
	ErrInvalidOptions = errdef.New(errdef.Usage, "invalid options")

	// ErrNoCatalog reports a source that cannot list its skills (a
	// registry without _catalog): name them instead.
	ErrNoCatalog = errdef.New(errdef.Usage, "the source cannot list its skills")

	// ErrNoIndex reports a source that holds no search index.
	ErrNoIndex = errdef.New(errdef.NotFound, "the source has no search index")
	// ErrNoAdvisories reports a source that holds no advisory feed.
	ErrNoAdvisories = errdef.New(errdef.NotFound, "the source has no advisory feed")

	// ErrUnverified reports a skill a mirror refused (no signature
	// verifies, or its tier is below the floor), or a search index that
	// had to be signed and no signature verifies for.
	ErrUnverified = errdef.New(errdef.Trust, "refused by verification")

	// ErrUnsignedIndex reports a search index that had to be signed and
	// that no trusted signature verifies for; it comes with ErrUnverified.
	ErrUnsignedIndex = errdef.New(errdef.Trust, "no signature on the search index verifies")

	// ErrContentMismatch reports a manifest whose annotations or config
	// disagree with the SKILL.md inside its layer. See
	// [*ContentMismatchError].
	ErrContentMismatch = errdef.New(errdef.Registry, "manifest disagrees with its layer")
)

// DigestMismatchError names where content failed verification: which
// registry and repository served it, and which digest it claimed.
type DigestMismatchError struct {
	// Registry is the registry host, or "oci-layout:DIR" for a layout.
	Registry string
	// Repository is the repository path within the registry.
	Repository string
	// Digest is the digest the content was fetched by.
	Digest string
	// Err is the verification failure (mismatched digest, trailing data,
	// short content).
	Err error
}

// Error implements error.
func (e *DigestMismatchError) Error() string {
	return fmt.Sprintf("registry %s, repository %s: blob %s does not match its digest (%v): the content was tampered with or corrupted; nothing was kept",
		e.Registry, e.Repository, e.Digest, e.Err)
}

// Unwrap makes errors.Is(err, ErrDigestMismatch) true.
func (e *DigestMismatchError) Unwrap() []error { return []error{ErrDigestMismatch, e.Err} }

// ImmutableError reports that a version is already published with another
// manifest digest.
type ImmutableError struct {
	// Repository is the repository reference.
	Repository string
	// Version is the version being published.
	Version string
	// Existing is the digest already published under the version's tag.
	Existing string
	// New is the digest that was refused.
	New string
}

// Error implements error.
func (e *ImmutableError) Error() string {
	return fmt.Sprintf("%s@%s is already published as %s, and this build is %s: bump the version (published versions are immutable)",
		e.Repository, e.Version, e.Existing, e.New)
}

// Unwrap makes errors.Is(err, ErrImmutable) true.
func (e *ImmutableError) Unwrap() error { return ErrImmutable }

// RequestError is a registry or network failure of one operation, after
// retries.
type RequestError struct {
	// Op is what was being done: "push", "pull", "list tags", "resolve".
	Op string
	// Registry is the registry host or "oci-layout:DIR".
	Registry string
	// Repository is the repository path, "" for registry-wide requests.
	Repository string
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *RequestError) Error() string {
	where := e.Registry
	if e.Repository != "" {
		where += ", repository " + e.Repository
	}
	return fmt.Sprintf("%s: registry %s: %v", e.Op, where, e.Err)
}

// Unwrap returns the cause and ErrRegistry, so errors.Is sees both.
func (e *RequestError) Unwrap() []error { return []error{ErrRegistry, e.Err} }
