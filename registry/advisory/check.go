package advisory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

// Checked is a source's advisory feed and what was decided about it.
// Index is set only when the feed is obeyed; otherwise Problem says why
// (ErrUntrustedFeed, ErrStaleFeed, ErrInvalidFeed), and the caller
// reports it and goes on as if there were no feed.
type Checked struct {
	// Source is the source the feed was read from.
	Source string
	// Digest is the feed manifest's digest; "" when there is no feed.
	Digest string
	// Feed is the parsed document, nil when there is none or it does
	// not parse.
	Feed *Feed
	// Advisors are the verified signers the policy names as advisors.
	Advisors []sign.Identity
	// Index holds the advisories obeyed, each for the repositories its
	// signers may advise on; nil when the feed is not obeyed.
	Index *Index
	// Problem says why the feed is not obeyed.
	Problem error
	// Ignored lists the advisories (or parts) outside every advisor's
	// scopes.
	Ignored []string
}

// CheckOptions controls [Check].
type CheckOptions struct {
	// Policy names the advisors; Trust is its signature trust material
	// (policycheck.PolicyTrust).
	Policy *tiers.Policy
	Trust  sign.VerifyOptions
	// Now is the time freshness is judged at; zero means time.Now().
	Now time.Time
}

// Check fetches src's feed, verifies its signatures over the feed
// manifest's digest, and decides whether to obey it: a verified signer
// the policy names as an advisor, and not past its expiry. A source
// without a feed is a Checked without Digest, and no error; the error is
// for a registry that cannot be read.
func Check(ctx context.Context, c *registry.Client, src registry.Source, opts CheckOptions) (*Checked, error) {
	out := &Checked{Source: src.String()}
	data, desc, repo, err := c.FetchAdvisories(ctx, src)
	if errors.Is(err, registry.ErrNoAdvisories) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	out.Digest = desc.Digest.String()
	at := fmt.Sprintf("advisory feed %s@%s", repo.Location(), desc.Digest)
	set, err := repo.Signatures(ctx, desc)
	if err != nil {
		return nil, err
	}
	if len(set.Bundles) == 0 {
		out.Problem = fmt.Errorf("%s: %w: it is not signed", at, ErrUntrustedFeed)
		return out, nil
	}
	res, err := sign.VerifyAll(ctx, set.Raw(), desc.Digest, opts.Trust)
	if err != nil {
		return nil, err
	}
	var strangers []string
	for _, v := range res.Verified {
		if opts.Policy.NamesAdvisor(v.Identity) {
			if !slices.Contains(out.Advisors, v.Identity) {
				out.Advisors = append(out.Advisors, v.Identity)
			}
		} else {
			strangers = append(strangers, v.Identity.String())
		}
	}
	switch {
	case len(res.Verified) == 0:
		out.Problem = fmt.Errorf("%s: %w: none of its %d signatures verifies under the trust policy", at, ErrUntrustedFeed, len(set.Bundles))
		return out, nil
	case len(out.Advisors) == 0:
		out.Problem = fmt.Errorf("%s: %w: signed by %s, whom the trust policy names as no advisor", at, ErrUntrustedFeed, strings.Join(strangers, ", "))
		return out, nil
	}
	if out.Feed, err = Parse(at, data); err != nil {
		out.Problem = err
		return out, nil
	}
	// A bare name is a skill of the feed's own source, so that a feed
	// copied to a mirror or a bundle names the copies there.
	for _, a := range out.Feed.Advisories {
		for i := range a.Affected {
			af := &a.Affected[i]
			if strings.Contains(af.Repository, "/") {
				continue
			}
			r, err := c.Repository(src, af.Repository)
			if err != nil {
				out.Ignored = append(out.Ignored, fmt.Sprintf("%s: advisory %s: %q is not a skill name: %v", at, a.ID(), af.Repository, err))
				continue
			}
			af.Repository = r.TrustRepository()
		}
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	if now.After(out.Feed.Expires) {
		out.Problem = fmt.Errorf("%s: %w: it expired at %s; its publisher must publish a fresh one (a mirror may be serving an old copy)", at, ErrStaleFeed, out.Feed.Expires.UTC().Format(time.RFC3339))
		return out, nil
	}
	out.Index = NewIndex(out.Feed.Advisories, func(a *Advisory, repository string) bool {
		for _, id := range out.Advisors {
			if _, ok := opts.Policy.Advisor(id, repository); ok {
				return true
			}
		}
		out.Ignored = append(out.Ignored, fmt.Sprintf("%s: advisory %s names %s, which no signer of the feed may advise on", at, a.ID(), repository))
		return false
	})
	return out, nil
}
