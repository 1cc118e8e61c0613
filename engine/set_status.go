package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
)

// statusPredicateType is the in-toto predicate type of a version's status
// after release: yanked (cargo's meaning) and deprecated (npm's).
const statusPredicateType = "https://skillpm.dev/status/v1"

// statusOf reads the status attestations attached to m and returns the
// newest one signed by a publisher of the version: an identity whose
// signature of m verifies under the trust policy. The attestation is
// read and verified over m's digest; a status tag is never trusted.
func (e *Engine) statusOf(ctx context.Context, repo *registry.Repository, m *registry.SkillVersion) (*registry.VersionStatus, error) {
	set, err := repo.Bundles(ctx, m.Descriptor, statusPredicateType)
	if err != nil {
		return nil, err
	}
	out := &registry.VersionStatus{}
	at := m.Metadata.Name + "@" + m.Metadata.Version
	for _, u := range set.Unreadable {
		out.Ignored = append(out.Ignored, fmt.Sprintf("%s: status %s: %v", at, u.Referrer.Digest, u.Err))
	}
	if len(set.Bundles) == 0 {
		return out, nil
	}
	policy, trust, err := e.trustPolicy(ctx)
	if err != nil {
		return nil, err
	}
	v, err := policycheck.VerifySkill(ctx, repo, m, policycheck.VerifyOptions{Trust: trust, Policy: policy})
	if err != nil {
		return nil, err
	}
	trust.PredicateType, trust.Accept = statusPredicateType, nil
	res, err := sign.VerifyAttestations(ctx, set.Raw(), m.Descriptor.Digest, trust)
	if err != nil {
		return nil, err
	}
	for _, f := range res.Failures {
		out.Ignored = append(out.Ignored, fmt.Sprintf("%s: status %s does not verify under the trust policy: %v", at, set.Bundles[f.Index].Referrer.Digest, f.Err))
	}
	for _, ok := range res.Verified {
		ref := set.Bundles[ok.Index].Referrer.Digest
		var st registry.Status
		if err := json.Unmarshal(ok.Predicate, &st); err != nil {
			out.Ignored = append(out.Ignored, fmt.Sprintf("%s: status %s signed by %s: not a status: %v", at, ref, ok.Identity, err))
			continue
		}
		if st.Name != m.Metadata.Name || st.Version != m.Metadata.Version {
			out.Ignored = append(out.Ignored, fmt.Sprintf("%s: status %s signed by %s names %s@%s", at, ref, ok.Identity, st.Name, st.Version))
			continue
		}
		if !slices.Contains(v.Signers, ok.Identity) {
			out.Ignored = append(out.Ignored, fmt.Sprintf("%s: status %s is signed by %s, who did not sign the version: only its publisher may yank or deprecate it", at, ref, ok.Identity))
			continue
		}
		if out.Signer == nil || cmp.Or(cmp.Compare(st.Serial, out.Serial), st.Time.Compare(out.Time)) > 0 {
			id := ok.Identity
			out.Status, out.Signer = st, &id
		}
	}
	return out, nil
}

