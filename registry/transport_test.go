package registry

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestUnreadBodyKeepsConnection closes error responses without reading
// them, as oras-go does with a 404's JSON, and checks that the client
// still reuses its one connection: each new one costs both ends.
func TestUnreadBodyKeepsConnection(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"errors":[{"code":"MANIFEST_UNKNOWN","message":"` + strings.Repeat("x", 1000) + `"}]}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := testClient(t, nil)
	for range 5 {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/v2/x/manifests/sha256-00", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("5 requests whose bodies were closed unread opened %d connections, want 1", n)
	}
}
