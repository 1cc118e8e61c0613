package api_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/api"
	"github.com/skillpm/skillpm/install"
)

// TestCheckAddr: host:port is required, and an address beyond loopback
// only with remote access allowed.
func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr   string
		allow  bool
		remote bool
		err    error
	}{
		{"127.0.0.1:7878", false, false, nil},
		{"localhost:0", false, false, nil},
		{"[::1]:0", false, false, nil},
		{"nonsense", false, false, api.ErrBadAddr},
		{"0.0.0.0:0", false, true, api.ErrNotLoopback},
		{"0.0.0.0:0", true, true, nil},
	} {
		remote, err := api.CheckAddr(c.addr, c.allow)
		if remote != c.remote || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("CheckAddr(%q, %v) = %v, %v; want %v, %v", c.addr, c.allow, remote, err, c.remote, c.err)
		}
	}
}

// TestListenAndServe: the server answers on the address it listens on
// (a fresh token made), returns nil once its context ends, and an
// address already taken is a ListenError.
func TestListenAndServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := api.Config{Client: NewClient(t, filepath.Join(t.TempDir(), "registry")), Env: install.Env{Home: t.TempDir(), Cwd: t.TempDir()}}
	status := 0
	err := api.ListenAndServe(ctx, cfg, api.ServeOptions{Addr: "127.0.0.1:0", Listening: func(s *api.Server, remote bool) {
		if remote {
			t.Errorf("%s reported as remote", s.Addr())
		}
		// Serving starts once Listening returns: ask from beside it, and
		// end the server once answered.
		go func() {
			defer cancel()
			res, err := http.Get("http://" + s.Addr() + "/api/skills")
			if err != nil {
				t.Errorf("GET /api/skills: %v", err)
				return
			}
			res.Body.Close()
			status = res.StatusCode
		}()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusOK {
		t.Errorf("GET /api/skills: %d", status)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = api.ListenAndServe(context.Background(), cfg, api.ServeOptions{Addr: ln.Addr().String()})
	if le, ok := errors.AsType[*api.ListenError](err); !ok || le.Addr != ln.Addr().String() {
		t.Errorf("a taken address: %v, want a ListenError", err)
	}
}