// statusVersion returns the status of version v of repo when its tags
// hold a status tag for it, else nil: the tag list (read by resolution
// anyway) spares a referrers listing for every version without one.
func (e *Engine) statusVersion(ctx context.Context, repo *registry.Repository, v *semver.Version) (*registry.VersionStatus, *registry.SkillVersion, error) {
	tags, err := repo.Tags(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !registry.StatusVersions(tags)[v.Original()] {
		return nil, nil, nil
	}
	m, err := repo.Metadata(ctx, v)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.statusOf(ctx, repo, m)
	return st, m, err
}

// statuses returns the status of each of vs, versions of solver name
// key in g, that its repository's tags mark as having one, by version;
// the statuses that do not count are reported through Options.Log.
func (e *Engine) statuses(ctx context.Context, g *catalog.Registry, key string, vs []*semver.Version) (map[string]*registry.VersionStatus, error) {
	repo, err := g.Repository(key)
	if err != nil {
		return nil, nil
	}
	tags, err := repo.Tags(ctx)
	if errors.Is(err, registry.ErrNotFound) {
		// A skill built from a directory or a git reference has no
		// repository: nothing was said about it after release.
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	marked := registry.StatusVersions(tags)
	out := map[string]*registry.VersionStatus{}
	for _, v := range vs {
		if !marked[v.Original()] {
			continue
		}
		st, _, err := e.statusVersion(ctx, repo, v)
		if err != nil {
			return nil, fmt.Errorf("reading the status of %s@%s: %w", key, v, err)
		}
		e.warnIgnored(st)
		if st != nil {
			out[v.Original()] = st
		}
	}
	return out, nil
}

// hideYanked is the resolve.HideFunc of g: the yanked versions of a
// name, by the newest status its publisher signed, and the versions an
// obeyed advisory withdraws. A status that does not count hides nothing.
func (e *Engine) hideYanked(g *catalog.Registry) resolve.HideFunc {
	return func(ctx context.Context, key string, vs []*semver.Version) ([]resolve.Hidden, error) {
		sts, err := e.statuses(ctx, g, key, vs)
		if err != nil {
			return nil, err
		}
		ch, err := e.checkedAdvisories(ctx)
		if err != nil {
			return nil, err
		}
		repo := g.Namespace().Repository(key)
		var hidden []resolve.Hidden
		for _, v := range vs {
			if st := sts[v.Original()]; st != nil && st.Yanked {
				hidden = append(hidden, resolve.Hidden{Version: v, Why: "yanked by its publisher" + reason(st.Reason)})
				continue
			}
			for _, a := range ch.Index.Advised(key, v.Original(), repo) {
				if a.Refuses {
					hidden = append(hidden, resolve.Hidden{Version: v, Why: "withdrawn by " + a.Cite()})
					break
				}
			}
		}
		return hidden, nil
	}
}

func (e *Engine) warnIgnored(st *registry.VersionStatus) {
	if st == nil || !e.warns() {
		return
	}
	for _, s := range st.Ignored {
		e.warn(s + " (ignored)")
	}
}

// statusWarnings warns about each skill of res's lock that res placed
// and whose version is yanked or deprecated: a lock keeps a yanked
// version, but says so. An install that changed nothing asks nothing
// (it stays a no-op without the network).
func (e *Engine) statusWarnings(ctx context.Context, res *install.Result) {
	if res == nil || res.Lock == nil || !e.warns() {
		return
	}
	placed := map[string]bool{}
	for _, c := range res.Changes {
		if c.To != "" {
			placed[c.Name] = true
		}
	}
	for _, ls := range res.Lock.Skills {
		if ls.Git != "" || ls.Source == "" || !placed[ls.Name] {
			continue
		}
		v, err := semver.StrictNewVersion(ls.Version)
		if err != nil {
			continue
		}
		repo, err := install.OpenLocked(e.client, ls)
		if err != nil {
			continue
		}
		st, m, err := e.statusVersion(ctx, repo, v)
		if errors.Is(err, registry.ErrNotFound) {
			continue
		}
		if err != nil {
			e.warn(fmt.Sprintf("%s@%s: its status could not be read: %v", ls.Name, ls.Version, err))
			continue
		}
		if st == nil || (ls.Digest != "" && m.Descriptor.Digest.String() != ls.Digest) {
			continue
		}
		e.warnIgnored(st)
		if st.Yanked {
			e.warn(fmt.Sprintf("%s@%s is yanked%s: the lock keeps it, a new resolution would not choose it", ls.Name, ls.Version, reason(st.Reason)))
		}
		if st.Deprecated != "" {
			e.warn(fmt.Sprintf("%s@%s is deprecated: %s", ls.Name, ls.Version, st.Deprecated))
		}
	}
}

func reason(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}

// SetStatusRequest changes the status of published versions: `skillpm yank`
// and `skillpm deprecate`.
type SetStatusRequest struct {
	// Ref names the versions: NAME@VERSION for a yank, NAME or
	// NAME@RANGE for a deprecation (every version the range holds).
	Ref string
	// Yank sets Yanked to *Yank; nil leaves it.
	Yank *bool
	// Reason is recorded with a yank.
	Reason string
	// Deprecate sets the deprecation message; "" un-deprecates; nil
	// leaves it.
	Deprecate *string
	// Sign signs the new statuses; the signer must have signed each
	// version.
	Sign sign.SignOptions
}

// SetStatusResult is what SetStatus did, version by version.
type SetStatusResult struct {
	Changes []registry.StatusChange
}

// SetStatus signs and attaches a new status for each version r.Ref names
// (and tags it, see registry.StatusTag). A yank names one exact version.
// The signer must be a publisher of each version: with a key, one whose
// signature of the version verifies with that key (registry.ErrNotPublisher
// otherwise), checked before anything is attached. The result is never
// nil: on a failure it holds the versions done before it.
func (e *Engine) SetStatus(ctx context.Context, r SetStatusRequest) (*SetStatusResult, error) {
	out, err := e.setStatuses(ctx, r)
	return &SetStatusResult{Changes: out}, err
}

// setStatuses is SetStatus; on a failure it returns the versions done so
// far with it.
func (e *Engine) setStatuses(ctx context.Context, r SetStatusRequest) ([]registry.StatusChange, error) {
	ref, err := source.ParseRef(r.Ref)
	if err != nil {
		return nil, err
	}
	if ref.Kind == source.RefDir {
		return nil, invalid(fmt.Errorf("%s is a directory, not a published skill", r.Ref))
	}
	if r.Yank != nil && ref.Selector.Kind != source.SelectVersion {
		return nil, invalid(fmt.Errorf("%s: a yank names one version, as NAME@VERSION", r.Ref))
	}
	def, err := e.openSource(e.opts.Source)
	if err != nil {
		return nil, err
	}
	repo, err := e.client.OpenRef(ref, def)
	if err != nil {
		return nil, err
	}
	var ms []*registry.SkillVersion
	if ref.Selector.Kind == source.SelectVersion || ref.Selector.Kind == source.SelectDigest {
		m, err := repo.Get(ctx, ref.Selector, true)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	} else {
		vs, err := repo.Versions(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if ref.Selector.Kind == source.SelectRange && !ref.Selector.Range.Check(v) {
				continue
			}
			m, err := repo.Metadata(ctx, v)
			if err != nil {
				return nil, err
			}
			ms = append(ms, m)
		}
		if len(ms) == 0 {
			return nil, fmt.Errorf("%w: no published version of %s matches %s", errNoSuchSkill, repo.Name(), r.Ref)
		}
	}
	// Keyless signers are not checked here: readers still ignore a status
	// the version's signers did not sign.
	if r.Sign.Key != nil {
		for _, m := range ms {
			if err := repo.CheckPublisher(ctx, m, r.Sign.Key.Public()); err != nil {
				return nil, err
			}
		}
	}
	var out []registry.StatusChange
	for _, m := range ms {
		c, err := e.setStatus(ctx, repo, m, r)
		if err != nil {
			return out, err
		}
		out = append(out, *c)
	}
	return out, nil
}

func (e *Engine) setStatus(ctx context.Context, repo *registry.Repository, m *registry.SkillVersion, r SetStatusRequest) (*registry.StatusChange, error) {
	at := m.Metadata.Name + "@" + m.Metadata.Version
	cur, err := e.statusOf(ctx, repo, m)
	if err != nil {
		return nil, err
	}
	next := cur.Status
	next.Name, next.Version = m.Metadata.Name, m.Metadata.Version
	if r.Yank != nil {
		next.Yanked = *r.Yank
		next.Reason = ""
		if next.Yanked {
			next.Reason = r.Reason
		}
	}
	if r.Deprecate != nil {
		next.Deprecated = *r.Deprecate
	}
	out := &registry.StatusChange{Name: next.Name, Version: next.Version, Digest: m.Descriptor.Digest.String(), Status: next}
	if cur.Signer != nil && next.Yanked == cur.Yanked && next.Reason == cur.Reason && next.Deprecated == cur.Deprecated {
		out.Unchanged = true
		return out, nil
	}
	if cur.Signer == nil && !next.Yanked && next.Deprecated == "" {
		out.Unchanged = true
		return out, nil
	}
	next.Serial = cur.Serial + 1
	next.Time = time.Now().UTC().Truncate(time.Second)
	pred, err := json.Marshal(next)
	if err != nil {
		return nil, err
	}
	sig, err := sign.SignStatement(ctx, m.Descriptor, statusPredicateType, pred, r.Sign)
	if err != nil {
		if errors.Is(err, sign.ErrNoSigner) || errors.Is(err, sign.ErrConflictingSigners) || errors.Is(err, sign.ErrNoSigningConfig) || errors.Is(err, sign.ErrNoService) {
			return nil, invalid(err)
		}
		return nil, fmt.Errorf("signing the status of %s: %w", at, err)
	}
	desc, err := repo.AttachBundle(ctx, m.Descriptor, sig.Bundle, registry.AttachOptions{Created: next.Time, PredicateType: statusPredicateType})
	if err != nil {
		return nil, fmt.Errorf("%s: attaching its status: %w", at, err)
	}
	if err := repo.TagStatus(ctx, desc, m.Metadata.Version); err != nil {
		return nil, fmt.Errorf("%s: its status is attached as %s but could not be tagged (resolution looks for the tag; run the command again): %w", at, desc.Digest, err)
	}
	out.Status, out.Referrer = next, desc.Digest.String()
	return out, nil
}
