// Package api serves skillpm's HTTP API (/api/skills) and the skills
// panel for `skillpm serve`. Install and update call the same engine
// (package engine) as the CLI, with the same checks; what the CLI would
// ask on a terminal must be named in the request, because the API never
// prompts.
//
// The server is meant for one user on one machine: it binds loopback,
// refuses requests whose Host or Origin is not its own (DNS rebinding and
// cross-site requests), and needs a one-time token on every request that
// changes anything.
package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/auditor"
	"github.com/skillpm/skillpm/internal/buildinfo"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

// TokenHeader carries the token on mutating requests.
const TokenHeader = "X-Skillpm-Token"

// The schemas of the API's documents, each in its "schema" key as the
// CLI's --output json carries it. A document that is a CLI command's
// (install, update, remove, list, search) has that command's schema and
// keys, with the API's additions; the API's own are named for it.
const (
	SchemaList    = "skillpm.list/v1"
	SchemaSkill   = "skillpm.api.skill/v1"
	SchemaInstall = "skillpm.install/v1"
	SchemaUpdate  = "skillpm.update/v1"
	SchemaRemove  = "skillpm.remove/v1"
	SchemaSearch  = "skillpm.search/v1"
	SchemaEvent   = "skillpm.api.event/v1"
)

// DefaultMaxBody bounds request bodies.
const DefaultMaxBody = 64 << 10

// SearchFunc searches the configured source's index for q. Its result is
// sent as JSON under "results".
type SearchFunc func(ctx context.Context, q string) (any, error)

// Config is what a Server needs. Client, Token and Addr are required.
type Config struct {
	// Client talks to registries; each request works in its own
	// Client.Session, so versions published after start are seen.
	Client *registry.Client
	// Policy decides tiers; nil means the built-in default.
	Policy *tiers.Policy
	// Trust is the signature trust material (policycheck.PolicyTrust).
	Trust sign.VerifyOptions
	// LoadTrust, when set, gives the policy and trust material for each
	// request in place of Policy and Trust, so that a policy edited while
	// the server runs (skillpm trust add) holds from the next request on.
	// The server has one project, the directory it runs in: its project
	// roots are that directory's, and no request can name another; the
	// CLI's LoadTrust reads that project's policy as every command run
	// there does (engine.LoadPolicy).
	LoadTrust func(ctx context.Context) (*tiers.Policy, sign.VerifyOptions, error)
	// From is the default source of bare names ("" means the embedded
	// registry), as install --from.
	From string
	// Env locates the hosts' discovery roots.
	Env install.Env
	// Host is the default host of install and remove; "" means
	// install.DefaultHost.
	Host install.HostID
	// Token authorises mutating requests; NewToken makes one.
	Token string
	// Addr is the address the server listens on ("127.0.0.1:7878"), after
	// any ":0" was resolved. Requests must name it (or, on loopback, the
	// other loopback names of the same port) in Host and Origin.
	Addr string
	// MaxBody bounds request bodies; 0 means DefaultMaxBody.
	MaxBody int64
	// LockWait bounds the wait for another skillpm on a root; 0 means
	// install.DefaultLockWait.
	LockWait time.Duration
	// Search serves GET /api/skills/search; nil answers 501.
	Search SearchFunc
	// Warn receives install warnings; they are also sent to the client.
	Warn func(string)
	// Auditor audits every skill before an install or update commits; nil
	// means pkg/audit's static audit (install/auditor), naming this build
	// in its reports (buildinfo.Tool: "skillpm v1.2.3").
	Auditor install.Auditor
}

// Server is the HTTP API and panel.
type Server struct {
	cfg   Config
	hosts map[string]bool
	// anyIP accepts an IP-literal Host with the right port, for a server
	// bound to the unspecified address with --allow-remote. An IP literal
	// cannot be rebound by DNS.
	anyIP bool
	port  string
	mux   *http.ServeMux
}

