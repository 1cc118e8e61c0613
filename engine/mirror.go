package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/source"
)

// MirrorRequest is one mirror of skills from a source to another.
type MirrorRequest struct {
	// To is the source copied to: a registry namespace, oci-layout:DIR,
	// or "embedded".
	To string
	// Options are registry.MirrorOptions (names, jobs, minimum tier,
	// since, progress); Verify is set by Mirror when Verify is true or a
	// minimum tier is asked for.
	Options registry.MirrorOptions
	// Verify verifies every version under the trust policy before it is
	// copied (a refused one is not copied).
	Verify bool
}

// Mirror copies skills with their signatures and attestations from the
// Engine's source (Options.Source, as Bundle copies from it; else
// FallbackSource, else the embedded registry) to r.To, as `skillpm
// mirror` does: with Verify or a minimum
// tier, each version is verified under the engine's trust policy first.
// The source's advisory feed, when it has one, is copied too.
func (e *Engine) Mirror(ctx context.Context, r MirrorRequest) (*registry.MirrorResult, error) {
	src, err := e.openSource(e.opts.Source)
	if err != nil {
		return nil, err
	}
	dst, err := openSourceArg(e.client, r.To)
	if err != nil {
		return nil, err
	}
	opts := r.Options
	if r.Verify || opts.MinTier != "" {
		policy, trust, err := e.trustPolicy(ctx)
		if err != nil {
			return nil, err
		}
		opts.Verify = policycheck.MirrorCheck(policycheck.VerifyOptions{Trust: trust, Policy: policy})
	}
	res, err := e.client.Mirror(ctx, src, dst, opts)
	if err != nil {
		return nil, err
	}
	// A mirror carries the feed unchanged (signatures and expiry with
	// it), so that its readers are checked as the origin's are.
	if _, err := e.client.CopyAdvisories(ctx, src, dst); err != nil {
		return res, fmt.Errorf("copying the advisory feed of %s: %w", src, err)
	}
	var copied []string
	for _, v := range res.Versions {
		if v.Status == registry.MirrorCopied && !slices.Contains(copied, v.Name) {
			copied = append(copied, v.Name)
		}
	}
	_, srcErr := sparse.Fetch(ctx, src)
	// To's sparse index describes the skills copied (one is created
	// when From has one); how that went goes to Options.Log.
	e.refreshSparse(ctx, dst, copied, srcErr == nil, nil)
	return res, nil
}

// sourceArg opens arg, the source a request names, or the source of bare
// names (Options.Source) when it names none.
func (e *Engine) sourceArg(arg string) (registry.Source, error) {
	if arg == "" {
		return e.openSource(e.opts.Source)
	}
	return openSourceArg(e.client, arg)
}

// openSourceArg opens a source a request names (mirror's destination,
// SourceNames'): a registry namespace, oci-layout:DIR, or "embedded"; a
// bare name is refused (ErrInvalidRequest).
func openSourceArg(c *registry.Client, arg string) (registry.Source, error) {
	if arg == "embedded" {
		return c.Embedded(), nil
	}
	spec, err := source.Parse(arg)
	if err != nil {
		return nil, invalid(err)
	}
	if spec.Kind == source.KindEmbedded {
		return nil, invalid(fmt.Errorf("%q is not a source: give a registry namespace (host/namespace), oci-layout:DIR or embedded", arg))
	}
	return c.OpenSource(spec)
}
