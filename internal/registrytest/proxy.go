package registrytest

import (
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fault is what a Proxy does to one request.
type Fault int

const (
	// Pass forwards the request untouched.
	Pass Fault = iota
	// Status500 answers 500 Internal Server Error without forwarding.
	Status500
	// Status429 answers 429 Too Many Requests without forwarding.
	Status429
	// Reset resets the connection (TCP RST) before answering.
	Reset
	// ResetMidBody forwards the request, sends the response headers and
	// half its body, then resets the connection.
	ResetMidBody
	// Corrupt forwards the request and flips one byte of the response
	// body, keeping its length and headers: a tampered blob.
	Corrupt
	// Hang answers nothing until the client gives up: a dead server that
	// keeps the connection open (a black hole).
	Hang
	// Status502 answers 502 Bad Gateway without forwarding.
	Status502
	// Status503 answers 503 Service Unavailable without forwarding.
	Status503
	// Status429RetryAfter answers 429 with a Retry-After header
	// (ProxyOptions.RetryAfter).
	Status429RetryAfter
	// Status503RetryAfter answers 503 with a Retry-After header.
	Status503RetryAfter
	// ResetAfter forwards the request, sends the response headers and
	// ProxyOptions.ResetAfter bytes of the body (half when zero), then
	// resets the connection.
	ResetAfter
	// Truncate forwards the request and sends half the body under the
	// full Content-Length, then closes the connection cleanly (FIN).
	Truncate
	// Pad forwards the request and appends bytes to the body, its
	// Content-Length adjusted: a body longer than its digest says.
	Pad
	// Drip forwards the request and sends the body a byte at a time,
	// ProxyOptions.Drip apart.
	Drip
	// WrongLength forwards the request and declares a Content-Length of
	// half the body, sending the whole of it.
	WrongLength
	// RedirectLoop answers 307 to the same path, for ever.
	RedirectLoop
)

// AllFaults lists every fault but Pass, for a seeded rule to pick from.
var AllFaults = []Fault{Status500, Status429, Reset, ResetMidBody, Corrupt, Hang, Status502, Status503,
	Status429RetryAfter, Status503RetryAfter, ResetAfter, Truncate, Pad, Drip, WrongLength, RedirectLoop}

// Seeded returns a rule that injects one of faults into a fraction rate
// of the requests, chosen by seed: the choice depends on the seed, the
// method, the path and how many times that request was seen before, not
// on the order concurrent requests arrive in, so a run is repeatable.
func Seeded(seed uint64, rate float64, faults []Fault) Rule {
	return func(r *http.Request, n int) Fault {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d %s %s %d", seed, r.Method, r.URL.Path, n)
		x := h.Sum64()
		if float64(x%1_000_000)/1_000_000 >= rate || len(faults) == 0 {
			return Pass
		}
		return faults[(x/1_000_000)%uint64(len(faults))]
	}
}

// Rule picks the fault for a request; n counts the earlier requests with
// the same method and path, so "fail the first try of everything" is
// `n == 0`.
type Rule func(r *http.Request, n int) Fault

// Proxy is a reverse proxy in front of a registry that injects faults.
type Proxy struct {
	// Host is "127.0.0.1:PORT" of the proxy.
	Host string
	// URL is "http://" + Host.
	URL string

	upstream *url.URL
	opts     ProxyOptions
	rule     Rule
	delay    time.Duration
	trace    *Trace
	rp       *httputil.ReverseProxy
	mu       sync.Mutex
	seen     map[string]int
	log      []string
	ranges   []string
}

// NewProxy starts a proxy in front of reg, stopped when the test ends. The
// Host header is kept, so the registry's upload Locations point back at
// the proxy and every request goes through it.
func NewProxy(t testing.TB, reg *Registry, rule Rule) *Proxy {
	t.Helper()
	return NewProxyWith(t, reg, ProxyOptions{Rule: rule})
}

// ProxyOptions configures NewProxyWith.
type ProxyOptions struct {
	// Rule picks each request's fault; nil passes everything.
	Rule Rule
	// Delay is the one-way latency of the link the proxy simulates: every
	// request is held for 2 × Delay (one round trip) before it is
	// forwarded, and every new connection's first request for another
	// round trip (the TCP handshake). Zero is loopback.
	Delay time.Duration
	// Trace, when set, records every request's span, bytes and the
	// connections accepted; several proxies may share one.
	Trace *Trace
	// RetryAfter is the Retry-After the *RetryAfter faults send; "" is "1".
	RetryAfter string
	// ResetAfter is how many body bytes ResetAfter sends; 0 is half.
	ResetAfter int
	// Drip is the pause between the bytes of Drip; 0 is 100ms.
	Drip time.Duration
	// AdvertiseRanges adds "Accept-Ranges: bytes" to blob answers: the
	// in-process registry honours Range requests without saying so, and
	// oras-go resumes only where a registry says so (distribution does).
	AdvertiseRanges bool
}

// NewProxyWith starts a proxy in front of reg as NewProxy does, with a
// simulated link latency and a trace (see ProxyOptions).
func NewProxyWith(t testing.TB, reg *Registry, opts ProxyOptions) *Proxy {
	t.Helper()
	u, err := url.Parse(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	rule := opts.Rule
	if rule == nil {
		rule = func(*http.Request, int) Fault { return Pass }
	}
	if opts.RetryAfter == "" {
		opts.RetryAfter = "1"
	}
	if opts.Drip == 0 {
		opts.Drip = 100 * time.Millisecond
	}
	p := &Proxy{upstream: u, opts: opts, rule: rule, delay: opts.Delay, trace: opts.Trace, seen: map[string]int{}}
	p.rp = httputil.NewSingleHostReverseProxy(u)
	p.rp.ModifyResponse = func(resp *http.Response) error {
		p.advertise(resp.Request, resp.Header)
		return nil
	}
	srv := httptest.NewUnstartedServer(p)
	if opts.Delay > 0 || opts.Trace != nil {
		srv.Listener = &slowListener{Listener: srv.Listener, rtt: 2 * opts.Delay, trace: opts.Trace}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	p.Host = strings.TrimPrefix(srv.URL, "http://")
	return p
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.trace != nil {
		start := time.Now()
		body := &countingBody{ReadCloser: r.Body}
		r.Body = body
		cw := &countingWriter{ResponseWriter: w}
		w = cw
		defer func() { p.trace.add(span{start: start, end: time.Now()}, body.n+cw.n) }()
	}
	if p.delay > 0 {
		t := time.NewTimer(2 * p.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	key := r.Method + " " + r.URL.Path
	p.mu.Lock()
	n := p.seen[key]
	p.seen[key]++
	fault := p.rule(r, n)
	p.log = append(p.log, fmt.Sprintf("%s %v", key, fault))
	if rg := r.Header.Get("Range"); rg != "" {
		p.ranges = append(p.ranges, key+" "+rg)
	}
	p.mu.Unlock()

	switch fault {
	case Status500, Status429, Status502, Status503, Status429RetryAfter, Status503RetryAfter:
		io.Copy(io.Discard, r.Body)
		code := map[Fault]int{Status500: 500, Status429: 429, Status502: 502, Status503: 503, Status429RetryAfter: 429, Status503RetryAfter: 503}[fault]
		if fault == Status429RetryAfter || fault == Status503RetryAfter {
			w.Header().Set("Retry-After", p.opts.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"errors":[{"code":"UNKNOWN","message":"injected %d"}]}`, code)
	case Reset:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			resetClose(conn)
		}
	case ResetMidBody, Corrupt, ResetAfter, Truncate, Pad, Drip, WrongLength:
		p.mangle(w, r, fault)
	case RedirectLoop:
		io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, r.URL.RequestURI(), http.StatusTemporaryRedirect)
	case Hang:
		<-r.Context().Done()
	default:
		p.rp.ServeHTTP(w, r)
	}
}

func (p *Proxy) mangle(w http.ResponseWriter, r *http.Request, fault Fault) {
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream.String()+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	out.Host = r.Host
	out.ContentLength = r.ContentLength
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	switch fault {
	case Corrupt, Pad:
		if fault == Pad {
			body = append(body, "padding"...)
		} else if len(body) > 0 {
			body[len(body)/2] ^= 0xff
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(resp.StatusCode)
		w.Write(body)
		return
	case Drip:
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		rc := http.NewResponseController(w)
		for i := range body {
			if _, err := w.Write(body[i : i+1]); err != nil {
				return
			}
			rc.Flush()
			t := time.NewTimer(p.opts.Drip)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		return
	}
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	fmt.Fprintf(buf, "HTTP/1.1 %s\r\n", resp.Status)
	send, length := len(body)/2, len(body)
	switch fault {
	case ResetAfter:
		if p.opts.ResetAfter > 0 {
			send = min(p.opts.ResetAfter, len(body))
		}
	case WrongLength:
		send, length = len(body), len(body)/2
	}
	resp.Header.Set("Content-Length", fmt.Sprint(length))
	if fault == WrongLength {
		// The client reads what the length says and closes: the rest
		// does not wait on an idle connection for the next answer.
		resp.Header.Set("Connection", "close")
	}
	p.advertise(r, resp.Header)
	resp.Header.Write(buf)
	buf.WriteString("\r\n")
	buf.Write(body[:send])
	buf.Flush()
	if fault == Truncate || fault == WrongLength {
		conn.Close()
		return
	}
	resetClose(conn)
}

func (p *Proxy) advertise(r *http.Request, h http.Header) {
	if p.opts.AdvertiseRanges && r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/sha256:") {
		h.Set("Accept-Ranges", "bytes")
	}
}

// resetClose closes conn with a TCP RST rather than a FIN.
func resetClose(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// Count returns how many requests matched: method and a path substring.
func (p *Proxy) Count(method, pathContains string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for k, c := range p.seen {
		m, path, _ := strings.Cut(k, " ")
		if (method == "" || m == method) && strings.Contains(path, pathContains) {
			n += c
		}
	}
	return n
}

// Ranges returns the requests that asked for a Range, "METHOD path
// bytes=FROM-TO", in order.
func (p *Proxy) Ranges() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.ranges...)
}

// Log returns every request seen, "METHOD path fault", in order.
func (p *Proxy) Log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

// String implements fmt.Stringer for log lines.
func (f Fault) String() string {
	switch f {
	case Pass:
		return "pass"
	case Status500:
		return "500"
	case Status429:
		return "429"
	case Reset:
		return "reset"
	case ResetMidBody:
		return "reset-mid-body"
	case Corrupt:
		return "corrupt"
	case Hang:
		return "hang"
	case Status502:
		return "502"
	case Status503:
		return "503"
	case Status429RetryAfter:
		return "429-retry-after"
	case Status503RetryAfter:
		return "503-retry-after"
	case ResetAfter:
		return "reset-after"
	case Truncate:
		return "truncate"
	case Pad:
		return "pad"
	case Drip:
		return "drip"
	case WrongLength:
		return "wrong-length"
	case RedirectLoop:
		return "redirect-loop"
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// BlackHoleListener accepts connections and never reads from or
// answers them: a registry that is up and does not answer.
type BlackHoleListener struct {
	// Host is its "127.0.0.1:PORT".
	Host  string
	mu    sync.Mutex
	conns []net.Conn
}

// Conns returns how many connections it accepted: one per attempt of a
// client that gives up on a connection and opens another.
func (b *BlackHoleListener) Conns() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.conns)
}

// BlackHole starts a BlackHoleListener, stopped when the test ends.
func BlackHole(t testing.TB) *BlackHoleListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &BlackHoleListener{Host: l.Addr().String()}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conns = append(b.conns, c)
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, c := range b.conns {
			c.Close()
		}
	})
	return b
}

// ClosedPort returns a "127.0.0.1:PORT" nothing listens on: a port that
// was free a moment ago, closed again.
func ClosedPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
