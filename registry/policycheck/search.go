package policycheck

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
)

// Search scores, per query term (lowercased), the best of:
//
//	ScoreExactName   the term is the name (or all terms joined by "-" are)
//	ScoreNamePrefix  the name starts with the term
//	ScoreNameToken   a "-"-separated part of the name is the term
//	ScoreTokenPrefix a part of the name starts with the term
//
// plus ScoreDescription for each time the term is a word of the
// description, counted at most MaxDescriptionHits times, so that no
// description outranks a name match. A skill matching no term is left out;
// ties are broken by name.
const (
	ScoreExactName     = 1000
	ScoreNamePrefix    = 300
	ScoreNameToken     = 100
	ScoreTokenPrefix   = 40
	ScoreDescription   = 10
	MaxDescriptionHits = 3
)

// SearchHit is one skill matching a query, with its score and why.
type SearchHit struct {
	// Skill is the index entry.
	Skill registry.IndexSkill
	// Score is the sum of the per-term scores.
	Score int
	// Why lists what matched ("exact name", "name prefix web", …).
	Why []string
}

// SearchIndex ranks idx's skills against query (words separated by spaces
// or punctuation): highest score first, then by name.
func SearchIndex(idx *registry.Index, query string) []SearchHit {
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil
	}
	joined := strings.Join(terms, "-")
	var hits []SearchHit
	for _, s := range idx.Skills {
		h := SearchHit{Skill: s}
		name := strings.ToLower(s.Name)
		if len(terms) > 1 && name == joined {
			h.Score += ScoreExactName
			h.Why = append(h.Why, "exact name")
		}
		tokens := strings.Split(name, "-")
		desc := words(s.Description)
		for _, t := range terms {
			switch {
			case name == t:
				h.Score += ScoreExactName
				h.Why = append(h.Why, "exact name")
			case strings.HasPrefix(name, t):
				h.Score += ScoreNamePrefix
				h.Why = append(h.Why, "name prefix "+t)
			case slices.Contains(tokens, t):
				h.Score += ScoreNameToken
				h.Why = append(h.Why, "name word "+t)
			case slices.ContainsFunc(tokens, func(tok string) bool { return strings.HasPrefix(tok, t) }):
				h.Score += ScoreTokenPrefix
				h.Why = append(h.Why, "name word prefix "+t)
			}
			if n := min(countOf(desc, t), MaxDescriptionHits); n > 0 {
				h.Score += n * ScoreDescription
				h.Why = append(h.Why, fmt.Sprintf("description %s ×%d", t, n))
			}
		}
		if h.Score > 0 {
			hits = append(hits, h)
		}
	}
	slices.SortFunc(hits, func(a, b SearchHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Skill.Name, b.Skill.Name))
	})
	return hits
}

func queryTerms(q string) []string {
	var out []string
	for _, w := range words(q) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// words splits text into lowercase words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func countOf(ws []string, t string) int {
	n := 0
	for _, w := range ws {
		if w == t {
			n++
		}
	}
	return n
}

// SearchOptions controls [Search].
type SearchOptions struct {
	// Limit bounds the hits returned; 0 means 20.
	Limit int
	// Verify, when set, verifies every hit's latest version: its manifest
	// is fetched by the digest the index states and its signatures are
	// checked, so the attested tier shown is one skillpm verified. Nil
	// leaves every hit "unverified".
	Verify *VerifyOptions
	// RequireSignedIndex refuses an index that no signature verifies for
	// under Verify's trust material (registry.ErrUnverified): the list itself, not
	// only each hit, must come from someone the policy names. It needs
	// Verify.
	RequireSignedIndex bool
}

// Validate reports options Search would refuse.
func (o SearchOptions) Validate() error {
	if o.Limit < 0 {
		return fmt.Errorf("%w: Limit must not be negative", registry.ErrInvalidOptions)
	}
	if o.RequireSignedIndex && o.Verify == nil {
		return fmt.Errorf("%w: RequireSignedIndex needs Verify (the trust material to check the index's signatures with)", registry.ErrInvalidOptions)
	}
	return nil
}

// Unverified stands for the attested tier of a hit that was not verified
// or that no signature verifies. It is not a tier: it is not Valid and
// ranks below every tier.
const Unverified skill.Tier = "unverified"