// NewToken returns a fresh random token (32 hex digits).
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// IsLoopback reports whether addr ("host:port") names a loopback address.
func IsLoopback(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// New checks cfg and returns a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Client == nil {
		return nil, errors.New("api: no registry client")
	}
	if len(cfg.Token) < 16 {
		return nil, errors.New("api: the token must have at least 16 characters (use NewToken)")
	}
	h, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil || port == "" || port == "0" {
		return nil, fmt.Errorf("api: address %q: give the host:port the server listens on", cfg.Addr)
	}
	if err := CheckFrom(cfg.From); err != nil {
		return nil, fmt.Errorf("api: the source of bare names: %w", err)
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Host == "" {
		cfg.Host = install.DefaultHost
	}
	if cfg.Auditor == nil {
		a, err := auditor.New(auditor.Options{Tool: buildinfo.Tool()})
		if err != nil {
			return nil, fmt.Errorf("api: %w", err)
		}
		cfg.Auditor = a
	}
	s := &Server{cfg: cfg, port: port, hosts: map[string]bool{net.JoinHostPort(h, port): true}}
	if ip := net.ParseIP(h); h == "localhost" || (ip != nil && (ip.IsLoopback() || ip.IsUnspecified())) {
		for _, lh := range []string{"127.0.0.1", "localhost", "::1"} {
			s.hosts[net.JoinHostPort(lh, port)] = true
		}
		s.anyIP = ip != nil && ip.IsUnspecified()
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /api/openapi.json", s.handleOpenAPI)
	s.mux.HandleFunc("GET /api/skills", s.handleList)
	s.mux.HandleFunc("GET /api/skills/search", s.handleSearch)
	s.mux.HandleFunc("POST /api/skills/install", s.mutating(s.handleInstall))
	s.mux.HandleFunc("POST /api/skills/update", s.mutating(s.handleUpdate))
	s.mux.HandleFunc("GET /api/skills/{name}", s.handleDetail)
	s.mux.HandleFunc("DELETE /api/skills/{name}", s.mutating(s.handleRemove))
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, newError(errdef.NotFound, r.Method+" "+r.URL.Path+": no such endpoint"))
	})
	panel := panelHandler()
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, withStatus(errdef.Usage, http.StatusMethodNotAllowed, r.Method+" "+r.URL.Path+": the panel is read-only"))
			return
		}
		panel.ServeHTTP(w, r)
	})
	return s, nil
}

// URL returns the panel's address with the token, to print at start.
func (s *Server) URL() string {
	return "http://" + s.cfg.Addr + "/?token=" + s.cfg.Token
}

// ServeHTTP checks Host and Origin on every request, sets the headers that
// keep the panel from being framed or leaking the token, and dispatches.
//
// A panic while handling one request fails that request with a 500 and
// the code "internal" (net/http would only drop the connection), and the
// server goes on serving the others.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			msg := fmt.Sprintf("internal error handling %s %s: %v; the request failed, the server goes on", r.Method, r.URL.Path, p)
			if s.cfg.Warn != nil {
				s.cfg.Warn(msg)
			}
			writeError(w, newError(errdef.Internal, msg))
		}
	}()
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	if !s.hostAllowed(r.Host) {
		writeError(w, withStatus(errdef.Usage, http.StatusForbidden,
			fmt.Sprintf("Host %q is not this server's address; open %s instead", r.Host, "http://"+s.cfg.Addr+"/")))
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !s.originAllowed(o) {
		writeError(w, withStatus(errdef.Usage, http.StatusForbidden,
			fmt.Sprintf("Origin %q is not this server's; requests from other sites are refused", o)))
		return
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		writeError(w, withStatus(errdef.Usage, http.StatusForbidden, "cross-site requests are refused"))
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) hostAllowed(host string) bool {
	if s.hosts[strings.ToLower(host)] {
		return true
	}
	if !s.anyIP {
		return false
	}
	h, p, err := net.SplitHostPort(host)
	return err == nil && p == s.port && net.ParseIP(h) != nil
}

func (s *Server) originAllowed(origin string) bool {
	rest, ok := strings.CutPrefix(strings.ToLower(origin), "http://")
	return ok && !strings.ContainsAny(rest, "/?#@") && s.hostAllowed(rest)
}
