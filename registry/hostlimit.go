package registry

import (
	"context"
	"net/http"
	"sync"
)

// DefaultHostRequests is how many requests to one registry host may await
// their answers at once when Options.HostRequests is zero. At internet
// latency a client's time goes to round trips, not bandwidth, so this is
// well above the 8 that fill a loopback link: an update check of 100
// installed skills sends its 100 tag lists in one wave rather than two.
// Over HTTP/2 (which the transport negotiates where a registry offers it)
// these share a few connections; over HTTP/1.1 each is a connection,
// which is why there is a bound at all. Every idle connection up to it is
// kept for reuse.
const DefaultHostRequests = 128

// PriorityHostRequests is how many requests marked [WithPriority] may
// await their answers per host, in a lane of their own beside the
// DefaultHostRequests (or Options.HostRequests) of everything else.
const PriorityHostRequests = 8

type priorityKey struct{}

// WithPriority marks the requests made under ctx as ones a whole
// operation waits on (an index and its signatures, say): they take a slot
// of a small lane of their own instead of queueing behind bulk downloads,
// which at internet latency would add the queue's round trips to every
// step of their chain.
func WithPriority(ctx context.Context) context.Context {
	return context.WithValue(ctx, priorityKey{}, true)
}

// hostLimit bounds the requests per host that are waiting for their
// response headers. A response's body does not hold a slot: a job that
// streams a blob from one host into another (a mirror within one
// registry) would otherwise wait on itself.
type hostLimit struct {
	base http.RoundTripper
	n    int
	mu   sync.Mutex
	sems map[string]chan struct{}
}

func newHostLimit(base http.RoundTripper, n int) *hostLimit {
	return &hostLimit{base: base, n: n, sems: map[string]chan struct{}{}}
}

func (l *hostLimit) sem(host string, priority bool) chan struct{} {
	n := l.n
	if priority {
		host, n = host+" priority", PriorityHostRequests
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.sems[host]
	if !ok {
		s = make(chan struct{}, n)
		l.sems[host] = s
	}
	return s
}

// RoundTrip implements http.RoundTripper.
func (l *hostLimit) RoundTrip(req *http.Request) (*http.Response, error) {
	priority, _ := req.Context().Value(priorityKey{}).(bool)
	s := l.sem(req.URL.Host, priority)
	select {
	case s <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	defer func() { <-s }()
	return l.base.RoundTrip(req)
}
