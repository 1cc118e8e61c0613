package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/singleflight"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/internal/userdir"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// Timeouts bound remote requests. A blob has no total timeout: a large
// one on a slow link is fine as long as bytes keep moving. A request that
// times out is tried once more, and then its registry is given up for the
// rest of the process (see RetryPolicy), so a command against a registry
// that accepts connections and never answers ends after about 2 × Stall
// (plus a backoff of at most MaxWait), and one against a host that drops
// connections after about 2 × Dial.
type Timeouts struct {
	// Dial bounds opening a TCP connection.
	Dial time.Duration
	// TLSHandshake bounds the TLS handshake.
	TLSHandshake time.Duration
	// Stall abandons a request when no byte moves for this long, waiting
	// for response headers included.
	Stall time.Duration
	// Response bounds the whole of a response that is not a blob (a
	// manifest, a tag list, a token), however it trickles in.
	Response time.Duration
}

// DefaultTimeout is the one setting DefaultTimeouts derives from.
const DefaultTimeout = 10 * time.Second

// DefaultTimeouts returns TimeoutsFor(DefaultTimeout): 10s to connect,
// for the TLS handshake and of stall, 30s for a whole manifest or tag
// list. A black-hole registry costs a command about 20 seconds.
func DefaultTimeouts() Timeouts { return TimeoutsFor(DefaultTimeout) }

// TimeoutsFor derives every timeout from one duration d, the way a user
// sets them (a flag, an environment variable, a configuration key): d to
// connect, for the TLS handshake and of stall, 3d for a whole manifest.
func TimeoutsFor(d time.Duration) Timeouts {
	return Timeouts{Dial: d, TLSHandshake: d, Stall: d, Response: 3 * d}
}

// ParseTimeout reads a timeout as a user writes it: a Go duration ("10s",
// "1m30s") or a number of seconds ("10", as CARGO_HTTP_TIMEOUT and
// UV_HTTP_TIMEOUT take it). It must be positive.
func ParseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, serr := strconv.ParseFloat(s, 64)
		if serr != nil {
			return 0, fmt.Errorf("%w: timeout %q is neither a duration (10s, 1m) nor a number of seconds", ErrInvalidOptions, s)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 {
		return 0, fmt.Errorf("%w: timeout %q must be more than zero", ErrInvalidOptions, s)
	}
	return d, nil
}

// Limits bound what is fetched, checked against a descriptor's size before
// any byte is downloaded.
type Limits struct {
	// MaxManifestBytes bounds a manifest.
	MaxManifestBytes int64
	// MaxConfigBytes bounds a config blob.
	MaxConfigBytes int64
	// MaxLayerBytes bounds a layer (compressed).
	MaxLayerBytes int64
	// MaxPages bounds the pages of one listing (tags, repositories) that a
	// registry may spread over Link rel="next" headers.
	MaxPages int
}

// DefaultLimits returns 4 MiB for manifests and configs (and every page
// of a listing), 1 GiB for a layer, the archive's own bound on a skill's
// files, and 200 pages for a listing: 20,000 tags at the usual 100 a page.
func DefaultLimits() Limits {
	return Limits{MaxManifestBytes: 4 << 20, MaxConfigBytes: 4 << 20, MaxLayerBytes: 1 << 30, MaxPages: 200}
}

