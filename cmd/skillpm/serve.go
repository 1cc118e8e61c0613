package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/api"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/verified"
	"github.com/spf13/cobra"
)

type serveFlags struct {
	regFlags
	trustFlags
	addr        string
	allowRemote bool
	host        string
}

func newServeCmd(g *globals) *cobra.Command {
	var f serveFlags
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the /api/skills HTTP API and the skills panel on localhost",
		Long: `Serve runs the HTTP API (/api/skills) and a skills panel in the browser:
installed skills per host with tier, version, source and permissions; an
install box that shows the permissions a skill needs before you confirm;
remove buttons; search.

It binds 127.0.0.1:7878 and prints a URL with a one-time token. Every
request that changes something needs that token, and requests whose Host or
Origin is not this server's are refused, so other web sites cannot drive
it. Installs run the same checks as skillpm install; nothing is granted
that the request does not name (there is no prompt).

A non-loopback --addr needs --allow-remote: anyone who can reach the port
and learns the token can install and remove skills, over plain HTTP.

Stop it with Ctrl-C.`,
		Example: `  skillpm serve
  skillpm serve --addr 127.0.0.1:9000 --host claude --policy ./policy.yaml
  skillpm serve --registry localhost:5000/skills --plain-http`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runServe(c.Context(), g, &f)
		},
	}
	c.Flags().StringVar(&f.addr, "addr", "127.0.0.1:7878", "listen on `HOST:PORT` (loopback unless --allow-remote)")
	c.Flags().BoolVar(&f.allowRemote, "allow-remote", false, "allow a non-loopback --addr (risky: see above)")
	c.Flags().StringVar(&f.host, "host", "", "default agent host for installs and removals: agents, claude, codex, gaia, opencode (default: the configuration's host, else agents)")
	c.Flags().StringVar(&f.registry, "registry", "", "`SOURCE` of bare names and of search: a registry namespace or oci-layout:DIR; default the configuration's registry, else the embedded one")
	f.regFlags.addPlainHTTP(c)
	f.trustFlags.register(c)
	return c
}

func runServe(ctx context.Context, g *globals, f *serveFlags) error {
	host := g.config().Host
	if f.host != "" || host == "" {
		h, err := install.ParseHost(cmp.Or(f.host, string(install.DefaultHost)))
		if err != nil {
			return &usageError{err}
		}
		host = h
	}
	if f.registry == "" {
		f.registry = g.config().Registry
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return &usageError{fmt.Errorf("--addr %q: give HOST:PORT, such as 127.0.0.1:7878", f.addr)}
	}
	remote := !api.IsLoopback(f.addr)
	if remote && !f.allowRemote {
		return &usageError{fmt.Errorf("--addr %s is not a loopback address: anyone who can reach it could install skills on this machine; use 127.0.0.1, or add --allow-remote if you mean it", f.addr)}
	}
	client, err := regClient(g, &f.regFlags)
	if err != nil {
		return err
	}
	policy, vopts, err := f.trustFlags.load(ctx, g)
	if err != nil {
		return err
	}
	spec, err := registry.ParseSource(f.registry)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("--registry: %w", err))
	}
	token, err := api.NewToken()
	if err != nil {
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (is another skillpm serve running? choose another port with --addr)", f.addr, err)
	}
	defer ln.Close()
	srv, err := api.New(api.Config{
		Client: client, Policy: policy, Trust: vopts.Trust, From: f.registry, Env: osEnv(), Host: host,
		Token: token, Addr: ln.Addr().String(), AuditTool: "skillpm " + skillpmVersion(),
		Search: func(ctx context.Context, q string) (any, error) {
			session := client.Session()
			src, err := session.OpenSource(spec)
			if err != nil {
				return nil, err
			}
			res, err := verified.Search(ctx, session, src, q, verified.SearchOptions{Verify: &vopts})
			if err != nil {
				return nil, err
			}
			return searchHits(f.registry, res), nil
		},
		Warn: func(s string) { fmt.Fprintln(g.stderr, "warning: "+s) },
	})
	if err != nil {
		return err
	}
	if remote {
		fmt.Fprintf(g.stderr, "warning: serving on %s, not loopback: anyone who can reach it and learns the token can install and remove skills, over plain HTTP\n", ln.Addr())
	}
	fmt.Fprintf(g.stdout, "skillpm serve: open %s\n", srv.URL())
	fmt.Fprintln(g.stderr, "The token in the URL is needed to install and remove; it changes every start. Ctrl-C stops the server.")
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if !g.quiet {
		fmt.Fprintln(g.stderr, "skillpm serve: stopped")
	}
	return nil
}

// searchHit is one search result as the panel shows it.
type searchHit struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Ref         string   `json:"ref"`
	Description string   `json:"description"`
	Tier        string   `json:"tier"`
	Claimed     string   `json:"claimed"`
	Permissions []string `json:"permissions"`
	Why         []string `json:"why"`
	Problem     string   `json:"problem,omitempty"`
}

// searchHits turns search results into what the panel shows, each with
// the reference that installs it: a bare name for the default source.
func searchHits(from string, res *verified.SearchResult) []searchHit {
	out := make([]searchHit, 0, len(res.Hits))
	ref := func(name, version string) string { return name + "@" + version }
	if from != "" {
		ref = func(name, version string) string { return strings.TrimSuffix(from, "/") + "/" + name + "@" + version }
	}
	for _, h := range res.Hits {
		s := h.Skill
		perms := append([]string{}, s.Permissions...)
		out = append(out, searchHit{Name: s.Name, Version: s.Latest, Ref: ref(s.Name, s.Latest), Description: s.Description,
			Tier: string(h.Effective), Claimed: string(s.Tier), Permissions: perms, Why: h.Why, Problem: h.Problem})
	}
	return out
}
