package registry

import (
	"net/http"
	"net/url"
	"time"
)

// RequestTrace is one HTTP request the client sent, as Options.Trace
// receives it: what a user asks to see with a very verbose flag on the day
// a registry misbehaves.
type RequestTrace struct {
	// Method is the request's method.
	Method string
	// URL is the request's URL with its credentials removed (see
	// [RedactURL]).
	URL string
	// Status is the response's status code; 0 when no response came.
	Status int
	// Duration is the time from sending the request to its response's
	// headers (or its failure).
	Duration time.Duration
	// Err is the transport's error; nil when a response came.
	Err error
}

// TraceFunc receives every request the client sends, retries each on
// its own, after the response's headers or the failure. It is called
// from the goroutines sending the requests, possibly concurrently.
type TraceFunc func(RequestTrace)

// traceTransport reports every request it forwards to trace.
type traceTransport struct {
	base  http.RoundTripper
	trace TraceFunc
}

// RoundTrip implements http.RoundTripper.
func (t traceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	rt := RequestTrace{Method: req.Method, URL: RedactURL(req.URL), Duration: time.Since(start), Err: err}
	if resp != nil {
		rt.Status = resp.StatusCode
	}
	t.trace(rt)
	return resp, err
}

// traceQueryKeys are the query parameters of the distribution and token
// protocols whose values are shown; every other value (a presigned
// redirect's signature, a token) is replaced by "REDACTED".
var traceQueryKeys = map[string]bool{
	"scope": true, "service": true, "n": true, "last": true, "digest": true,
	"mount": true, "from": true, "artifactType": true,
}

// RedactURL returns u as a string without its credentials: no user
// information, and query values other than the distribution protocol's
// own (scope, service, n, last, digest, mount, from, artifactType)
// replaced by REDACTED.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		q := c.Query()
		for k, vs := range q {
			if traceQueryKeys[k] {
				continue
			}
			for i := range vs {
				vs[i] = "REDACTED"
			}
		}
		c.RawQuery = q.Encode()
	}
	return c.String()
}