// Options configures a [Client]. The zero value is ready to use: Docker's
// credentials, the default cache and embedded registry directories,
// default retries, timeouts and limits, HTTPS everywhere.
type Options struct {
	// CacheDir is the content cache; "" means [DefaultCacheDir].
	CacheDir string
	// EmbeddedDir is the embedded registry; "" means [DefaultEmbeddedDir].
	EmbeddedDir string
	// PlainHTTP talks plain HTTP to loopback registries (localhost,
	// 127.0.0.0/8, ::1). Asking for another host is ErrPlainHTTP.
	PlainHTTP bool
	// PlainHTTPRegistries are registries ("host:port") to reach over plain HTTP
	// whatever PlainHTTP says: the config's explicit list.
	PlainHTTPRegistries []string
	// Mirrors lists, per registry host ("ghcr.io", "host:port"), the
	// registries ("host[:port][/prefix]") that serve copies of its content,
	// tried in order before it for content named by its digest; a
	// repository ns/x of the registry is prefix/ns/x on a mirror. Their
	// answers are verified by digest: one that fails, lacks the content or
	// serves other bytes is passed over. Plain HTTP to a mirror follows
	// PlainHTTP and PlainHTTPRegistries, as for any registry.
	Mirrors map[string][]string
	// Credentials is where registry credentials are read and stored; nil
	// means Docker's config ($DOCKER_CONFIG/config.json, else
	// ~/.docker/config.json) and its credential helpers.
	Credentials credentials.Store
	// Retry bounds retries; the zero value means DefaultRetryPolicy.
	Retry RetryPolicy
	// Timeouts bound requests; zero fields take DefaultTimeouts' values.
	Timeouts Timeouts
	// Limits bound fetched content; zero fields take DefaultLimits' values.
	Limits Limits
	// Transport is the HTTP transport under retries and stall detection;
	// nil means a new http.Transport honouring the proxy environment.
	Transport http.RoundTripper
	// RegistryRequests bounds the requests to one registry that await
	// their answers at once; 0 means DefaultRegistryRequests. The default
	// transport also keeps that many idle connections per registry.
	RegistryRequests int
	// UserAgent is sent with every request; "" means "skillpm".
	UserAgent string
	// Offline makes no request at all: what the content cache (and the
	// pins of a lock or receipts) answers is answered, anything else is
	// a *NetError of KindOffline (ErrOffline) naming the request.
	Offline bool
	// Logger, when set, receives every retry, at Info, with the registry,
	// the request, the cause and the wait (what a user asks to see with a
	// verbose flag), and, at Warn, once per registry, a request that has
	// waited a while for its answer (what a user at a silent terminal
	// wants to know).
	Logger *slog.Logger
	// Progress, when set, receives transfer progress: every blob of a push,
	// the layer of a pull. It is called from the goroutines doing the
	// transfers, possibly concurrently.
	Progress ProgressFunc
	// Trace, when set, receives every HTTP request sent (each retry on its
	// own) with its method, URL without credentials, status and time to
	// the response: what a CLI prints with -vv. The client itself prints
	// nothing.
	Trace TraceFunc
}

// Validate reports options New would refuse.
func (o Options) Validate() error {
	if o.Retry != (RetryPolicy{}) {
		if err := o.Retry.validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidOptions, err)
		}
	}
	t := o.Timeouts
	if t.Dial < 0 || t.TLSHandshake < 0 || t.Stall < 0 || t.Response < 0 {
		return fmt.Errorf("%w: Timeouts must not be negative", ErrInvalidOptions)
	}
	if o.RegistryRequests < 0 {
		return fmt.Errorf("%w: RegistryRequests must not be negative", ErrInvalidOptions)
	}
	if err := validateMirrors(o.Mirrors); err != nil {
		return err
	}
	l := o.Limits
	if l.MaxManifestBytes < 0 || l.MaxConfigBytes < 0 || l.MaxLayerBytes < 0 || l.MaxPages < 0 {
		return fmt.Errorf("%w: Limits must not be negative", ErrInvalidOptions)
	}
	return nil
}

func (o Options) resolved() Options {
	if o.Retry == (RetryPolicy{}) {
		o.Retry = DefaultRetryPolicy()
	}
	dt, dl := DefaultTimeouts(), DefaultLimits()
	def := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Timeouts.Dial, dt.Dial)
	def(&o.Timeouts.TLSHandshake, dt.TLSHandshake)
	def(&o.Timeouts.Stall, dt.Stall)
	def(&o.Timeouts.Response, dt.Response)
	defn := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	defn(&o.Limits.MaxManifestBytes, dl.MaxManifestBytes)
	defn(&o.Limits.MaxConfigBytes, dl.MaxConfigBytes)
	defn(&o.Limits.MaxLayerBytes, dl.MaxLayerBytes)
	if o.Limits.MaxPages == 0 {
		o.Limits.MaxPages = dl.MaxPages
	}
	if o.UserAgent == "" {
		o.UserAgent = "skillpm"
	}
	if o.RegistryRequests == 0 {
		o.RegistryRequests = DefaultRegistryRequests
	}
	return o
}

