package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/skillpm/skillpm/api"
	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
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

It serves one project, the directory it runs in: a request's project scope
means that directory's roots, and no request can name another. Every request
reads the trust policy a command run there reads (--policy, else the
policy: of its skills.yaml, else config.yaml's policy:, else the search
path's), so a policy edited while it runs holds from the next request.

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
	if err := api.CheckFrom(from); err != nil {
		return fmt.Errorf("--registry: %w", err)
	}
	cfg, err := f.config(ctx, g, host, from)
	if err != nil {
		return err
	}
	err = api.ListenAndServe(ctx, cfg, api.ServeOptions{Addr: f.addr, AllowRemote: f.allowRemote, Listening: func(srv *api.Server, remote bool) { printServing(g, srv, remote) }})
	if err != nil {
		return serveAddrErr(f.addr, err)
	}
	if !g.quiet {
		fmt.Fprintln(g.stderr, "skillpm serve: stopped")
	}
	return nil
}

// config is the API's configuration: the registry client, the source of
// bare names and search, the host, and the trust read for each request
// (trustLoader).
func (f *serveFlags) config(ctx context.Context, g *globals, host install.HostID, from string) (api.Config, error) {
	client, err := regClient(g, &f.regFlags)
	if err != nil {
		return api.Config{}, err
	}
	load, err := f.trustLoader(ctx, g)
	if err != nil {
		return api.Config{}, err
	}
	return api.Config{
		Client: client, From: from, Env: osEnv(), Host: host,
		LoadTrust: func(ctx context.Context) (*tiers.Policy, sign.VerifyOptions, error) {
			p, v, err := load(ctx)
			return p, v.Trust, err
		},
		Search: serveSearch(g, client, from, load), Warn: func(s string) { g.o().Warn(s) },
	}, nil
}

// trustLoader returns what gives, for each request, the policy and trust
// material a command run here would read (--policy, else the project's,
// else config.yaml's, else the search path's): a policy edited while
// serving holds from the next request. A policy that does not load stops
// serve before it listens; the --key files are read once.
func (f *serveFlags) trustLoader(ctx context.Context, g *globals) (func(context.Context) (*tiers.Policy, policycheck.VerifyOptions, error), error) {
	if _, _, err := f.trustFlags.load(ctx, g, ""); err != nil {
		return nil, err
	}
	keys, err := f.publicKeys()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (*tiers.Policy, policycheck.VerifyOptions, error) {
		return f.trustFlags.loadWith(ctx, g, "", keys, func(err error) error { return err }, nil)
	}, nil
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

// serveSearch is the panel's search: engine.Search, as skillpm search
// runs it, in an engine opened for each request on its own registry
// session with the policy and trust material load gives for it; each hit
// with the reference that installs it. The engine's warnings and notes
// (an index built on a layout's first search) go to stderr.
func serveSearch(g *globals, client *registry.Client, from string, load func(context.Context) (*tiers.Policy, policycheck.VerifyOptions, error)) api.SearchFunc {
	return func(ctx context.Context, q string) (any, error) {
		policy, vopts, err := load(ctx)
		if err != nil {
			return nil, err
		}
		if policy == nil {
			policy = tiers.Default()
		}
		e, err := engine.Open(ctx, engine.Options{
			Client: client.Session(), Source: from, Env: osEnv(), Policy: policy, Trust: vopts.Trust,
			Log: slog.New(cliLog{warn: func(s string) { g.o().Warn(s) }, note: g.o().Note}),
		})
		if err != nil {
			return nil, err
		}
		res, err := e.Search(ctx, engine.SearchRequest{Query: q})
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
func searchHits(from string, res *policycheck.SearchResult) []searchHit {
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
