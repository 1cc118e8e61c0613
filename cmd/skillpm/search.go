package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/spf13/cobra"
)

type searchFlags struct {
	regFlags
	trustFlags
	limit         int
	noVerify      bool
	requireSigned bool
}

type searchHitJSON struct {
	Name        string   `json:"name"`
	Latest      string   `json:"latest"`
	Digest      string   `json:"digest"`
	Description string   `json:"description"`
	Claimed     string   `json:"claimed"`
	Attested    string   `json:"attested"`
	Effective   string   `json:"effective"`
	Permissions []string `json:"permissions"`
	Score       int      `json:"score"`
	Why         []string `json:"why"`
	Problem     string   `json:"problem,omitempty"`
}

type searchJSON struct {
	Source string `json:"source"`
	Index  string `json:"index"`
	// IndexSignatures and IndexSigners are there when verifying.
	IndexSignatures *int            `json:"index_signatures,omitempty"`
	IndexSigners    []string        `json:"index_signers,omitempty"`
	Total           int             `json:"total"`
	Hits            []searchHitJSON `json:"hits"`
}

func newSearchCmd(g *globals) *cobra.Command {
	var f searchFlags
	c := &cobra.Command{
		Use:   "search TERMS...",
		Short: "Search a source's index by name and description",
		Long: `Search reads the search index of a source (--registry, else the embedded
registry, or the configuration's registry when it names one; skillpm index build writes it) and ranks its skills: per term, an
exact name beats a name prefix, which beats a word of the name, which beats
the description (each time the term is a word of it, up to 3); ties by name.
The index manifest and JSON are cached by digest.

Each hit shows the latest version, the tier it claims, the tier its verified
signatures attest under the trust policy (--policy, --key), and its
permissions. The attested tier is verified, not read from the index: the
manifest is fetched by the index's digest and its signatures checked; a hit
no signature verifies for shows "unverified" (so does every hit with
--no-verify).

The index's own signatures (skillpm index build --sign) are verified too:
search says who signed the list, or warns when no one the trust policy
names did; --require-signed-index refuses such an index instead.

Exit status: 4 when the source has no index, 5 when --require-signed-index
finds no signature on it that verifies.`,
		Example: `  skillpm search web research
  skillpm search pdf --registry ghcr.io/acme/skills --policy marketplace.yaml
  skillpm search git --registry oci-layout:./mirror --output json`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runSearch(c, g, &f, args)
		},
	}
	bindRegistry(c, &f.registryOption, "search the index of `SOURCE` (registry namespace, oci-layout:DIR or embedded); default the embedded registry", "source")
	c.Flags().IntVar(&f.limit, "limit", 20, "show at most `N` hits")
	c.Flags().BoolVar(&f.noVerify, "no-verify", false, "do not verify the hits' or the index's signatures (every attested tier shows unverified)")
	c.Flags().BoolVar(&f.requireSigned, "require-signed-index", false, "refuse an index that no signature verifies for under the trust policy")
	f.trustFlags.register(c)
	f.addPlainHTTP(c)
	return c
}

func runSearch(c *cobra.Command, g *globals, f *searchFlags, args []string) error {
	ctx := c.Context()
	if f.requireSigned && f.noVerify {
		return classed(errdef.Usage, errors.New("--require-signed-index verifies the index's signatures; it cannot be used with --no-verify"))
	}
	ef := engineFlags{reg: &f.regFlags, from: f.registry}
	if !f.noVerify {
		ef.trust = &f.trustFlags
	}
	e, err := openEngine(ctx, g, ef)
	if err != nil {
		return err
	}
	res, err := e.Search(ctx, engine.SearchRequest{Query: strings.Join(args, " "), Limit: f.limit,
		NoVerify: f.noVerify, RequireSignedIndex: f.requireSigned})
	switch {
	case err != nil:
		return err
	}
	return printSearch(g, res, !f.noVerify, strings.Join(args, " "))
}

// printSearch renders a search: JSON, the names (-q), or a table with
// the index's signers and the hits' problems on stderr.
func printSearch(g *globals, res *policycheck.SearchResult, verified bool, query string) error {
	if g.json() {
		j := searchJSON{Source: res.Source, Index: res.Index.Digest.String(), Total: res.Total, Hits: []searchHitJSON{}}
		if verified {
			j.IndexSignatures = &res.IndexSignatures
			for _, id := range res.IndexSigners {
				j.IndexSigners = append(j.IndexSigners, id.String())
			}
		}
		for _, h := range res.Hits {
			s := h.Skill
			j.Hits = append(j.Hits, searchHitJSON{Name: s.Name, Latest: s.Latest, Digest: s.LatestDigest(), Description: s.Description,
				Claimed: string(s.Tier), Attested: string(h.Attested), Effective: string(h.Effective), Permissions: s.Permissions, Score: h.Score, Why: h.Why, Problem: h.Problem})
		}
		return g.writeJSON(j)
	}
	if g.quiet {
		// -q: only the names found, one a line.
		for _, h := range res.Hits {
			fmt.Fprintln(g.stdout, termText(h.Skill.Name))
		}
		return nil
	}
	if verified {
		printIndexSigners(g, res)
	}
	if len(res.Hits) == 0 && res.Indexed == 0 {
		fmt.Fprintf(g.stderr, "%s holds no skills yet: %s\n", res.Source, emptySourceNext)
		return nil
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(g.stderr, "no skill in %s matches %q\n", res.Source, query)
		return nil
	}
	tw := tabwriter.NewWriter(g.tableOut(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tLATEST\tCLAIMED\tATTESTED\tPERMISSIONS\tDESCRIPTION")
	for _, h := range res.Hits {
		s := h.Skill
		perms := strings.Join(s.Permissions, ",")
		if perms == "" {
			perms = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", termText(s.Name), termText(s.Latest), termText(string(s.Tier)), h.Attested, termText(perms), termTrim(s.Description, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, h := range res.Hits {
		if h.Problem != "" {
			g.o().Warn(fmt.Sprintf("%s: %s", termText(h.Skill.Name), termText(h.Problem)))
		}
	}
	if !g.quiet && res.Total > len(res.Hits) {
		fmt.Fprintf(g.stderr, "%d more; use --limit\n", res.Total-len(res.Hits))
	}
	return nil
}

// printIndexSigners says on stderr who signed the index, or warns that no
// one the trust policy names did.
func printIndexSigners(g *globals, res *policycheck.SearchResult) {
	if len(res.IndexSigners) == 0 {
		g.o().Warn(fmt.Sprintf("the search index %s is not signed by anyone the trust policy names (%s attached); each hit's tier is still verified on its own",
			res.Index.Digest, plural(res.IndexSignatures, "signature")))
		return
	}
	if g.quiet {
		return
	}
	ids := make([]string, len(res.IndexSigners))
	for i, id := range res.IndexSigners {
		ids[i] = id.String()
	}
	fmt.Fprintf(g.stderr, "index %s signed by %s\n", res.Index.Digest, strings.Join(ids, ", "))
}