// DefaultCacheDir returns $SKILLPM_CACHE, else $XDG_CACHE_HOME/skillpm,
// else the platform's user cache directory plus /skillpm.
func DefaultCacheDir() (string, error) { return userdir.SkillpmCache() }

// DefaultEmbeddedDir returns $XDG_DATA_HOME/skillpm/registry, else
// ~/.local/share/skillpm/registry.
func DefaultEmbeddedDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "skillpm", "registry"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no data directory: set XDG_DATA_HOME: %w", err)
	}
	return filepath.Join(home, ".local", "share", "skillpm", "registry"), nil
}

// Client publishes, lists, resolves and pulls skills. It is safe for
// concurrent use; share one per process so that its connection pool, auth
// tokens and in-memory metadata cache are shared.
type Client struct {
	opts  Options
	cache *cache
	http  *auth.Client

	credOnce sync.Once
	cred     credentials.Store
	credErr  error

	// flight joins concurrent requests for the same tags or tag, so a
	// prefetch racing the solver costs one request, not two.
	flight singleflight.Group

	mu        sync.Mutex
	tags      map[string][]string             // repository -> tags
	resolved  map[string]ocispec.Descriptor   // repository:tag -> manifest
	manifests map[digest.Digest]*SkillVersion // parsed, by digest
	layouts   map[string]ReadStorage          // open layout stores, by path
	// referrers records, per registry host, whether it has the referrers
	// API, once a listing has shown it.
	referrers map[string]bool
	// blobs records, per registry host and blob digest, a repository this
	// Client sent the blob to, so that copies to other repositories there
	// can mount it.
	blobs map[string]string
}

// New returns a Client. It creates nothing on disk until content is
// fetched or published.
func New(opts Options) (*Client, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.resolved()
	if opts.CacheDir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		opts.CacheDir = d
	}
	if opts.EmbeddedDir == "" {
		d, err := DefaultEmbeddedDir()
		if err != nil {
			return nil, err
		}
		opts.EmbeddedDir = d
	}
	c := (&Client{opts: opts, cache: &cache{dir: opts.CacheDir}}).Session()
	base := opts.Transport
	if base == nil {
		base = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: opts.Timeouts.Dial, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   opts.Timeouts.TLSHandshake,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          max(100, 2*opts.RegistryRequests),
			MaxIdleConnsPerHost:   opts.RegistryRequests + PriorityRegistryRequests,
			IdleConnTimeout:       90 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
	}
	var sent http.RoundTripper = &stallTransport{base: base, timeout: opts.Timeouts.Stall, response: opts.Timeouts.Response}
	if opts.Trace != nil {
		sent = traceTransport{base: sent, trace: opts.Trace}
	}
	hc := &http.Client{CheckRedirect: checkRedirect, Transport: newRetryTransport(newRegistryLimit(sent, opts.RegistryRequests), opts.Retry, opts.Timeouts, opts.Limits.MaxManifestBytes, opts.Logger)}
	if opts.Offline {
		hc.Transport = offlineTransport{}
	}
	c.http = &auth.Client{
		Client:     hc,
		Header:     http.Header{"User-Agent": {opts.UserAgent}},
		Credential: c.credential,
		Cache:      auth.NewCache(),
	}
	return c, nil
}

// Session returns a Client that shares c's options, connections,
// credentials and content cache but remembers nothing c has read: no
// tags, tag resolutions or open layouts. A long-lived process (skillpm
// serve) takes one per unit of work, so that it sees what other processes
// have published since; within a session, each tag list is read once.
func (c *Client) Session() *Client {
	// c.http's credential lookup stays bound to the Client it was made
	// for, so credentials are read once per process, not per session.
	return &Client{
		opts:      c.opts,
		cache:     c.cache,
		http:      c.http,
		tags:      map[string][]string{},
		resolved:  map[string]ocispec.Descriptor{},
		manifests: map[digest.Digest]*SkillVersion{},
		layouts:   map[string]ReadStorage{},
		referrers: map[string]bool{},
		blobs:     map[string]string{},
	}
}

