package registry

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"oras.land/oras-go/v2/registry/remote/errcode"
)

// RetryPolicy bounds the retries of one request (and of one blob transfer
// that fails midway): exponential backoff from MinWait, doubling, with 20%
// jitter, capped at MaxWait, at most MaxRetries times after the first try.
// A 429's or 503's Retry-After is honoured up to MaxRetryAfter; a
// registry asking for a longer wait is given up at once, so a command
// never sleeps longer than its user would accept. A request that timed
// out (no answer, no connection) is retried once at most: a black hole
// does not answer the second time either, and each try costs a whole
// timeout.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// MinWait is the first backoff.
	MinWait time.Duration
	// MaxWait caps every backoff.
	MaxWait time.Duration
	// MaxRetryAfter caps the Retry-After a registry may ask for; 0 means
	// MaxWait.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy returns 5 retries, waiting 250ms, 500ms, 1s, 2s and 3s
// (each ±20%): about 7 seconds before a registry is given up. A
// Retry-After up to 10s is honoured.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 5, MinWait: 250 * time.Millisecond, MaxWait: 3 * time.Second, MaxRetryAfter: 10 * time.Second}
}

// waitNotice is how long a request waits for its answer before the
// Logger is told, at Warn, what is being waited for (at most half the
// stall timeout).
const waitNotice = 2 * time.Second

// timeoutRetries is how often a request that timed out is tried again.
const timeoutRetries = 1

// noRetriesKey marks a context whose requests and transfers are tried
// once: a mirror's (see Repository.open).
type noRetriesKey struct{}

// withoutRetries returns ctx with retries off for whatever is fetched
// under it.
func withoutRetries(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetriesKey{}, true)
}

// retries is how often something fetched under ctx may be tried again:
// p.MaxRetries, or none under withoutRetries.
func (p RetryPolicy) retries(ctx context.Context) int {
	if off, _ := ctx.Value(noRetriesKey{}).(bool); off {
		return 0
	}
	return p.MaxRetries
}

func (p RetryPolicy) validate() error {
	if p.MaxRetries < 0 || p.MinWait < 0 || p.MaxWait < p.MinWait || p.MaxRetryAfter < 0 {
		return errors.New("RetryPolicy needs MaxRetries >= 0, 0 <= MinWait <= MaxWait and MaxRetryAfter >= 0")
	}
	return nil
}

// backoff returns the wait before retry number attempt (0-based).
func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := p.MinWait
	for i := 0; i < attempt && d < p.MaxWait; i++ {
		d *= 2
	}
	if d > p.MaxWait {
		d = p.MaxWait
	}
	if d > 0 {
		// ±20% jitter so that concurrent clients do not retry in step.
		d = d*8/10 + time.Duration(rand.Int64N(int64(d)*4/10+1))
	}
	return d
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	s := strings.TrimSpace(h.Get("Retry-After"))
	if s == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(s); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(s); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500
}

// isTransient reports errors worth another attempt: dropped or reset
// connections, timeouts, stalls, and 5xx/429 responses surfaced by oras-go.
// A context cancellation or a digest mismatch never is.
func isTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, ErrDigestMismatch) {
		return false
	}
	var ne *NetError
	if errors.As(err, &ne) {
		return ne.transient()
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var nerr net.Error
	if errors.As(err, &nerr) && nerr.Timeout() {
		return true
	}
	// A connection that broke while a request was written or its answer
	// read; a refused dial is not retried (nothing listens there).
	var oe *net.OpError
	if errors.As(err, &oe) && (oe.Op == "read" || oe.Op == "write" || oe.Op == "readfrom") {
		return true
	}
	if errors.Is(err, net.ErrClosed) {
		return true
	}
	var er *errcode.ErrorResponse
	if errors.As(err, &er) {
		return retryableStatus(er.StatusCode)
	}
	return false
}

// idempotent reports whether req may be sent again after a failure whose
// effect on the registry is unknown: the methods HTTP makes idempotent,
// plus the two POSTs the protocols make safe (opening a blob upload
// session, which an abandoned one merely expires, and asking a token
// service for a token). A body must be replayable.
func idempotent(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	case http.MethodPost:
		return strings.HasSuffix(req.URL.Path, "/blobs/uploads/") ||
			strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded")
	}
	return false
}

