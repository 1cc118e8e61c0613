package registrytest

import (
	"crypto/subtle"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	ggcr "github.com/google/go-containerregistry/pkg/registry"
)

// startInProcess serves go-containerregistry's registry on a loopback
// port for the test, behind htpasswd-like basic authentication when opts
// names a user: an OCI distribution implementation in memory, for unit
// tests; the distribution binary serves the integration build. Its
// referrers API is off, as distribution v3 has none, so clients take the
// tag-schema path they take against it. It does not mount blobs across
// repositories; tests of mounts need the integration build.
func startInProcess(t testing.TB, opts Options) *Registry {
	t.Helper()
	var h http.Handler = ggcr.New(ggcr.WithReferrersSupport(false), ggcr.Logger(log.New(io.Discard, "", 0)))
	if opts.Username != "" && opts.Password != "" {
		h = basicAuth(h, opts.Username, opts.Password)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	return &Registry{Host: host, URL: srv.URL, Dir: t.TempDir(), Username: opts.Username, Password: opts.Password}
}

// basicAuth answers 401 with a Basic challenge, as distribution with an
// htpasswd file does, unless the request carries the credentials.
func basicAuth(next http.Handler, user, pass string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || subtle.ConstantTimeCompare([]byte(u), []byte(user)) != 1 || subtle.ConstantTimeCompare([]byte(p), []byte(pass)) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="skillpm-test"`)
			w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`)
			return
		}
		next.ServeHTTP(w, r)
	})
}
