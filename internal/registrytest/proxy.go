package registrytest

import (
	"fmt"
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
	// keeps the connection open.
	Hang
)

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
	rule     Rule
	delay    time.Duration
	trace    *Trace
	rp       *httputil.ReverseProxy
	mu       sync.Mutex
	seen     map[string]int
	log      []string
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
	p := &Proxy{upstream: u, rule: rule, delay: opts.Delay, trace: opts.Trace, seen: map[string]int{}}
	p.rp = httputil.NewSingleHostReverseProxy(u)
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
	p.mu.Unlock()

	switch fault {
	case Status500, Status429:
		io.Copy(io.Discard, r.Body)
		code := http.StatusInternalServerError
		if fault == Status429 {
			code = http.StatusTooManyRequests
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"errors":[{"code":"UNKNOWN","message":"injected %d"}]}`, code)
	case Reset:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			resetClose(conn)
		}
	case ResetMidBody, Corrupt:
		p.mangle(w, r, fault)
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
	if fault == Corrupt {
		if len(body) > 0 {
			body[len(body)/2] ^= 0xff
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(body)
		return
	}
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	fmt.Fprintf(buf, "HTTP/1.1 %s\r\n", resp.Status)
	resp.Header.Set("Content-Length", fmt.Sprint(len(body)))
	resp.Header.Write(buf)
	buf.WriteString("\r\n")
	buf.Write(body[:len(body)/2])
	buf.Flush()
	resetClose(conn)
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
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}