// SearchResult is a ranked, optionally verified, search of a source.
type SearchResult struct {
	// Source is the source searched.
	Source string
	// Index describes the index manifest read.
	Index ocispec.Descriptor
	// Total is how many skills matched before Limit.
	Total int
	// Indexed is how many skills the index holds: none means the source
	// is empty, which a front end says rather than "no match".
	Indexed int
	// Hits are the best matches.
	Hits []VerifiedHit
	// IndexSignatures is how many signatures are attached to the index
	// manifest, and IndexSigners who signed it, verified under the trust
	// material; both are set only when verifying.
	IndexSignatures int
	IndexSigners    []sign.Identity
}

// VerifiedHit is a search hit with what verification found.
type VerifiedHit struct {
	SearchHit
	// Attested is the tier the trust policy gives the latest version's
	// verified signers, or Unverified.
	Attested skill.Tier
	// Effective is the lower of Attested and the claimed tier, or
	// Unverified.
	Effective skill.Tier
	// Signers are the verified signers.
	Signers []sign.Identity
	// Problem says why the hit could not be verified (the manifest does
	// not match the index, a registry failure), "" otherwise.
	Problem string
}

// Search reads src's index ([registry.Client.FetchIndex]) and ranks it
// against query ([SearchIndex]); with opts.Verify it verifies each hit
// returned.
func Search(ctx context.Context, c *registry.Client, src registry.Source, query string, opts SearchOptions) (*SearchResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	idx, desc, err := c.FetchIndex(ctx, src)
	if err != nil {
		return nil, err
	}
	hits := SearchIndex(idx, query)
	limit := opts.Limit
	if limit <= 0 {
		limit = 20
	}
	res := &SearchResult{Source: src.String(), Index: desc, Total: len(hits), Indexed: len(idx.Skills)}
	if opts.Verify != nil {
		if res.IndexSignatures, res.IndexSigners, err = verifyIndex(ctx, c, src, desc, opts.Verify.Trust); err != nil {
			return nil, err
		}
		if opts.RequireSignedIndex && len(res.IndexSigners) == 0 {
			return nil, fmt.Errorf("%s@%s: %w: %w (%d attached); its maintainer has to sign it", src.Locate(registry.IndexRepository), desc.Digest, registry.ErrUnverified, registry.ErrUnsignedIndex, res.IndexSignatures)
		}
	}
	for _, h := range hits[:min(limit, len(hits))] {
		vh := VerifiedHit{SearchHit: h, Attested: Unverified, Effective: Unverified}
		if opts.Verify != nil {
			if err := verifyHit(ctx, c, src, &vh, *opts.Verify); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				vh.Problem = err.Error()
			}
		}
		res.Hits = append(res.Hits, vh)
	}
	return res, nil
}

// verifyIndex verifies the signatures attached to the index manifest desc
// and returns how many there are and who verifiably signed.
func verifyIndex(ctx context.Context, c *registry.Client, src registry.Source, desc ocispec.Descriptor, trust sign.VerifyOptions) (int, []sign.Identity, error) {
	repo, err := c.Repository(src, registry.IndexRepository)
	if err != nil {
		return 0, nil, err
	}
	set, err := repo.Signatures(ctx, desc)
	if err != nil {
		return 0, nil, err
	}
	n := len(set.Bundles) + len(set.Unreadable)
	if len(set.Bundles) == 0 {
		return n, nil, nil
	}
	res, err := sign.VerifyAll(ctx, set.Raw(), desc.Digest, trust)
	if err != nil {
		return n, nil, err
	}
	return n, res.Identities(), nil
}

func verifyHit(ctx context.Context, c *registry.Client, src registry.Source, h *VerifiedHit, opts VerifyOptions) error {
	s := h.Skill
	d, err := digest.Parse(s.LatestDigest())
	if err != nil {
		return fmt.Errorf("the index states no valid digest for %s@%s", s.Name, s.Latest)
	}
	repo, err := c.Repository(src, s.Name)
	if err != nil {
		return err
	}
	m, err := repo.Get(ctx, source.Selector{Kind: source.SelectDigest, Digest: d, Raw: d.String()}, true)
	if err != nil {
		return err
	}
	md := m.Metadata
	if md.Version != s.Latest || md.Tier != s.Tier || md.Description != s.Description || !slices.Equal(md.Permissions, s.Permissions) && len(md.Permissions)+len(s.Permissions) > 0 {
		return fmt.Errorf("the index entry does not match %s@%s (%s): rebuild the index", s.Name, s.Latest, d)
	}
	v, err := VerifySkill(ctx, repo, m, opts)
	if err != nil {
		return err
	}
	if len(v.Signers) > 0 {
		h.Attested, h.Effective, h.Signers = v.Decision.Attested, v.Decision.Effective, v.Signers
	}
	return nil
}
