package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

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
	host        oneHost
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
	bindOneHost(c.Flags(), &f.host, "", "the agent `HOST` installs and removals default to, instead of the configuration's host, else agents")
	bindRegistry(c, &f.registryOption, "`SOURCE` of bare names and of search: a registry namespace or oci-layout:DIR; default the configuration's registry, else the embedded one")
	f.regFlags.addPlainHTTP(c)
	f.trustFlags.register(c)
	return c
}

func runServe(ctx context.Context, g *globals, f *serveFlags) error {
	host := g.config().Host
	if f.host.name != "" || host == "" {
		h, err := install.ParseHostIn(osEnv(), cmp.Or(f.host.name, string(install.DefaultHost)))
		if err != nil {
			return &usageError{err}
		}
		host = h
	}
	from := cmp.Or(f.registry, g.config().Registry)
	if _, err := api.CheckAddr(f.addr, f.allowRemote); err != nil {
		return serveAddrErr(f.addr, err)
	}
	client, err := regClient(g, &f.regFlags)
	if err != nil {
		return err
	}
	policy, vopts, err := f.trustFlags.load(ctx, g, "")
	if err != nil {
		return err
	}
	spec, err := registry.ParseSource(from)
	if err != nil {
		return fmt.Errorf("--registry: %w", err)
	}
	err = api.ListenAndServe(ctx, api.Config{
		Client: client, Policy: policy, Trust: vopts.Trust, From: from, Env: osEnv(), Host: host,
		AuditTool: "skillpm " + skillpmVersion(), Search: serveSearch(client, spec, &vopts, from), Warn: func(s string) { g.o().Warn(s) },
	}, api.ServeOptions{Addr: f.addr, AllowRemote: f.allowRemote, Listening: func(srv *api.Server, remote bool) { printServing(g, srv, remote) }})
	if err != nil {
		return serveAddrErr(f.addr, err)
	}
	if !g.quiet {
		fmt.Fprintln(g.stderr, "skillpm serve: stopped")
	}
	return nil
}

// serveAddrErr names --addr and --allow-remote in the address failures
// api reports.
func serveAddrErr(addr string, err error) error {
	switch {
	case errors.Is(err, api.ErrBadAddr):
		return &usageError{fmt.Errorf("--addr %q: give HOST:PORT, such as 127.0.0.1:7878", addr)}
	case errors.Is(err, api.ErrNotLoopback):
		return &usageError{fmt.Errorf("--addr %s is not a loopback address: anyone who can reach it could install skills on this machine; use 127.0.0.1, or add --allow-remote if you mean it", addr)}
	}
	if _, ok := errors.AsType[*api.ListenError](err); ok {
		return fmt.Errorf("%w (is another skillpm serve running? choose another port with --addr)", err)
	}
	return err
}

// printServing says where the panel is, with its token, and warns when
// it is reachable beyond loopback.
func printServing(g *globals, srv *api.Server, remote bool) {
	if remote {
		g.o().Warn(fmt.Sprintf("serving on %s, not loopback: anyone who can reach it and learns the token can install and remove skills, over plain HTTP", srv.Addr()))
	}
	fmt.Fprintf(g.stdout, "skillpm serve: open %s\n", srv.URL())
	fmt.Fprintln(g.stderr, "The token in the URL is needed to install and remove; it changes every start. Ctrl-C stops the server.")
}

// serveSearch is the panel's search: each request in its own registry
// session, hits verified with vopts, each with the reference that
// installs it.
func serveSearch(client *registry.Client, spec registry.SourceSpec, vopts *verified.VerifyOptions, from string) api.SearchFunc {
	return func(ctx context.Context, q string) (any, error) {
		session := client.Session()
		src, err := session.OpenSource(spec)
		if err != nil {
			return nil, err
		}
		res, err := verified.Search(ctx, session, src, q, verified.SearchOptions{Verify: vopts})
		if err != nil {
			return nil, err
		}
		return searchHits(from, res), nil
	}
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