// OfflineSession returns a session of c (see Session) that sends no
// request, as a Client with Options.Offline does: it answers from the
// content cache and the listings kept when c's sessions last asked. What
// needs no network by contract (skillpm list) reads through it.
func (c *Client) OfflineSession() *Client {
	s := c.Session()
	s.opts.Offline = true
	s.http = &auth.Client{Client: &http.Client{Transport: offlineTransport{}}, Header: c.http.Header, Credential: c.http.Credential, Cache: auth.NewCache()}
	return s
}

// CacheDir is the directory of the client's content cache, where other
// caches derived from fetched content (the audit's reports) belong too.
func (c *Client) CacheDir() string { return c.opts.CacheDir }

// Offline reports whether c sends no request at all (Options.Offline):
// the engine then answers git references from the git cache too.
func (c *Client) Offline() bool { return c.opts.Offline }

// credentialStore returns the configured store, opening Docker's on first
// use so that anonymous work never fails over a broken Docker config.
// With no credentials configured yet, a login goes to the OS's default
// helper when its docker-credential-* binary is on PATH, as docker login
// does: osxkeychain on macOS, wincred on Windows, pass or secretservice on
// Linux; without one it goes to the config file.
func (c *Client) credentialStore() (credentials.Store, error) {
	c.credOnce.Do(func() {
		if c.opts.Credentials != nil {
			c.cred = c.opts.Credentials
			return
		}
		s, err := credentials.NewStoreFromDocker(credentials.StoreOptions{AllowPlaintextPut: true, DetectDefaultNativeStore: true})
		if err != nil {
			c.credErr = fmt.Errorf("reading Docker credentials config: %w", err)
			return
		}
		c.cred = s
	})
	return c.cred, c.credErr
}

func (c *Client) credential(ctx context.Context, hostport string) (auth.Credential, error) {
	s, err := c.credentialStore()
	if err != nil {
		return auth.EmptyCredential, err
	}
	return credentials.Credential(s)(ctx, hostport)
}

// plainHTTP decides the scheme for host, refusing plain HTTP for a host
// that is neither loopback nor explicitly listed.
func (c *Client) plainHTTP(host string) (bool, error) {
	for _, h := range c.opts.PlainHTTPRegistries {
		if strings.EqualFold(h, host) {
			return true, nil
		}
	}
	if !c.opts.PlainHTTP {
		return false, nil
	}
	if !IsLoopback(host) {
		return false, fmt.Errorf("%w: %s is not loopback (localhost, 127.0.0.0/8, ::1); list it in the config's plain-HTTP hosts if you really mean it", ErrPlainHTTP, host)
	}
	return true, nil
}

// IsLoopback reports whether a registry host ("host" or "host:port")
// names this machine: localhost or a loopback address.
func IsLoopback(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}

// forget drops what the client remembers about a repository's tags, after
// a publish changed them.
func (c *Client) forget(repo string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.tags, repo)
	for k := range c.resolved {
		if strings.HasPrefix(k, repo+":") {
			delete(c.resolved, k)
		}
	}
}

// referrersAPI reports whether host has the referrers API, and whether
// that is known yet.
func (c *Client) referrersAPI(host string) (has, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	has, known = c.referrers[host]
	return has, known
}

func (c *Client) setReferrersAPI(host string, has bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.referrers[host] = has
}

// sent records that repository on host holds the blob d.
func (c *Client) sent(host string, d digest.Digest, repository string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.blobs[host+"@"+d.String()] = repository
}

// mountable returns a repository on host other than repository that this
// Client sent the blob d to, or "".
func (c *Client) mountable(host string, d digest.Digest, repository string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if from := c.blobs[host+"@"+d.String()]; from != repository {
		return from
	}
	return ""
}

// shared runs fn once for the concurrent callers asking for key. A
// caller whose own context is still live never inherits another caller's
// cancellation: it runs fn itself.
func (c *Client) shared(ctx context.Context, key string, fn func(context.Context) (any, error)) (any, error) {
	v, err, _ := c.flight.Do(key, func() (any, error) { return fn(ctx) })
	if err != nil && ctx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return fn(ctx)
	}
	return v, err
}

// lockRetry is how often a layout lock is retried while another
// skillpm holds it.
const lockRetry = 50 * time.Millisecond

// log returns the Logger of the options, or one that drops everything.
func (c *Client) log() *slog.Logger {
	if c.opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.opts.Logger
}