// retryTransport retries what is safe to retry, within a RetryPolicy,
// and remembers the registries that did not answer: once a request to a
// registry has timed out after its retry, the other requests to it in
// flight are cancelled and later ones fail at once for registryDownFor, so a command
// against a black hole takes about two timeouts, not one per request.
type retryTransport struct {
	base     http.RoundTripper
	policy   RetryPolicy
	timeouts Timeouts
	maxBody  int64
	log      *slog.Logger

	mu         sync.Mutex
	registries map[string]*registryState
}

// registryDownFor is how long a registry that timed out is given up for.
const registryDownFor = time.Minute

type registryState struct {
	ctx    context.Context // cancelled when the registry is given up
	cancel context.CancelFunc
	err    *NetError
	until  time.Time
	// noticed is set once a wait on the registry was logged: one notice
	// per registry, not one per request in flight.
	noticed atomic.Bool
}

func newRetryTransport(base http.RoundTripper, p RetryPolicy, to Timeouts, maxBody int64, log *slog.Logger) *retryTransport {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = p.MaxWait
	}
	return &retryTransport{base: base, policy: p, timeouts: to, maxBody: maxBody, log: log, registries: map[string]*registryState{}}
}

// registry returns the state of the registry name ("host:port"), renewed
// when it was given up long enough ago.
func (t *retryTransport) registry(name string) *registryState {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.registries[name]
	if h == nil || (h.err != nil && time.Now().After(h.until)) {
		ctx, cancel := context.WithCancel(context.Background())
		h = &registryState{ctx: ctx, cancel: cancel}
		t.registries[name] = h
	}
	return h
}

func (t *retryTransport) giveUp(h *registryState, err *NetError) {
	t.mu.Lock()
	if h.err == nil {
		h.err, h.until = err, time.Now().Add(registryDownFor)
	}
	t.mu.Unlock()
	h.cancel()
}

func (t *retryTransport) down(h *registryState) *NetError {
	t.mu.Lock()
	defer t.mu.Unlock()
	return h.err
}

// RoundTrip implements http.RoundTripper.
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if b := budgetOf(req.Context()); b != nil && strings.HasPrefix(req.URL.Path, "/v2/") {
		if err := b.spend(req.URL.Host); err != nil {
			return nil, err
		}
	}
	h := t.registry(req.URL.Host)
	timeouts := 0
	maxRetries := t.policy.retries(req.Context())
	for attempt := 0; ; attempt++ {
		if e := t.down(h); e != nil {
			return nil, e.again()
		}
		try := req
		if attempt > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			try = req.Clone(req.Context())
			try.Body = body
		}
		resp, err := t.try(h, try)
		if err != nil {
			if e := t.down(h); e != nil && req.Context().Err() == nil {
				return nil, e.again()
			}
			ne := classify(req, err)
			if ne == nil || req.Context().Err() != nil {
				return nil, err
			}
			if ne.After == 0 && ne.timedOut() {
				ne.After = t.timeouts.Stall
				if ne.Kind == KindConnectTimeout {
					ne.After = t.timeouts.Dial
				}
			}
			if ne.timedOut() {
				timeouts++
			}
			retry := ne.transient() && idempotent(req) && attempt < maxRetries &&
				(!ne.timedOut() || timeouts <= timeoutRetries)
			if !retry {
				if ne.Kind == KindTimeout || ne.Kind == KindConnectTimeout {
					t.giveUp(h, ne)
				}
				return nil, ne
			}
			wait := t.policy.backoff(attempt)
			t.logRetry(req, ne.Error(), wait, attempt)
			if err := sleep(req.Context(), wait); err != nil {
				return nil, err
			}
			continue
		}
		if !retryableStatus(resp.StatusCode) || !idempotent(req) || attempt >= maxRetries {
			return resp, nil
		}
		wait := t.policy.backoff(attempt)
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			if d, ok := retryAfter(resp.Header, time.Now()); ok {
				if d > t.policy.MaxRetryAfter {
					// Waiting that long is the user's decision, not ours:
					// the answer goes back as it is, Retry-After included.
					return resp, nil
				}
				wait = d
			}
		}
		_, _ = io.CopyN(io.Discard, resp.Body, drainLimit)
		resp.Body.Close()
		t.logRetry(req, resp.Status, wait, attempt)
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// try sends req once, cancelled if its registry is given up meanwhile. A
// successful answer that is not a blob (a manifest, a tag list, a
// token) is read whole before it is returned, within maxBody: a body cut
// or stalled midway is then a failure of the request, retried like one,
// rather than a decoding error of whoever reads it, and no answer is
// larger than the bound.
func (t *retryTransport) try(h *registryState, req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(h.ctx, cancel)
	done := func() { stop(); cancel() }
	// A user looking at a silent terminal learns what is waited for,
	// and for how long at most.
	notice := time.AfterFunc(min(waitNotice, t.timeouts.Stall/2), func() {
		if !h.noticed.Swap(true) {
			t.log.LogAttrs(ctx, slog.LevelWarn, "waiting for registry "+req.URL.Host,
				slog.String("request", req.Method+" "+req.URL.Path), slog.Duration("gives_up_after", t.timeouts.Stall))
		}
	})
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	notice.Stop()
	if err != nil {
		done()
		return nil, err
	}
	if resp.StatusCode/100 != 2 || req.Method != http.MethodGet || isBlob(req) || t.maxBody <= 0 {
		// The body still needs the request's context: it is cancelled
		// when the body is closed.
		resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: done}
		return resp, nil
	}
	defer done()
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, t.maxBody+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > t.maxBody {
		return nil, fmt.Errorf("registry %s: the answer to %s %s is larger than %d bytes: %w", req.URL.Host, req.Method, req.URL.Path, t.maxBody, ErrTooLarge)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp, nil
}

