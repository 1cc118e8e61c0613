package registry

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/source"
)

// Sentinel errors. Errors returned by this package wrap one of these, so
// callers classify them with errors.Is; the typed errors below carry the
// fields a message needs.
var (
	// ErrInvalidRef reports a reference or source that does not parse or
	// that the registry cannot open. It is the grammar's sentinel
	// (source.ErrInvalidRef): a reference refused by the parser and one
	// refused here are one error to callers.
	ErrInvalidRef = source.ErrInvalidRef

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

	// ErrUnresponsive reports a registry that did not answer, or stopped
	// answering, within the timeouts. See [*NetError].
	ErrUnresponsive = errdef.New(errdef.Registry, "the registry did not answer in time")

	// ErrUnreachable reports a registry that cannot be reached: a refused
	// connection, a name that does not resolve, a failed TLS handshake, a
	// connection reset. See [*NetError].
	ErrUnreachable = errdef.New(errdef.Registry, "the registry cannot be reached")

	// ErrHostile reports a registry whose answers would make skillpm work
	// without end: a listing that loops or runs past its page bound.
	ErrHostile = errdef.New(errdef.Registry, "the registry's answers exceed skillpm's bounds")

	// ErrOffline reports a request an offline client did not send:
	// nothing cached answers it. See [*NetError].
	ErrOffline = errdef.New(errdef.Registry, "offline, and not in the caches")

	// ErrUnauthorized reports a registry that refused the request for lack
	// of (valid) credentials.
	ErrUnauthorized = errdef.New(errdef.Registry, "registry refused the credentials")

	// ErrPlainHTTP reports plain HTTP asked for a registry that is neither
	// loopback nor listed in Options.PlainHTTPRegistries.
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

	// ErrNotPublisher means a status change (yank, deprecate) was to be
	// signed with a key that did not sign the version
	// ([Repository.CheckPublisher]): only its publisher may change it.
	ErrNotPublisher = errdef.New(errdef.Trust, "not the publisher")
	// ErrAttestationNotAttached means an audit attestation was signed but
	// attaching it to the version failed; signing again is safe.
	ErrAttestationNotAttached = errdef.New(errdef.Registry, "the audit attestation is signed but could not be attached")
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

// Error implements error. A network failure already names the registry
// and the request, so it is the whole message: one line, with no Go
// error chain (Get "https://...": dial tcp ...) around it.
func (e *RequestError) Error() string {
	var ne *NetError
	if errors.As(e.Err, &ne) {
		return ne.Error()
	}
	var ae *AuthError
	if errors.As(e.Err, &ae) {
		return ae.Error()
	}
	where := e.Registry
	if e.Repository != "" {
		where += ", repository " + e.Repository
	}
	return fmt.Sprintf("%s: registry %s: %v", e.Op, where, e.Err)
}

// Unwrap returns the cause and ErrRegistry, so errors.Is sees both.
func (e *RequestError) Unwrap() []error { return []error{ErrRegistry, e.Err} }

// NetErrorKind says how a registry failed to answer.
type NetErrorKind int

// The ways a registry fails to answer, as NetError reports them.
const (
	// KindTimeout is a request sent and no response headers within the
	// timeout: a registry that accepts connections and never answers.
	KindTimeout NetErrorKind = iota + 1
	// KindStall is a response whose body stopped moving for the timeout.
	KindStall
	// KindSlow is a small response (not a blob) that took longer than
	// Timeouts.Response in all, however it trickled.
	KindSlow
	// KindConnectTimeout is a connection not accepted within the timeout.
	KindConnectTimeout
	// KindRefused is a connection refused: nothing listens on the port.
	KindRefused
	// KindUnknownHostname is a host name that does not resolve.
	KindUnknownHostname
	// KindReset is a connection closed or reset before the answer ended.
	KindReset
	// KindPlainHTTP is a registry that answered HTTPS with plain HTTP.
	KindPlainHTTP
	// KindTLS is a TLS handshake that failed: an untrusted or wrong
	// certificate, or not TLS at all.
	KindTLS
	// KindStatus is an error status (5xx, 429) that persisted after the
	// retries.
	KindStatus
	// KindRedirects is a request redirected more than maxRedirects times.
	KindRedirects
	// KindOffline is a request not sent because the client is offline
	// (Options.Offline): nothing cached answered it.
	KindOffline
)

// NetError is a registry that did not answer one request, after the
// retries the failure allowed: it names the registry, the request and
// the cause, in one line.
type NetError struct {
	// Kind is how it failed.
	Kind NetErrorKind
	// Registry is the host ("host:port") the request went to.
	Registry string
	// Method and Path are the request's ("GET", "/v2/x/tags/list").
	Method, Path string
	// After is the timeout that ran out, for the timeout kinds.
	After time.Duration
	// Status is the HTTP status of KindStatus, and Codes the registry's
	// error codes and messages, rendered.
	Status int
	Codes  string
	// Earlier is true when the request was not sent: the registry had
	// already timed out on another request of this process.
	Earlier bool
	// Err is the underlying error; nil when a timeout of skillpm's own
	// ended the request.
	Err error
}

// Error implements error.
func (e *NetError) Error() string {
	req := e.Method + " " + e.Path
	var s string
	switch e.Kind {
	case KindTimeout:
		s = fmt.Sprintf("registry %s did not answer %s within %s: is the registry running, and reachable from here?", e.Registry, req, e.After)
	case KindStall:
		s = fmt.Sprintf("registry %s stopped sending its answer to %s: no data for %s", e.Registry, req, e.After)
	case KindSlow:
		s = fmt.Sprintf("registry %s took more than %s to send its answer to %s", e.Registry, e.After, req)
	case KindConnectTimeout:
		s = fmt.Sprintf("registry %s did not accept a connection within %s (%s): is the host up and the port open?", e.Registry, e.After, req)
	case KindRefused:
		s = fmt.Sprintf("registry %s refused the connection (%s): is the registry running, on that port?", e.Registry, req)
	case KindUnknownHostname:
		s = fmt.Sprintf("registry %s: no such host (%s): is the name spelled right?", e.Registry, req)
	case KindReset:
		s = fmt.Sprintf("registry %s closed the connection during %s", e.Registry, req)
	case KindPlainHTTP:
		s = fmt.Sprintf("registry %s answered HTTPS with plain HTTP (%s)", e.Registry, req)
	case KindTLS:
		s = fmt.Sprintf("registry %s: TLS failed (%s): %v", e.Registry, req, tlsCause(e.Err))
	case KindStatus:
		s = fmt.Sprintf("registry %s answered %s with %d %s", e.Registry, req, e.Status, http.StatusText(e.Status))
		if e.Codes != "" {
			s += ": " + e.Codes
		}
	case KindOffline:
		s = fmt.Sprintf("offline: %s %s at registry %s is not in the caches", e.Method, e.Path, e.Registry)
	case KindRedirects:
		s = fmt.Sprintf("registry %s redirected %s more than %d times: a redirect loop", e.Registry, req, maxRedirects)
	default:
		s = fmt.Sprintf("registry %s: %s: %v", e.Registry, req, e.Err)
	}
	if e.Earlier {
		s += " (not asked again in this run)"
	}
	return s
}

// Unwrap returns the sentinel of the kind (ErrUnresponsive,
// ErrUnreachable or ErrServerPlainHTTP) and the cause.
func (e *NetError) Unwrap() []error {
	s := ErrUnreachable
	switch e.Kind {
	case KindTimeout, KindStall, KindSlow, KindConnectTimeout:
		s = ErrUnresponsive
	case KindPlainHTTP:
		s = ErrServerPlainHTTP
	case KindStatus, KindRedirects:
		s = ErrRegistry
	case KindOffline:
		s = ErrOffline
	}
	if e.Err == nil {
		return []error{s}
	}
	return []error{s, e.Err}
}

// Class is errdef.Registry: whatever the kind, the network or the
// registry failed.
func (e *NetError) Class() errdef.Class { return errdef.Registry }

// Timeout reports the kinds a timeout ended.
func (e *NetError) Timeout() bool { return e.timedOut() }

func (e *NetError) timedOut() bool {
	switch e.Kind {
	case KindTimeout, KindStall, KindSlow, KindConnectTimeout:
		return true
	}
	return false
}

// transient reports whether another try may get an answer.
func (e *NetError) transient() bool {
	switch e.Kind {
	case KindTimeout, KindStall, KindSlow, KindConnectTimeout, KindReset:
		return !e.Earlier
	}
	return false
}

// again is e as the answer to a request not sent because of it.
func (e *NetError) again() *NetError {
	c := *e
	c.Earlier = true
	return &c
}

// AuthError is a registry that refused a request for its credentials:
// none stored, wrong ones, or ones without access to the repository.
type AuthError struct {
	// Registry and Repository are where the request went.
	Registry, Repository string
	// Status is the HTTP status: 401 or 403.
	Status int
	// Method and Path are the refused request's, when known.
	Method, Path string
	// Stored is true when credentials for Registry were stored and sent.
	Stored bool
	// Err is the registry's answer.
	Err error
}

// Error implements error: one line, the registry's own error codes
// without their Go formatting.
func (e *AuthError) Error() string {
	on := ""
	if e.Method != "" {
		on = " on " + e.Method + " " + e.Path
	}
	status := fmt.Sprintf("%d %s%s", e.Status, http.StatusText(e.Status), on)
	switch {
	case e.Status == http.StatusForbidden:
		return fmt.Sprintf("registry %s denied access to repository %s (%s): the credentials stored for it do not allow this; run skillpm login %s with an account that may", e.Registry, e.Repository, status, e.Registry)
	case e.Stored:
		return fmt.Sprintf("registry %s refused the credentials stored for it (%s): they are wrong or expired; run skillpm login %s again", e.Registry, status, e.Registry)
	}
	return fmt.Sprintf("registry %s needs credentials for repository %s (%s) and none are stored for it: run skillpm login %s", e.Registry, e.Repository, status, e.Registry)
}

// Unwrap makes errors.Is(err, ErrUnauthorized) true.
func (e *AuthError) Unwrap() []error { return []error{ErrUnauthorized, e.Err} }
