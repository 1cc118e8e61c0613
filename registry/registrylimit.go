package registry

import (
	"context"
	"net/http"
	"sync"
)

// DefaultRegistryRequests is how many requests to one registry may await
// their answers at once when Options.RegistryRequests is zero. At internet
// latency a client's time goes to round trips, not bandwidth, so this is
// well above the 8 that fill a loopback link: an update check of 100
// installed skills sends its 100 tag lists in one wave rather than two.
// Over HTTP/2 (which the transport negotiates where a registry offers it)
// these share a few connections; over HTTP/1.1 each is a connection,
// which is why there is a bound at all. Every idle connection up to it is
// kept for reuse.
const DefaultRegistryRequests = 128

// PriorityRegistryRequests is how many requests marked [WithPriority] may
// await their answers per registry, in a lane of their own beside the
// DefaultRegistryRequests (or Options.RegistryRequests) of everything else.
const PriorityRegistryRequests = 8

type priorityKey struct{}

// WithPriority marks the requests made under ctx as ones a whole
// operation waits on (an index and its signatures, say): they take a slot
// of a small lane of their own instead of queueing behind bulk downloads,
// which at internet latency would add the queue's round trips to every
// step of their chain.
func WithPriority(ctx context.Context) context.Context {
	return context.WithValue(ctx, priorityKey{}, true)
}

// registryLimit bounds the requests per registry ("host:port") that are waiting for their
// response headers. A response's body does not hold a slot: a job that
// streams a blob from one repository into another (a mirror within one
// registry) would otherwise wait on itself.
type registryLimit struct {
	base http.RoundTripper
	n    int
	mu   sync.Mutex
	sems map[string]chan struct{}
}

func newRegistryLimit(base http.RoundTripper, n int) *registryLimit {
	return &registryLimit{base: base, n: n, sems: map[string]chan struct{}{}}
}

func (l *registryLimit) sem(reg string, priority bool) chan struct{} {
	n := l.n
	if priority {
		reg, n = reg+" priority", PriorityRegistryRequests
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.sems[reg]
	if !ok {
		s = make(chan struct{}, n)
		l.sems[reg] = s
	}
	return s
}

// RoundTrip implements http.RoundTripper.
func (l *registryLimit) RoundTrip(req *http.Request) (*http.Response, error) {
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