func (t *retryTransport) logRetry(req *http.Request, cause string, wait time.Duration, attempt int) {
	t.log.LogAttrs(req.Context(), slog.LevelInfo, "retrying",
		slog.String("registry", req.URL.Host), slog.String("request", req.Method+" "+req.URL.Path),
		slog.String("cause", cause), slog.Duration("after", wait.Round(time.Millisecond)),
		slog.Int("attempt", attempt+2), slog.Int("of", t.policy.MaxRetries+1))
}

// cancelBody runs cancel once the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel func()
	once   sync.Once
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.cancel)
	return err
}

// stallTransport abandons a request when no byte moves, in either
// direction, for timeout: from sending until the response headers, and
// while either body is read. A total timeout would cut large blobs on slow
// links; a stall timeout cuts only dead ones. What is not a blob (a
// manifest, a tag list, a token: a few KiB at most) has a total bound as
// well, so that a registry dripping a byte a second cannot hold a command.
type stallTransport struct {
	base     http.RoundTripper
	timeout  time.Duration
	response time.Duration
}

func (t *stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	g := &stallGuard{timeout: t.timeout, cancel: cancel}
	g.timer = time.AfterFunc(t.timeout, g.fire)
	if t.response > 0 && !isBlob(req) {
		g.total = time.AfterFunc(t.response, g.fireTotal)
	}
	out := req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		out.Body = &guardedBody{rc: req.Body, g: g}
	}
	resp, err := t.base.RoundTrip(out)
	if err != nil {
		g.stop()
		cancel()
		if k, ok := g.fired(); ok {
			return nil, &NetError{Kind: k, Registry: req.URL.Host, Method: req.Method, Path: req.URL.Path, After: g.after(k, t.response)}
		}
		return nil, err
	}
	g.touch()
	resp.Body = &guardedBody{rc: resp.Body, g: g, req: req, response: t.response, done: func() { g.stop(); cancel() }}
	return resp, nil
}

type stallGuard struct {
	timeout time.Duration
	cancel  context.CancelFunc
	mu      sync.Mutex
	timer   *time.Timer
	total   *time.Timer
	kind    NetErrorKind
	stopped bool
	headers bool
}

func (g *stallGuard) fire() { g.trip(false) }

func (g *stallGuard) fireTotal() { g.trip(true) }

func (g *stallGuard) trip(total bool) {
	g.mu.Lock()
	if !g.stopped && g.kind == 0 {
		switch {
		case total:
			g.kind = KindSlow
		case g.headers:
			g.kind = KindStall
		default:
			g.kind = KindTimeout
		}
	}
	g.mu.Unlock()
	g.cancel()
}

func (g *stallGuard) touch() {
	g.mu.Lock()
	g.headers = true
	if !g.stopped && g.kind == 0 {
		g.timer.Reset(g.timeout)
	}
	g.mu.Unlock()
}

func (g *stallGuard) stop() {
	g.mu.Lock()
	g.stopped = true
	g.timer.Stop()
	if g.total != nil {
		g.total.Stop()
	}
	g.mu.Unlock()
}

func (g *stallGuard) fired() (NetErrorKind, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.kind, g.kind != 0
}

func (g *stallGuard) after(k NetErrorKind, response time.Duration) time.Duration {
	if k == KindSlow {
		return response
	}
	return g.timeout
}

// drainLimit is how much of an unread response body is read on Close so
// that its connection can be reused.
const drainLimit = 4 << 10

