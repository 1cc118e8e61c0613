package main

import (
	"fmt"
	"github.com/skillpm/skillpm/pkg/errdef"
	"time"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/registry"
	"github.com/spf13/cobra"
)

func newAdvisoryCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "advisory",
		Short: "Publish a registry's signed advisory feed",
		Long: `A registry (or namespace) publishes one advisory feed: OSV entries naming
skills by repository and version range (and optionally digest), each with a
kind (malicious, revoked, vulnerability) and a severity, signed, with an
expiry. install, add, update and lock refuse what a malicious or revoked
entry names; doctor reports what is installed. The feed is obeyed only when
the trust policy names its signer under advisors, for the repositories in
that advisor's scopes, and only until it expires.`,
	}
	c.AddCommand(newAdvisoryPublishCmd(g))
	return c
}

// advisoryPublishJSON is a published feed: where, what, how many
// entries, until when, and its signature.
type advisoryPublishJSON struct {
	Source     string                     `json:"source"`
	Digest     string                     `json:"digest"`
	Advisories int                        `json:"advisories"`
	Expires    time.Time                  `json:"expires"`
	Signed     *registry.VersionSignature `json:"signed"`
}

type advisoryPublishFlags struct {
	regFlags
	signFlags
}

func newAdvisoryPublishCmd(g *globals) *cobra.Command {
	var f advisoryPublishFlags
	c := &cobra.Command{
		Use:   "publish FILE --key K",
		Short: "Publish and sign an advisory feed document",
		Long: `Publish checks FILE as an advisory feed document (schema
skillpm.advisories/v1: issued, expires, advisories in the OSV schema), pushes
it as the feed of the registry (--to, else --registry, else the configured
one) and signs it. A document that does not parse is refused before anything
is pushed; one that has expired is published with a warning (readers report
it and do not obey it).`,
		Example: `  skillpm advisory publish feed.json --key marketplace.key
  skillpm advisory publish feed.json --registry ghcr.io/acme/skills --keyless`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			opts, err := f.options(ctx, g)
			if err != nil {
				return err
			}
			data, err := readBoundedFeed(args[0])
			if err != nil {
				return err
			}
			e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: f.registry})
			if err != nil {
				return err
			}
			out, err := e.PublishAdvisories(ctx, engine.PublishAdvisoriesRequest{File: args[0], Data: data, Sign: opts})
			if err != nil {
				return err
			}
			feed := out.Feed
			if g.json() {
				return g.writeJSON(advisoryPublishJSON{Source: out.Source, Digest: out.Signed.Digest, Advisories: len(feed.Advisories), Expires: feed.Expires, Signed: out.Signed})
			}
			fmt.Fprintf(g.stdout, "published %d advisories to %s as %s, expiring %s\n", len(feed.Advisories), out.Source, out.Signed.Digest, feed.Expires.UTC().Format(time.RFC3339))
			printSigned(g.stdout, out.Signed, "signed")
			return nil
		},
	}
	f.signFlags.register(c, false)
	f.addRegistry(c)
	deprecatedAlias(c, "to", "registry")
	f.addPlainHTTP(c)
	return c
}

// readBoundedFeed reads an advisory feed document, bounded as the
// registry bounds it.
func readBoundedFeed(path string) ([]byte, error) {
	data, err := boundedfile.Read(path, registry.MaxAdvisoriesBytes)
	if err != nil {
		return nil, classed(errdef.Usage, err)
	}
	return data, nil
}
