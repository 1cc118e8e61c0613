package registry

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"oras.land/oras-go/v2/registry/remote/errcode"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// RetryPolicy bounds the retries of one request (and of one blob transfer
// that fails midway): exponential backoff from MinWait, doubling, with 20%
// jitter, capped at MaxWait, at most MaxRetries times after the first try.
// A 429's Retry-After is honoured up to MaxWait.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// MinWait is the first backoff.
	MinWait time.Duration
	// MaxWait caps every backoff.
	MaxWait time.Duration
}

// DefaultRetryPolicy returns 5 retries, waiting 250ms, 500ms, 1s, 2s and 3s
// (each ±20%): about 7 seconds before a registry is given up.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 5, MinWait: 250 * time.Millisecond, MaxWait: 3 * time.Second}
}

func (p RetryPolicy) validate() error {
	if p.MaxRetries < 0 || p.MinWait < 0 || p.MaxWait < p.MinWait {
		return errors.New("RetryPolicy needs MaxRetries >= 0 and 0 <= MinWait <= MaxWait")
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

// orasPolicy adapts p to oras-go's retry transport, with isTransient as
// the predicate: oras-go's default misses a connection closed without a
// response (io.EOF), a broken pipe, and our stall timeout.
func (p RetryPolicy) orasPolicy() retry.Policy {
	return &retry.GenericPolicy{
		Retryable: func(resp *http.Response, err error) (bool, error) {
			if err != nil {
				if isTransient(err) {
					return true, nil
				}
				return false, err
			}
			return retryableStatus(resp.StatusCode), nil
		},
		Backoff: func(attempt int, resp *http.Response) time.Duration {
			if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
				if s := resp.Header.Get("Retry-After"); s != "" {
					if secs, err := time.ParseDuration(s + "s"); err == nil && secs > 0 {
						return secs
					}
				}
			}
			return p.backoff(attempt)
		},
		MinWait:  0,
		MaxWait:  p.MaxWait,
		MaxRetry: p.MaxRetries,
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
	var se *stallError
	if errors.As(err, &se) {
		return true
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
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

// stallError is a transfer that made no progress for the stall timeout.
type stallError struct{ after time.Duration }

func (e *stallError) Error() string {
	return "no data moved for " + e.after.String() + "; the transfer stalled"
}
func (e *stallError) Timeout() bool   { return true }
func (e *stallError) Temporary() bool { return true }

// stallTransport abandons a request when no byte moves, in either
// direction, for timeout: from sending until the response headers, and
// while either body is read. A total timeout would cut large blobs on slow
// links; a stall timeout cuts only dead ones.
type stallTransport struct {
	base    http.RoundTripper
	timeout time.Duration
}

func (t *stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	g := &stallGuard{timeout: t.timeout, cancel: cancel}
	g.timer = time.AfterFunc(t.timeout, g.fire)
	req = req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = &guardedBody{rc: req.Body, g: g}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		g.stop()
		cancel()
		if g.fired() {
			return nil, &stallError{after: t.timeout}
		}
		return nil, err
	}
	g.touch()
	resp.Body = &guardedBody{rc: resp.Body, g: g, done: func() { g.stop(); cancel() }}
	return resp, nil
}

type stallGuard struct {
	timeout time.Duration
	cancel  context.CancelFunc
	mu      sync.Mutex
	timer   *time.Timer
	stalled bool
	stopped bool
}

func (g *stallGuard) fire() {
	g.mu.Lock()
	if !g.stopped {
		g.stalled = true
	}
	g.mu.Unlock()
	g.cancel()
}

func (g *stallGuard) touch() {
	g.mu.Lock()
	if !g.stopped && !g.stalled {
		g.timer.Reset(g.timeout)
	}
	g.mu.Unlock()
}

func (g *stallGuard) stop() {
	g.mu.Lock()
	g.stopped = true
	g.timer.Stop()
	g.mu.Unlock()
}

func (g *stallGuard) fired() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stalled
}

// drainLimit is how much of an unread response body is read on Close so
// that its connection can be reused.
const drainLimit = 4 << 10

// guardedBody resets the stall timer on every read that moves bytes.
type guardedBody struct {
	rc   io.ReadCloser
	g    *stallGuard
	done func()
	once sync.Once
}

func (b *guardedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.g.touch()
	}
	if err != nil && err != io.EOF && b.g.fired() {
		err = &stallError{after: b.g.timeout}
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
