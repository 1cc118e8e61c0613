package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/advisory"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
)

// checkedAdvisories returns the advisory feed of the Engine's source of bare
// names (Source, else FallbackSource, else the embedded registry) as the
// trust policy judges it, read once per Engine. A feed that is not obeyed
// (unsigned, signed by nobody the policy names as an advisor, stale) is
// reported through Options.Log, once, and changes nothing; so is an
// advisory outside its signers' scopes. The error is for a registry that
// cannot be read: a check that cannot be made is not a check that passed.
func (e *Engine) checkedAdvisories(ctx context.Context) (*advisory.Checked, error) {
	ch, first, err := e.advisoryFeed(ctx)
	if err != nil || !first || !e.warns() {
		return ch, err
	}
	for _, p := range feedProblems(ch) {
		e.warn(p)
	}
	return ch, nil
}

// feedProblems words why a feed, or parts of it, are not obeyed.
func feedProblems(ch *advisory.Checked) []string {
	var out []string
	if ch.Problem != nil {
		out = append(out, ch.Problem.Error()+": reported, not obeyed")
	}
	for _, s := range ch.Ignored {
		out = append(out, s+": ignored")
	}
	return out
}

// advisoryFeed reads and judges the feed once; first is true for the
// first call to be given it (a read ahead of a resolution is not given
// it: its problems are still reported once, by the first reader).
func (e *Engine) advisoryFeed(ctx context.Context) (_ *advisory.Checked, first bool, _ error) {
	ch, err := e.loadFeed(ctx)
	if err != nil {
		return nil, false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	first = !e.feedGiven
	e.feedGiven = true
	return ch, first, nil
}

// loadFeed returns the feed, reading it when no caller has yet; callers
// that arrive while it is being read wait for that read.
func (e *Engine) loadFeed(ctx context.Context) (*advisory.Checked, error) {
	e.mu.Lock()
	got := e.advisories
	e.mu.Unlock()
	if got != nil {
		return got, nil
	}
	v, err, _ := e.feedRead.Do("feed", func() (any, error) {
		ch, err := e.readFeed(ctx)
		if err == nil {
			e.mu.Lock()
			e.advisories = ch
			e.mu.Unlock()
		}
		return ch, err
	})
	if err != nil {
		return nil, err
	}
	return v.(*advisory.Checked), nil
}

// readFeed reads the feed of the Engine's source and judges it.
func (e *Engine) readFeed(ctx context.Context) (*advisory.Checked, error) {
	policy, trust, err := e.trustPolicy(ctx)
	if err != nil {
		return nil, err
	}
	src, err := e.openSource(e.opts.Source)
	if err != nil {
		return nil, err
	}
	ch, err := advisory.Check(ctx, e.client, src, advisory.CheckOptions{Policy: policy, Trust: trust})
	if err != nil {
		return nil, fmt.Errorf("reading the advisory feed of %s: %w", src, err)
	}
	return ch, nil
}

// feedAhead reads the feed ahead of a resolution (install.Options.Ahead),
// keeping it for the resolution's own read; what fails is left for that
// read to report.
func (e *Engine) feedAhead(ctx context.Context) {
	_, _ = e.loadFeed(ctx)
}

// checkAdvisories is install.Options.Check: it refuses a lock holding a
// version an obeyed advisory withdraws (advisory.ErrRevoked, naming each
// one) and warns about the others.
func (e *Engine) checkAdvisories(ctx context.Context, lock *resolve.Lockfile) error {
	ch, err := e.checkedAdvisories(ctx)
	if err != nil || ch.Index == nil || lock == nil {
		return err
	}
	var refused []string
	for _, ls := range lock.Skills {
		for _, a := range ch.Index.Advised(ls.Name, ls.Version, ls.Source, ls.Digest, ls.Tree) {
			if a.Refuses {
				refused = append(refused, a.String())
			} else {
				e.warn(a.String())
			}
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("%w: %s (advisory feed of %s)", advisory.ErrRevoked, strings.Join(refused, "; "), ch.Source)
	}
	return nil
}

// PublishAdvisoriesRequest publishes an advisory feed: `skillpm advisory
// publish`.
type PublishAdvisoriesRequest struct {
	// File names the document in messages; Data is its content.
	File string
	Data []byte
	// Sign signs the feed; a feed is useless unsigned, so a signer is
	// required.
	Sign sign.SignOptions
}

// PublishAdvisoriesResult is a published feed: where it went, the
// document as it was checked and pushed, and its signature.
type PublishAdvisoriesResult struct {
	// Source is where the feed went.
	Source string `json:"source"`
	// Feed is r.Data as parsed before it was pushed (its advisories and
	// expiry).
	Feed *advisory.Feed `json:"-"`
	// Signed is the signature attached; its Digest is the feed's
	// manifest as pushed.
	Signed *registry.VersionSignature `json:"signed"`
}

// PublishAdvisories checks r.Data as a feed document (refusing it before
// anything is pushed when it does not parse; warning when it has already
// expired), pushes it as the advisory feed of the Engine's source (Options.Source,
// else FallbackSource, else the embedded registry) and signs it.
func (e *Engine) PublishAdvisories(ctx context.Context, r PublishAdvisoriesRequest) (*PublishAdvisoriesResult, error) {
	f, err := advisory.Parse(r.File, r.Data)
	if err != nil {
		return nil, err
	}
	if time.Now().After(f.Expires) {
		// Published all the same: readers report a stale feed and do
		// not obey it, which is what a publisher testing that wants.
		e.warn(fmt.Sprintf("%s expired at %s: readers will report it and not obey it", r.File, f.Expires.UTC().Format(time.RFC3339)))
	}
	if err := r.Sign.Validate(); err != nil {
		return nil, invalid(err)
	}
	src, err := e.openSource(e.opts.Source)
	if err != nil {
		return nil, err
	}
	repo, desc, err := e.client.PushAdvisories(ctx, src, r.Data)
	if err != nil {
		return nil, err
	}
	out := &PublishAdvisoriesResult{Source: src.String(), Feed: f}
	if out.Signed, err = e.signDigest(ctx, repo, desc, registry.AdvisoriesTag, r.Sign); err != nil {
		return out, err
	}
	return out, nil
}

// installedAdvised is an advisory naming an installed copy, with what
// the engine acts on besides: root is the root holding it; foreign is ""
// for a copy skillpm installed; for one it did not, it says who placed it
// (install.ForeignOrigin), else "another tool or a hand": such a copy is
// named by its tree hash alone, as adopt identifies one. doctor and
// quarantine say so in their words.
type installedAdvised struct {
	install.AdvisedCopy
	root, foreign string
}

// advisedCopies are the copies of found, as a front end shows them.
func advisedCopies(found []installedAdvised) []install.AdvisedCopy {
	var out []install.AdvisedCopy
	for _, a := range found {
		out = append(out, a.AdvisedCopy)
	}
	return out
}

// auditInstalled checks every copy in roots against the obeyed feed:
// by the receipt's repository and version, and by the tree hash of the
// files on disk (so an edited copy is still named by a digest advisory);
// copies no receipt records (placed by other tools) by their tree hash. A feed that is not obeyed yields nothing (see
// Advisories for why).
func (e *Engine) auditInstalled(ctx context.Context, roots []install.Root) ([]installedAdvised, error) {
	ch, _, err := e.advisoryFeed(ctx)
	if err != nil {
		return nil, err
	}
	return e.auditWith(ctx, ch, roots)
}

// cachedAdvisories is auditInstalled against the feed as the caches hold
// it (the one a command last read from the Engine's source), asking no
// registry: what `skillpm list` shows, whose answer is local. The cached
// feed is judged as a fresh one is (its signatures verified under the
// trust policy, its expiry checked): feed is why it is not obeyed, or
// that there is none in the caches; "" when it is obeyed.
func (e *Engine) cachedAdvisories(ctx context.Context, roots []install.Root) (found []installedAdvised, feed string, err error) {
	policy, trust, err := e.trustPolicy(ctx)
	if err != nil {
		return nil, "", err
	}
	s := e.opts.Source
	if s == "" {
		s = e.opts.FallbackSource
	}
	spec, err := source.Parse(s)
	if err != nil {
		return nil, "", invalid(err)
	}
	off := e.client.OfflineSession()
	src, err := off.OpenSource(spec)
	if err != nil {
		return nil, "", err
	}
	ch, err := advisory.Check(ctx, off, src, advisory.CheckOptions{Policy: policy, Trust: trust})
	if errors.Is(err, registry.ErrOffline) {
		return nil, fmt.Sprintf("no advisory feed of %s in the caches: any command that resolves reads it (skillpm doctor does)", src), nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading the cached advisory feed of %s: %w", src, err)
	}
	if ch.Problem != nil {
		return nil, ch.Problem.Error() + ": not obeyed", nil
	}
	found, err = e.auditWith(ctx, ch, roots)
	return found, "", err
}

// auditWith is auditInstalled against ch.
func (e *Engine) auditWith(ctx context.Context, ch *advisory.Checked, roots []install.Root) ([]installedAdvised, error) {
	if ch.Index == nil {
		return nil, nil
	}
	var out []installedAdvised
	for _, r := range roots {
		rec, err := install.ReadReceipts(r.Dir)
		if err != nil {
			return nil, err
		}
		for _, s := range rec.Skills {
			if s.Source == "" || s.Link != "" {
				continue
			}
			dir := filepath.Join(r.Dir, s.Name)
			sum, err := archive.TreeHashInstalled(ctx, dir)
			if err != nil {
				continue
			}
			for _, a := range ch.Index.Advised(s.Name, s.Version, s.Source, s.Digest, sum.TreeHash) {
				out = append(out, installedAdvised{AdvisedCopy: install.AdvisedCopy{Advised: a, Dir: dir, Tree: sum.TreeHash}, root: r.Dir})
			}
		}
		foreign, err := e.foreignAdvised(ctx, ch.Index, r)
		if err != nil {
			return nil, err
		}
		out = append(out, foreign...)
	}
	return out, nil
}

// foreignAdvised checks the copies in r that no receipt records (another
// tool's, or a hand's) against the advisories naming digests: the tree
// hash of the files is the one thing known of them, as for adopt.
func (e *Engine) foreignAdvised(ctx context.Context, ix *advisory.Index, r install.Root) ([]installedAdvised, error) {
	items, err := install.ListWith(ctx, []install.Root{r}, e.env.Table())
	if err != nil {
		return nil, err
	}
	var out []installedAdvised
	for _, l := range items {
		if l.Managed || l.Invalid {
			continue
		}
		sum, err := archive.TreeHashInstalled(ctx, l.Dir)
		if err != nil {
			continue
		}
		for _, m := range ix.LookupDigest(sum.TreeHash) {
			out = append(out, installedAdvised{AdvisedCopy: install.AdvisedCopy{Advised: m.Advised(l.Name, l.Version), Dir: l.Dir, Tree: sum.TreeHash},
				root: r.Dir, foreign: cmp.Or(l.Origin, "another tool or a hand")})
		}
	}
	return out, nil
}
