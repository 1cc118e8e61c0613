package registrytest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"
)

// Trace records the requests that pass through one or more proxies: when
// each started and ended and how many bytes each moved, so that a
// benchmark can count the round trips a client made in sequence, not only
// how many it made. It is safe for concurrent use.
type Trace struct {
	mu    sync.Mutex
	spans []span
	conns int
	bytes int64
}

// span is one request, or one connection's handshake (handshake set),
// from its start to its end as the proxy saw them.
type span struct {
	start, end time.Time
	handshake  bool
}

// NewTrace returns an empty Trace.
func NewTrace() *Trace { return &Trace{} }

// Reset forgets everything recorded so far.
func (t *Trace) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spans, t.conns, t.bytes = nil, 0, 0
}

func (t *Trace) add(s span, n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spans = append(t.spans, s)
	t.bytes += n
}

func (t *Trace) conn(s span) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.conns++
	t.spans = append(t.spans, s)
}

// Requests returns how many requests were recorded.
func (t *Trace) Requests() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, s := range t.spans {
		if !s.handshake {
			n++
		}
	}
	return n
}

// Conns returns how many connections the proxies accepted.
func (t *Trace) Conns() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.conns
}

// Bytes returns the request and response body bytes moved.
func (t *Trace) Bytes() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bytes
}

// Rounds returns the sequential round trips: the length of the longest
// chain of requests each of which started after the one before it in the
// chain had ended. Requests that overlap in time were in flight together
// and count once; a request that had to wait for another's answer (the
// next dependency level, a manifest after its tag, or a queue slot) counts
// again. A new connection's handshake is a span of its own, ending when
// its first request may arrive: a round when the client opened the
// connection only once it needed it (see ProxyOptions.Delay). With a delay of d
// each way that dwarfs the client's own work, Rounds × 2d is the part of
// the wall time that latency alone costs.
func (t *Trace) Rounds() int {
	t.mu.Lock()
	spans := slices.Clone(t.spans)
	t.mu.Unlock()
	if len(spans) == 0 {
		return 0
	}
	// Longest chain in an interval order: process by start; chain(i) =
	// 1 + max chain(j) over the spans that ended before i started. Ends
	// are kept sorted with a running maximum of chain lengths.
	sort.Slice(spans, func(i, j int) bool { return spans[i].start.Before(spans[j].start) })
	byEnd := make([]int, len(spans))
	for i := range byEnd {
		byEnd[i] = i
	}
	sort.Slice(byEnd, func(a, b int) bool { return spans[byEnd[a]].end.Before(spans[byEnd[b]].end) })
	chain := make([]int, len(spans))
	best, k, longest := 0, 0, 0
	for i, s := range spans {
		// Every span that ended before s started has a known chain:
		// it started before it ended, so before s, and was processed.
		for k < len(byEnd) && !spans[byEnd[k]].end.After(s.start) {
			best = max(best, chain[byEnd[k]])
			k++
		}
		chain[i] = best + 1
		longest = max(longest, chain[i])
	}
	return longest
}

// slowListener delays each new connection's first read by rtt: the TCP
// handshake of a link with that round trip time, paid before the client's
// first request can arrive.
type slowListener struct {
	net.Listener
	rtt   time.Duration
	trace *Trace
}

func (l *slowListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &slowConn{Conn: c, rtt: l.rtt, trace: l.trace, accepted: time.Now()}, nil
}

type slowConn struct {
	net.Conn
	rtt      time.Duration
	trace    *Trace
	accepted time.Time
	once     sync.Once
}

func (c *slowConn) Read(p []byte) (int, error) {
	c.once.Do(func() {
		time.Sleep(time.Until(c.accepted.Add(c.rtt)))
		if c.trace != nil {
			c.trace.conn(span{start: c.accepted, end: time.Now(), handshake: true})
		}
	})
	return c.Conn.Read(p)
}

// countingBody counts the bytes read through it.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// countingWriter counts the response body bytes written.
type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *countingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// MaxInFlight returns the most requests the proxies were serving at once.
func (t *Trace) MaxInFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	type edge struct {
		at time.Time
		d  int
	}
	var es []edge
	for _, s := range t.spans {
		if !s.handshake {
			es = append(es, edge{s.start, 1}, edge{s.end, -1})
		}
	}
	// An end sorts before a start at the same instant: the two did not
	// overlap.
	sort.Slice(es, func(i, j int) bool {
		if es[i].at.Equal(es[j].at) {
			return es[i].d < es[j].d
		}
		return es[i].at.Before(es[j].at)
	})
	n, most := 0, 0
	for _, e := range es {
		n += e.d
		most = max(most, n)
	}
	return most
}