// guardedBody resets the stall timer on every read that moves bytes.
type guardedBody struct {
	rc       io.ReadCloser
	g        *stallGuard
	req      *http.Request // nil for a request body
	response time.Duration
	done     func()
	once     sync.Once
}

func (b *guardedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.g.touch()
	}
	if err != nil && err != io.EOF && b.req != nil {
		// A request body's stall is reported by RoundTrip, which sees
		// the error this read returns.
		if k, ok := b.g.fired(); ok {
			err = &NetError{Kind: k, Registry: b.req.URL.Host, Method: b.req.Method, Path: b.req.URL.Path, After: b.g.after(k, b.response)}
		}
	}
	return n, err
}

func (b *guardedBody) Close() error {
	if b.done != nil {
		// A response body closed before its end costs the connection: Go
		// reuses only what was read to EOF, and oras-go closes some
		// bodies unread (a 404's error JSON). What little is left is read
		// first; the stall timer still bounds it.
		_, _ = io.CopyN(io.Discard, b.rc, drainLimit)
	}
	err := b.rc.Close()
	if b.done != nil {
		b.once.Do(b.done)
	}
	return err
}

// classify names a failed request's cause as a *NetError, nil when it is
// none of the network failures a user can act on.
func classify(req *http.Request, err error) *NetError {
	var ne *NetError
	if errors.As(err, &ne) {
		return ne
	}
	e := &NetError{Registry: req.URL.Host, Method: req.Method, Path: req.URL.Path, Err: err}
	var dns *net.DNSError
	var oe *net.OpError
	var nerr net.Error
	var rec tls.RecordHeaderError
	var cert *tls.CertificateVerificationError
	switch {
	case err == nil:
		return nil
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"),
		errors.As(err, &rec) && string(rec.RecordHeader[:]) == "HTTP/":
		// http.Client says the former, but only above the transport.
		e.Kind = KindPlainHTTP
	case errors.As(err, &dns) && dns.IsNotFound:
		e.Kind = KindUnknownHostname
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Kind = KindRefused
	case errors.As(err, &oe) && oe.Op == "dial" && oe.Timeout():
		e.Kind = KindConnectTimeout
	case errors.As(err, &rec), errors.As(err, &cert):
		e.Kind = KindTLS
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed):
		e.Kind = KindReset
	case errors.As(err, &oe) && (oe.Op == "read" || oe.Op == "write" || oe.Op == "readfrom"):
		e.Kind = KindReset
	case errors.As(err, &nerr) && nerr.Timeout():
		e.Kind = KindTimeout
	default:
		return nil
	}
	return e
}

// tlsCause is a TLS failure's cause without the Go error chain around it.
func tlsCause(err error) string {
	var rec tls.RecordHeaderError
	if errors.As(err, &rec) {
		return "the server does not speak TLS on that port"
	}
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		return "its certificate is not trusted: " + cert.Err.Error()
	}
	return err.Error()
}

// offlineTransport answers every request with ErrOffline, unsent.
type offlineTransport struct{}

func (offlineTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return nil, &NetError{Kind: KindOffline, Registry: req.URL.Host, Method: req.Method, Path: req.URL.Path}
}

// isBlob reports whether req asks for a blob: its path, or the path of
// the request that was redirected to it (a registry sends blobs from
// storage elsewhere, under paths of the storage's choosing), has
// /blobs/ in it.
func isBlob(req *http.Request) bool {
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	return strings.Contains(first.URL.Path, "/blobs/") || strings.Contains(req.URL.Path, "/blobs/")
}

// maxRedirects bounds the redirects of one request: a registry redirects
// a blob to its storage once, and a loop ends here.
const maxRedirects = 5

// checkRedirect is the http.Client's redirect policy: at most
// maxRedirects, a loop reported as one.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		first := via[0]
		return &NetError{Kind: KindRedirects, Registry: first.URL.Host, Method: first.Method, Path: first.URL.Path}
	}
	return nil
}

// statusError renders an error status that outlasted the retries: the
// registry's codes and messages, without the details (free-form JSON
// that Go would print as maps).
func statusError(er *errcode.ErrorResponse) *NetError {
	e := &NetError{Kind: KindStatus, Method: er.Method, Status: er.StatusCode, Err: er}
	if er.URL != nil {
		e.Registry, e.Path = er.URL.Host, er.URL.Path
	}
	var codes []string
	for _, c := range er.Errors {
		s := strings.ToLower(c.Code)
		if c.Message != "" {
			s += ": " + c.Message
		}
		codes = append(codes, s)
	}
	e.Codes = strings.Join(codes, "; ")
	return e
}
