package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/skillpm/skillpm/source"
)

// ShutdownGrace bounds how long ListenAndServe waits for requests in
// flight once its context ends.
const ShutdownGrace = 5 * time.Second

// ServeOptions configure ListenAndServe.
type ServeOptions struct {
	// Addr is the host:port to listen on (port 0 picks a free one).
	Addr string
	// AllowRemote allows an address that is not loopback.
	AllowRemote bool
	// Listening, when set, is called once the server listens, with the
	// server (its URL carries the token) and whether it is reachable
	// beyond loopback.
	Listening func(s *Server, remote bool)
}

// CheckFrom checks a Config.From before anything is loaded: "" (the
// embedded registry) or a source package source parses (a registry
// namespace, oci-layout:DIR). New refuses a From it refuses.
func CheckFrom(from string) error {
	_, err := source.Parse(from)
	return err
}

// CheckAddr checks a listen address before anything is loaded: host:port
// (ErrBadAddr), and loopback unless allowRemote (ErrNotLoopback). remote
// reports an address beyond loopback.
func CheckAddr(addr string, allowRemote bool) (remote bool, err error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return false, fmt.Errorf("%w: %q", ErrBadAddr, addr)
	}
	remote = !IsLoopback(addr)
	if remote && !allowRemote {
		return remote, fmt.Errorf("%w: %s", ErrNotLoopback, addr)
	}
	return remote, nil
}

// ListenAndServe serves the API and panel with cfg on o.Addr until ctx
// ends, then lets requests in flight finish for up to ShutdownGrace. A
// cfg.Token of "" gets a fresh one (NewToken); cfg.Addr becomes the
// address listened on. An address taken is a *ListenError.
func ListenAndServe(ctx context.Context, cfg Config, o ServeOptions) error {
	remote, err := CheckAddr(o.Addr, o.AllowRemote)
	if err != nil {
		return err
	}
	if cfg.Token == "" {
		if cfg.Token, err = NewToken(); err != nil {
			return err
		}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", o.Addr)
	if err != nil {
		return &ListenError{Addr: o.Addr, Err: err}
	}
	defer ln.Close()
	cfg.Addr = ln.Addr().String()
	srv, err := New(cfg)
	if err != nil {
		return err
	}
	if o.Listening != nil {
		o.Listening(srv, remote)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// Addr returns the address the server answers on.
func (s *Server) Addr() string { return s.cfg.Addr }
