package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/tiers"
	"golang.org/x/sync/errgroup"
)

// Options controls Install.
type Options struct {
	// Roots are the discovery roots to install into (one transaction each).
	Roots []Root
	// Hosts is the hosts table the roots' hosts come from (the built-in
	// one and the user's file): what each host loads is read from it.
	// Nil means hosts.Builtin().
	Hosts *hosts.Table
	// Auditor audits every skill before it is installed (install/auditor
	// adapts pkg/audit). Without one, installs fail with ErrNoAuditor
	// unless NoAuditUnsafe is set.
	Auditor Auditor
	// NoAuditUnsafe installs without the static audit when Auditor is nil.
	NoAuditUnsafe bool
	// AllowAuditFindings installs skills whose static audit verdict blocks
	// at their tier.
	AllowAuditFindings bool
	// Policy decides tiers; nil means the built-in default.
	Policy *tiers.Policy
	// Trust is the signature trust material (policycheck.PolicyTrust).
	Trust sign.VerifyOptions
	// Grants, Yes, AllowExperimental and Prompter are the consent inputs
	// of tiers.GrantOptions.
	Grants            []string
	Yes               bool
	AllowExperimental bool
	Prompter          tiers.Prompter
	// MinTier refuses any skill whose effective tier is lower.
	MinTier skill.Tier
	// Force overwrites installed skills whose files were edited by hand.
	Force bool
	// Frozen refuses any change to the lock.
	Frozen bool
	// DryRun resolves, verifies and checks everything, then writes nothing.
	DryRun bool
	// Prerelease makes pre-releases candidates (--pre).
	Prerelease bool
	// LockFile, when set, is where skills.lock is written with the commit.
	LockFile string
	// Jobs bounds concurrent fetches; 0 means registry.DefaultRegistryRequests
	// (the Client bounds the requests per host in any case).
	Jobs int
	// LockWait bounds the wait for another skillpm on a root; 0 is
	// DefaultLockWait, a negative wait tries each lock once.
	LockWait time.Duration
	// AgentsRoots are where the copies that links point to may be
	// (AgentsRoots): a receipt's link record naming a copy elsewhere is
	// refused before its copy is updated or its root written.
	AgentsRoots []string
	// KnownTools are the tool names tools_required may name; nil means GAIA's.
	KnownTools *skill.KnownTools
	// Warn receives messages that do not stop the install.
	Warn func(string)
	// Hide withholds versions from a resolution (resolve.LockOptions.Hide).
	Hide resolve.HideFunc
	// Ahead, when set, is started in its own goroutine as a resolution
	// asks its first question of a registry (the sparse index, the roots'
	// tag lists), so that what the caller reads from the registry either
	// way (the advisory feed) goes out in the same round trip. It must
	// keep what it reads for the caller and return when ctx is done; the
	// resolution waits for it before it returns.
	Ahead func(ctx context.Context)
	// Check, when set, judges the lock about to be installed (resolved,
	// or kept as it is) before anything is staged; its error refuses the
	// install. The engine refuses revoked versions with it.
	Check func(ctx context.Context, lock *resolve.Lockfile) error
	// hook is passed to each root's transaction: the crash-safety tests
	// stop a commit at each step with it. It is not API.
	hook func(step string) error
	// Progress, when set, receives each stage as it starts; it may be
	// called from several goroutines at once.
	Progress func(Event)
	// AllowSignerChange accepts a skill signed by none of the identities
	// its receipt (or the previous lock) pins (--allow-signer-change).
	AllowSignerChange bool
	// AllowDowngrade lets Update choose a lower version than the one
	// installed, and Install a lower version than prev (the project's lock,
	// or what the first root holds) when the range asked for still admits
	// prev's version: the newer one vanished from the registry
	// (--allow-downgrade). Naming a range that excludes it is asking for
	// the downgrade.
	AllowDowngrade bool
	// AllowRepublished accepts a version whose manifest digest differs
	// from the one locked or installed for that same version: its tag was
	// moved to other content (--allow-republished).
	AllowRepublished bool
	// Local are skills to install from local directories, each built with
	// registry.Build. Install adds each to the manifest at its exact
	// version; their dependencies resolve normally.
	Local []Local
	// InstalledAt, when not zero (SOURCE_DATE_EPOCH), is written into the
	// receipts; zero keeps two installs from one lock byte-identical.
	InstalledAt time.Time
	// Budget bounds the registry requests and registries of the
	// operation (see registry.Budget); nil means registry.DefaultBudget.
	Budget *registry.Budget
	// OnPlan, when set, is shown the changes every root will get once each
	// skill is fetched and verified, before consent is asked and before
	// anything is written. An error stops the install.
	OnPlan func(ctx context.Context, changes []Change) error
	// NoIndex resolves against the registry even where the namespace has
	// a signed sparse index (--no-index).
	NoIndex bool

	// vouch, when set, checks each manifest prepare fetches by digest
	// before anything else is read of it (the sparse index's entries).
	vouch func(ctx context.Context, ls resolve.LockedSkill, repo *registry.Repository, m *registry.SkillVersion) error
	// referrers, when set, returns the referrers of ls's manifest m when
	// they are known without a listing (the sparse index).
	referrers func(ls resolve.LockedSkill, m *registry.SkillVersion) ([]ocispec.Descriptor, bool)
}

// budget returns o.Budget, else a new registry.DefaultBudget.
func (o Options) budget() *registry.Budget {
	if o.Budget != nil {
		return o.Budget
	}
	return registry.DefaultBudget()
}

func (o Options) knownReferrers(ls resolve.LockedSkill, m *registry.SkillVersion) ([]ocispec.Descriptor, bool) {
	if o.referrers == nil {
		return nil, false
	}
	return o.referrers(ls, m)
}

// Planned is one skill of an install plan.
type Planned struct {
	Lock        resolve.LockedSkill `json:"lock"`
	Permissions []string            `json:"permissions"`
	Claimed     skill.Tier          `json:"claimed"`
	Grants      []Grant             `json:"grants,omitempty"`
	// UnknownTools are allowed-tools entries that map to no permission;
	// they need consent outside the verified tier.
	UnknownTools []string `json:"unknownTools,omitempty"`
	Verification *policycheck.Verification
	manifest     *registry.SkillVersion
	repo         *registry.Repository
	// local is set for a skill installed from a local directory.
	local *Local
	// layer and referrers are what the lock records for install --frozen.
	layer     *resolve.LockedBlob
	referrers []resolve.LockedReferrer
}

// RootResult says what happened in one root.
type RootResult struct {
	Root      Root     `json:"root"`
	Installed []string `json:"installed"`
	Unchanged []string `json:"unchanged"`
	Recovered bool     `json:"recovered,omitempty"`
}

// Result is the outcome of Install.
type Result struct {
	Lock  *resolve.Lockfile `json:"-"`
	Plan  []*Planned        `json:"-"`
	Roots []RootResult      `json:"roots"`
	// Changes are what the plan changes in each root (see Options.OnPlan).
	Changes []Change `json:"changes"`
}

// Install resolves what m asks for (with prev's versions preferred), then
// fetches, verifies, unpacks and checks every skill of the solution before
// anything is committed, then commits each root atomically. Nothing is
// committed when anything is refused. A skill whose receipt (or prev's
// entry) pins signers must be signed by one of them unless
// opts.AllowSignerChange.
//
// Every root's lock is taken, and any interrupted transaction finished,
// before its receipts are read, so a plan is never made from a commit
// half done. The lock is then let go while the plan is fetched, staged
// (in this process's own staging area of the root, which no other
// skillpm's recovery removes), audited and consented to, and taken again
// to commit: a root whose records of the plan's skills changed in the
// meantime is planned again (ErrRootChanged after commitAttempts), and
// the folders committed are the ones audited, renamed into place.
// Callers that build m from what a root holds use InstallRefs instead,
// which builds it under the lock.
//
// Tiers, permissions and consent are decided from the SKILL.md inside
// each verified layer, parsed once where it is staged; a manifest whose
// annotations or config disagree with it is refused
// (registry.ErrContentMismatch, wrapped with tiers.ErrRefused).
func Install(ctx context.Context, c *registry.Client, cat resolve.Catalog, m *resolve.Manifest, prev *resolve.Lockfile, opts Options) (*Result, error) {
	// Installing a project's lock that satisfies its manifest into roots
	// that already hold it is a no-op that asks no registry anything.
	if opts.LockFile != "" && prev != nil && len(opts.Local) == 0 && !opts.DryRun && prev.Satisfies(m, cat.Namespace()) == nil {
		if rrs, ok := upToDate(ctx, opts.Roots, prev); ok && !lockChanged(opts.LockFile, prev) {
			if opts.Check != nil {
				if err := opts.Check(ctx, prev); err != nil {
					return nil, err
				}
			}
			return &Result{Lock: prev, Roots: rrs, Changes: []Change{}}, nil
		}
	}
	return install(ctx, c, cat, func() (*resolve.Manifest, *resolve.Lockfile, error) { return m, prev, nil }, opts)
}

// InstallRefs installs the references refs as FromRefs turns them into a
// manifest (file names them in messages), reading the first root's
// receipts only once every root is locked and recovered.
//
// Exact versions that every root already holds, with their dependencies,
// as the receipts say and with files that still match them, are a no-op
// that asks no registry anything: nothing is fetched, so nothing is
// decided anew (update and verify ask the registry). Options that ask
// for a decision (grants, a minimum tier, --force, a dry run, local
// skills, republished versions) take the full path.
func InstallRefs(ctx context.Context, c *registry.Client, cat resolve.Catalog, file string, refs []string, opts Options) (*Result, error) {
	if rrs, prev, ok := refsUpToDate(ctx, cat.Namespace(), file, refs, opts); ok {
		return &Result{Lock: prev, Roots: rrs, Changes: []Change{}}, nil
	}
	return install(ctx, c, cat, func() (*resolve.Manifest, *resolve.Lockfile, error) { return FromRefs(file, refs, opts.Roots) }, opts)
}

// commitAttempts bounds how often an install or update is planned again
// because another skillpm committed a change to one of its skills while
// it was being checked (ErrRootChanged). Every such retry follows another
// skillpm's commit, so n installs of one skill at once need at most n-1;
// the bound only stops a root that keeps changing.
const commitAttempts = 10

func install(ctx context.Context, c *registry.Client, cat resolve.Catalog, request func() (*resolve.Manifest, *resolve.Lockfile, error), opts Options) (*Result, error) {
	ctx = registry.WithBudget(ctx, opts.budget())
	for attempt := 1; ; attempt++ {
		res, err := installOnce(ctx, c, cat, request, opts)
		if !errors.Is(err, ErrRootChanged) || attempt == commitAttempts {
			return res, err
		}
		if opts.Warn != nil {
			opts.Warn(err.Error() + "; checking again")
		}
	}
}

func installOnce(ctx context.Context, c *registry.Client, cat resolve.Catalog, request func() (*resolve.Manifest, *resolve.Lockfile, error), opts Options) (*Result, error) {
	held, err := lockRoots(ctx, opts.Roots, opts)
	if err != nil {
		return nil, err
	}
	defer held.unlock()
	m, prev, err := request()
	if err != nil {
		return nil, err
	}
	// Resolving, fetching, staging, the audit and consent take as long as
	// the network, the skills and the user do: the roots are not held
	// for them. The receipts read now are checked again at the commit.
	held.release()
	j, err := newJob(ctx, c, cat, m, prev, opts.Roots, opts)
	if err != nil {
		return nil, err
	}
	defer j.abort()
	if opts.Check != nil {
		if err := opts.Check(ctx, j.lock); err != nil {
			return nil, err
		}
	}
	if err := j.stageAll(ctx, opts); err != nil {
		return nil, err
	}
	if opts.OnPlan != nil {
		if err := opts.OnPlan(ctx, j.changes); err != nil {
			return nil, err
		}
	}
	if err := j.checkPins(opts, false); err != nil {
		return nil, err
	}
	if err := j.checkLockDowngrade(opts); err != nil {
		return nil, err
	}
	if err := j.consent(ctx, opts); err != nil {
		return nil, err
	}
	if opts.Frozen {
		// --frozen installs the lock as it is and never writes it.
		opts.LockFile = ""
	}
	if err := held.relock(ctx, opts, j); err != nil {
		return nil, err
	}
	res := &Result{Lock: j.lock, Plan: j.plan, Changes: j.changes}
	rrs, err := j.commit(ctx, opts, held)
	res.Roots = rrs
	if err != nil {
		return res, err
	}
	// Links this install replaced by copies leave their copies' receipts
	// once every root of the install is unlocked (unlinked locks the
	// copy's root alone).
	held.unlock()
	for _, u := range j.unlinks {
		if _, err := unlinked(ctx, u[0], u[1], false, opts.LockWait, opts.hook); err != nil {
			return res, fmt.Errorf("%s is a copy now, but updating the copy the link pointed to failed: %w", u[0], err)
		}
	}
	return res, nil
}

// heldRoots are the locks of the roots of one command, taken in a fixed
// order (so two commands on overlapping roots cannot deadlock). They are
// held while receipts are read and a plan is made from them, let go
// (release) while the plan is fetched, staged, audited and consented to,
// and taken again (relock) to check the receipts did not change and to
// commit.
type heldRoots struct {
	locks     map[string]*RootLock
	order     []string
	recovered map[string]bool
	// fresh are the roots that had no state directory, created those that
	// did not exist at all, committed those a transaction was committed to.
	fresh, committed map[string]bool
	// created are, per fresh root, the directories it made to reach it,
	// deepest first.
	created map[string][]string
	// dirs are the roots' directories in locking order; wait bounds the
	// wait for each lock.
	dirs []string
	wait time.Duration
}

// lockRoots locks every root and finishes any transaction a crash
// interrupted there. A dry run takes no lock and recovers nothing: it
// writes nothing.
func lockRoots(ctx context.Context, roots []Root, opts Options) (*heldRoots, error) {
	h := &heldRoots{locks: map[string]*RootLock{}, recovered: map[string]bool{}, fresh: map[string]bool{}, created: map[string][]string{}, committed: map[string]bool{}}
	if opts.DryRun {
		return h, nil
	}
	h.wait = opts.LockWait
	if h.wait == 0 {
		h.wait = DefaultLockWait
	}
	for _, r := range roots {
		if !slices.Contains(h.dirs, r.Dir) {
			h.dirs = append(h.dirs, r.Dir)
		}
	}
	sort.Strings(h.dirs)
	for _, d := range h.dirs {
		if _, err := os.Lstat(filepath.Join(d, stateDir)); errors.Is(err, fs.ErrNotExist) {
			h.fresh[d] = true
			for p := d; ; p = filepath.Dir(p) {
				if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) || filepath.Dir(p) == p {
					break
				}
				h.created[d] = append(h.created[d], p)
			}
		}
	}
	if err := h.lock(ctx); err != nil {
		return nil, err
	}
	return h, nil
}

// lock takes every root's lock in order and recovers each.
func (h *heldRoots) lock(ctx context.Context) error {
	for _, d := range h.dirs {
		l, err := Lock(ctx, d, h.wait)
		if err != nil {
			h.unlock()
			return err
		}
		h.locks[d] = l
		h.order = append(h.order, d)
		rec, err := recoverTxn(ctx, d)
		if err != nil {
			h.unlock()
			return fmt.Errorf("%s: %w", d, err)
		}
		h.recovered[d] = h.recovered[d] || rec
	}
	return nil
}

// release lets every lock go, keeping what unlock needs to leave a fresh
// root as it was found.
func (h *heldRoots) release() {
	for i := len(h.order) - 1; i >= 0; i-- {
		h.locks[h.order[i]].Unlock()
	}
	h.order, h.locks = nil, map[string]*RootLock{}
}

// relock takes every root's lock again, finishes what a crash of another
// skillpm left, and refuses the commit when a root's receipts are no
// longer those the jobs' plans were made from: another skillpm
// committed there in the meantime.
func (h *heldRoots) relock(ctx context.Context, opts Options, jobs ...*job) error {
	if opts.DryRun {
		return nil
	}
	if err := h.lock(ctx); err != nil {
		return err
	}
	for _, j := range jobs {
		for i, r := range j.roots {
			now, err := ReadReceipts(r.Dir)
			if err != nil {
				return fmt.Errorf("%s: %w", r.Dir, err)
			}
			// The plan holds if none of its skills changed; the records
			// of other skills are kept as they are now.
			for _, p := range j.plan {
				was, had := j.receipts[i].Get(p.Lock.Name)
				is, has := now.Get(p.Lock.Name)
				if had != has || !sameRecord(was, is) {
					return fmt.Errorf("%w: another skillpm changed %s in %s while this one checked it; nothing was committed", ErrRootChanged, p.Lock.Name, r.Dir)
				}
			}
			j.receipts[i] = now
		}
	}
	return nil
}

// unlock releases every lock. A root this command found without any
// skillpm state and committed nothing to is left as it was found: its
// lock file goes while still held (Lock notices a lock file unlinked
// under it), then the state directory and, when it made it, the root.
// A root released and not taken again is locked once more for that,
// unless another skillpm holds it now (then the state is its).
func (h *heldRoots) unlock() {
	for _, d := range h.dirs {
		if _, ok := h.locks[d]; ok || !h.fresh[d] || h.committed[d] {
			continue
		}
		if l, err := Lock(context.Background(), d, 0); err == nil {
			h.locks[d] = l
			h.order = append(h.order, d)
		}
	}
	for i := len(h.order) - 1; i >= 0; i-- {
		d := h.order[i]
		l := h.locks[d]
		undo := h.fresh[d] && !h.committed[d]
		if undo {
			l.discard()
		}
		l.Unlock()
		if undo {
			os.Remove(filepath.Join(d, stateDir))
			for _, p := range h.created[d] {
				os.Remove(p) // only while empty
			}
		}
	}
	h.order, h.locks, h.dirs = nil, nil, nil
}

// job is one resolution and its verified plan, for the roots it is to be
// committed into. Install makes one for all its roots; Update one per root.
type job struct {
	lock  *resolve.Lockfile
	prev  *resolve.Lockfile
	plan  []*Planned
	roots []Root
	// receipts are each root's receipts, read under the root's lock.
	receipts []*Receipts
	changes  []Change
	// stages are each root's staged transaction, in roots order.
	stages []*rootStage
	// dry is the staging of a dry run, outside every root.
	dry *txn
	// manifest and ns are what was resolved, for the downgrade check.
	manifest *resolve.Manifest
	ns       resolve.Namespace
	// unlinks are the links commit replaced by copies, with the copy each
	// pointed to.
	unlinks [][2]string
}

// newJob resolves, fetches and verifies, and reads each root's receipts.
// It writes nothing.
func newJob(ctx context.Context, c *registry.Client, cat resolve.Catalog, m *resolve.Manifest, prev *resolve.Lockfile, roots []Root, opts Options) (*job, error) {
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	if len(opts.Local) > 0 {
		var err error
		if cat, m, err = withLocal(cat, m, opts.Local); err != nil {
			return nil, err
		}
	}
	opts.progress(Event{Stage: StageResolving})
	// --allow-republished asks what the tags say now: nothing is pinned.
	if !opts.AllowRepublished {
		pinLocked(ctx, c, prev)
	}
	lock, plan, err := installLocked(ctx, c, cat.Namespace(), m, prev, opts)
	if err != nil {
		return nil, err
	}
	if lock == nil {
		if lock, plan, err = resolveAndPrepare(ctx, c, cat, m, prev, opts, warn); err != nil {
			return nil, err
		}
	}
	j := &job{lock: lock, prev: prev, plan: plan, roots: roots, manifest: m, ns: cat.Namespace()}
	for _, r := range roots {
		rec, err := ReadReceipts(r.Dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Dir, err)
		}
		if err := rec.checkLinks(filepath.Join(r.Dir, stateDir, receiptsFile), opts.AgentsRoots); err != nil {
			return nil, err
		}
		j.receipts = append(j.receipts, rec)
	}
	j.changes = j.diff()
	j.tierWarnings(warn)
	return j, nil
}

// tierWarnings passes on what the trust policy said about the tiers of
// the skills the job changes (a claim above what is attested); the
// skills a root keeps as they are were warned about when they came.
func (j *job) tierWarnings(warn func(string)) {
	changed := map[string]bool{}
	for _, ch := range j.changes {
		changed[ch.Name] = true
	}
	for _, p := range j.plan {
		if p.Verification == nil || !changed[p.Lock.Name] {
			continue
		}
		for _, w := range p.Verification.Decision.Warnings {
			warn(fmt.Sprintf("%s@%s: %s", p.Lock.Name, p.Lock.Version, w))
		}
	}
}

// resolveAndPrepare resolves m (prev's versions preferred), then fetches
// and verifies the solution.
func resolveAndPrepare(ctx context.Context, c *registry.Client, cat resolve.Catalog, m *resolve.Manifest, prev *resolve.Lockfile, opts Options, warn func(string)) (*resolve.Lockfile, []*Planned, error) {
	if opts.Ahead != nil {
		// Waited for, so that nothing it does outlives the install.
		done := make(chan struct{})
		go func() { defer close(done); opts.Ahead(ctx) }()
		defer func() { <-done }()
	}
	// A namespace's signed sparse index answers the solver in two round
	// trips; without one the registry does, fetched ahead of the solver.
	if g, ok := cat.(*catalog.Registry); ok && !opts.NoIndex {
		lock, plan, ok, err := resolveFromIndex(ctx, c, g, m, prev, opts, warn)
		if err != nil || ok {
			return lock, plan, err
		}
	}
	// A registry-backed catalog can fetch ahead of the solver, which asks
	// one question at a time.
	if g, ok := cat.(*catalog.Registry); ok {
		roots := map[string]string{}
		for _, r := range m.Skills {
			if key, err := cat.Namespace().Key(r.Name); err == nil {
				roots[key] = r.Range
			}
		}
		// Layers download while the solver runs, except in a dry run.
		stop := g.PrefetchWith(ctx, catalog.PrefetchOptions{Jobs: opts.Jobs, Roots: roots, Layers: !opts.DryRun,
			Prefer: prev.Preferences(cat.Namespace())})
		defer stop()
	}
	lock, err := resolve.Lock(ctx, cat, m, prev, resolve.LockOptions{Frozen: opts.Frozen, Prerelease: opts.Prerelease, Warn: warn, Hide: opts.Hide})
	if err != nil {
		return nil, nil, err
	}
	plan, err := prepare(ctx, c, cat.Namespace(), lock, opts)
	if err != nil {
		return nil, nil, err
	}
	return lock, plan, nil
}

// consent applies the tier rules to the job's whole set (checkTrust),
// carrying forward the consent each root's receipts record.
func (j *job) consent(ctx context.Context, opts Options) error {
	opts.progress(Event{Stage: StageChecking})
	return checkTrust(ctx, j.lock, j.plan, j.carried(), j.kept(), opts)
}

// commit installs the staged plan into each of the job's roots in turn.
func (j *job) commit(ctx context.Context, opts Options, held *heldRoots) ([]RootResult, error) {
	var out []RootResult
	for i, r := range j.roots {
		opts.progress(Event{Stage: StageCommitting, Root: r.Dir})
		// From here on the root may hold this command's journal.
		held.committed[r.Dir] = true
		rr, err := j.commitRoot(ctx, i, opts)
		rr.Recovered = held.recovered[r.Dir]
		if err != nil {
			return out, fmt.Errorf("%s: %w", r.Dir, err)
		}
		out = append(out, rr)
	}
	return out, nil
}

// prepare opens each locked skill's repository, fetches its manifest by
// digest and verifies its signatures, concurrently.
func prepare(ctx context.Context, c *registry.Client, ns resolve.Namespace, lock *resolve.Lockfile, opts Options) ([]*Planned, error) {
	plan := make([]*Planned, len(lock.Skills))
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = defaultJobs
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for i, ls := range lock.Skills {
		g.Go(func() error {
			opts.progress(Event{Stage: StageFetching, Skill: ls.Name + "@" + ls.Version})
			if loc := localNamed(opts.Local, ns, ls); loc != nil {
				p, err := prepareLocal(gctx, c, ls, loc, opts)
				plan[i] = p
				return err
			}
			repo, err := OpenLocked(c, ls)
			if err != nil {
				return err
			}
			d, err := digest.Parse(ls.Digest)
			if err != nil {
				return fmt.Errorf("%s@%s: bad digest in lock: %w", ls.Name, ls.Version, err)
			}
			// --frozen with a lock that records the layer and referrers
			// reads them by digest beside the manifest.
			var lockedRefs []ocispec.Descriptor
			refsFetched := func() {}
			frozen := opts.Frozen && ls.Layer != nil
			if frozen {
				var wait func()
				lockedRefs, refsFetched, wait = prefetchLocked(gctx, repo, ls)
				defer wait()
			}
			m, err := repo.Get(gctx, source.Selector{Kind: source.SelectDigest, Raw: ls.Digest, Digest: d}, true)
			if err != nil {
				return fmt.Errorf("%s@%s: %w", ls.Name, ls.Version, err)
			}
			if frozen {
				if err := checkLockedLayer(ls, m); err != nil {
					return err
				}
			}
			if opts.vouch != nil {
				if err := opts.vouch(gctx, ls, repo, m); err != nil {
					return err
				}
			}
			if m.Metadata.Name != ls.Name || m.Metadata.Version != ls.Version {
				return fmt.Errorf("%s@%s: the lock's digest %s is %s@%s", ls.Name, ls.Version, ls.Digest, m.Metadata.Name, m.Metadata.Version)
			}
			// The layer downloads into the cache while the signatures are
			// read; nothing is unpacked until the whole set is judged. A dry
			// run unpacks nothing, so it downloads no layer either.
			layer := make(chan error, 1)
			if opts.DryRun {
				layer <- nil
			} else {
				go func() { layer <- repo.FetchLayer(gctx, m) }()
			}
			opts.progress(Event{Stage: StageVerifying, Skill: ls.Name + "@" + ls.Version})
			// Passing audit attestations count for policies with requireAudit.
			vo := policycheck.VerifyOptions{Trust: opts.Trust, Policy: opts.Policy}
			var (
				v  *policycheck.Verification
				av *registry.AuditVerification
			)
			if refs, ok := opts.knownReferrers(ls, m); frozen || ok {
				if frozen {
					refs = lockedRefs
					refsFetched()
				}
				v, av, err = policycheck.VerifyWithAuditsFrom(gctx, repo, m, refs, vo)
			} else {
				v, av, err = policycheck.VerifyWithAudits(gctx, repo, m, vo)
			}
			if lerr := <-layer; err == nil && lerr != nil {
				return fmt.Errorf("%s@%s: %w", ls.Name, ls.Version, lerr)
			}
			if err != nil {
				return fmt.Errorf("%s@%s: verifying signatures: %w", ls.Name, ls.Version, err)
			}
			layerBlob, refs, err := lockedContent(gctx, repo, m, v, av)
			if err != nil {
				return fmt.Errorf("%s@%s: %w", ls.Name, ls.Version, err)
			}
			plan[i] = &Planned{Lock: ls, Permissions: m.Metadata.Permissions, Claimed: m.Metadata.Tier,
				Verification: v, manifest: m, repo: repo, layer: layerBlob, referrers: refs}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, p := range plan {
		lock.Skills[i].Tier = p.Verification.Decision.Effective
		lock.Skills[i].Signers = nil
		if p.layer != nil {
			lock.Skills[i].Layer, lock.Skills[i].Referrers = p.layer, p.referrers
		}
		for _, id := range p.Verification.Signers {
			lock.Skills[i].Signers = append(lock.Skills[i].Signers, resolve.Signer(id))
		}
		p.Lock = lock.Skills[i]
	}
	return plan, nil
}

// OpenLocked opens the repository a lock entry's canonical source names.
func OpenLocked(c *registry.Client, ls resolve.LockedSkill) (*registry.Repository, error) {
	r, err := source.ParseName(ls.Source)
	spec, ok := r.Spec()
	if err != nil || !ok || r.Name != ls.Name {
		return nil, fmt.Errorf("%s: lock source %q does not end in the skill's name", ls.Name, ls.Source)
	}
	if spec.Kind == source.KindLayout {
		spec.Location = filepath.FromSlash(spec.Location)
	}
	s, err := c.OpenSource(spec)
	if err != nil {
		return nil, err
	}
	return c.Repository(s, ls.Name)
}

// checkTrust applies the tier rules to the whole set before anything is
// written: the minimum tier, no experimental skill as a dependency, and
// the ceilings and grants of every skill at once. carried holds, per
// skill, the permissions consented to at an earlier install (and what
// consented), which are not asked for again.
func checkTrust(ctx context.Context, lock *resolve.Lockfile, plan []*Planned, carried map[string]map[string]string, kept map[string][]Grant, opts Options) error {
	for _, p := range plan {
		if err := tiers.CheckMinTier(p.Lock.Name+"@"+p.Lock.Version, p.Lock.Tier, opts.MinTier); err != nil {
			return err
		}
		if _, ok := kept[p.Lock.Name]; ok {
			continue
		}
		if p.Lock.Tier == skill.TierExperimental && p.Lock.Requested == "" {
			var claimed, attested skill.Tier
			var signers []string
			if p.Verification != nil {
				claimed, attested = p.Verification.Decision.Claimed, p.Verification.Decision.Attested
				for _, id := range p.Verification.Signers {
					signers = append(signers, id.String())
				}
			}
			return tiers.ExperimentalDependencyWhy(dependencyPath(lock, p.Lock.Name), claimed, attested, signers)
		}
	}
	// Skills every root already holds at the same digest and tier keep the
	// consent they were installed with: installing another skill beside an
	// experimental one does not ask for --allow-experimental again.
	var checked []*Planned
	for _, p := range plan {
		if g, ok := kept[p.Lock.Name]; ok {
			p.Grants = g
			continue
		}
		checked = append(checked, p)
	}
	plan = checked
	reqs := make([]tiers.Request, 0, len(plan))
	for _, p := range plan {
		var perms []skill.Permission
		for _, s := range p.Permissions {
			perm, err := skill.ParsePermission(s)
			if err != nil {
				return fmt.Errorf("%s@%s declares %w", p.Lock.Name, p.Lock.Version, err)
			}
			if _, ok := carried[p.Lock.Name][s]; !ok {
				perms = append(perms, perm)
			}
		}
		req := tiers.Request{Skill: p.Lock.Name + "@" + p.Lock.Version, Tier: p.Lock.Tier, Permissions: perms, UnknownTools: p.UnknownTools}
		if p.Verification != nil {
			req.Claimed, req.Attested = p.Verification.Decision.Claimed, p.Verification.Decision.Attested
			for _, id := range p.Verification.Signers {
				req.Signers = append(req.Signers, id.String())
			}
		}
		reqs = append(reqs, req)
	}
	// --grant PERM is for the skills asked for by name; a dependency
	// needs --grant NAME:PERM, so consent given for one skill never
	// reaches what it pulls in.
	named := map[string][]skill.Permission{}
	var direct []skill.Permission
	for _, g := range opts.Grants {
		perm, err := skill.ParsePermission(g)
		if err != nil {
			name, rest, ok := strings.Cut(g, ":")
			if !ok || !skill.ValidName(name) {
				return fmt.Errorf("grant %q: %w", g, err)
			}
			if perm, err = skill.ParsePermission(rest); err != nil {
				return fmt.Errorf("grant %q: %w", g, err)
			}
			named[name] = append(named[name], perm)
			continue
		}
		direct = append(direct, perm)
	}
	for i, p := range plan {
		reqs[i].Grants = named[p.Lock.Name]
		if p.Lock.Requested != "" {
			reqs[i].Grants = append(reqs[i].Grants, direct...)
		} else {
			reqs[i].Via = dependencyPath(lock, p.Lock.Name)
		}
	}
	plans, err := opts.Policy.CheckSet(ctx, reqs, tiers.GrantOptions{Yes: opts.Yes, AllowExperimental: opts.AllowExperimental, Prompter: opts.Prompter})
	if err != nil {
		return err
	}
	for i, pl := range plans {
		// Declared order, with the carried consents in their places.
		p, next := plan[i], 0
		p.Grants = nil
		for _, s := range p.Permissions {
			if by, ok := carried[p.Lock.Name][s]; ok {
				p.Grants = append(p.Grants, Grant{Permission: s, By: by})
				continue
			}
			if next < len(pl.Grants) {
				gr := pl.Grants[next]
				p.Grants = append(p.Grants, Grant{Permission: gr.Permission.String(), By: string(gr.By)})
				next++
			}
		}
	}
	return nil
}

// dependencyPath finds a path from a requested skill to name, as
// "a@1.0.0", "b@0.3.1", for the experimental-dependency refusal.
func dependencyPath(lock *resolve.Lockfile, name string) []string {
	parent := map[string]string{}
	var queue []string
	for _, s := range lock.Skills {
		if s.Requested != "" {
			queue = append(queue, s.Name)
			parent[s.Name] = ""
		}
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == name {
			break
		}
		s := lock.Get(cur)
		if s == nil {
			continue
		}
		deps := make([]string, 0, len(s.Dependencies))
		for d := range s.Dependencies {
			deps = append(deps, d)
		}
		sort.Strings(deps)
		for _, d := range deps {
			if _, seen := parent[d]; !seen {
				parent[d] = cur
				queue = append(queue, d)
			}
		}
	}
	var path []string
	for n := name; n != ""; n = parent[n] {
		v := ""
		if s := lock.Get(n); s != nil {
			v = "@" + s.Version
		}
		path = append([]string{n + v}, path...)
		if _, ok := parent[n]; !ok {
			break
		}
	}
	return path
}

// commitRoot commits root i's staged transaction with the receipts of
// the whole plan. The root's lock is held since its receipts were read.
func (j *job) commitRoot(ctx context.Context, i int, opts Options) (RootResult, error) {
	r := j.roots[i]
	res := RootResult{Root: r, Installed: []string{}, Unchanged: []string{}}
	if opts.DryRun {
		for _, p := range j.plan {
			res.Installed = append(res.Installed, p.Lock.Name)
		}
		return res, nil
	}
	st, rec := j.stages[i], j.receipts[i]
	recChanged := false
	for _, p := range st.unchanged {
		old, _ := rec.Get(p.Lock.Name)
		res.Unchanged = append(res.Unchanged, p.Lock.Name)
		requested := p.Lock.Requested
		if requested == "" {
			requested = old.Requested
		}
		nr := record(p, requested, old.InstalledAt)
		j.place(i, &nr, old, true)
		// A new requested range, tier or grant is worth a commit even
		// when no file changes.
		recChanged = recChanged || !sameRecord(nr, old)
		rec.Put(nr)
	}
	if len(st.todo) == 0 && !recChanged && !lockChanged(opts.LockFile, j.lock) {
		return res, nil
	}
	if st.tx == nil {
		tx, err := beginTxn(r.Dir)
		if err != nil {
			return res, err
		}
		st.tx = tx
	}
	tx := st.tx
	st.tx = nil // committed or aborted below, never aborted again
	tx.hook = opts.hook
	for _, p := range st.todo {
		old, had := rec.Get(p.Lock.Name)
		requested := p.Lock.Requested
		if requested == "" {
			requested = old.Requested
		}
		at := ""
		if !opts.InstalledAt.IsZero() {
			at = opts.InstalledAt.UTC().Format(time.RFC3339)
		}
		nr := record(p, requested, at)
		if tree, ok := st.trees[p.Lock.Name]; ok {
			nr.Tree = tree // the copy this root holds
		}
		j.place(i, &nr, old, had)
		if had && old.IsLink() && !nr.IsLink() {
			j.unlinks = append(j.unlinks, [2]string{filepath.Join(r.Dir, nr.Name), old.Link})
		}
		rec.Put(nr)
		res.Installed = append(res.Installed, p.Lock.Name)
	}
	if opts.LockFile != "" {
		b, err := j.lock.Marshal()
		if err != nil {
			tx.Abort()
			return res, err
		}
		tx.WriteFile(opts.LockFile, b)
	}
	if err := tx.Commit(ctx, rec); err != nil {
		return res, err
	}
	return res, nil
}

// sameRecord compares receipts as they are stored.
func sameRecord(a, b Record) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

func lockChanged(path string, lock *resolve.Lockfile) bool {
	if path == "" {
		return false
	}
	want, err := lock.Marshal()
	if err != nil {
		return true
	}
	have, err := os.ReadFile(path)
	return err != nil || string(have) != string(want)
}

// staged is one skill as unpacked and parsed in a staging area: the
// SKILL.md that lands, and the tree hash of the files that land.
type staged struct {
	skill *skill.Skill
	tree  string
	dir   string
}

// stage pulls every skill into the transaction's staging area (checking
// the tree hash against the manifest) and validates it leniently, then
// checks tools_required across the whole set and audits it. It returns
// each skill as parsed there, by name: the one parse every trust decision
// is made from. audited holds, by name, the tree hash of a copy this job
// staged and audited already (in another root, at the same effective
// tier): a copy whose files hash the same is the same bytes, and is not
// audited again. stage adds the copies it audits; nil audits every one.
func stage(ctx context.Context, tx *txn, todo []*Planned, opts Options, audited map[string]string) (map[string]staged, error) {
	g, gctx := errgroup.WithContext(ctx)
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = defaultJobs
	}
	// The layers are in the cache by now: unpacking is disk and CPU work,
	// where goroutines beyond the CPUs only contend for the same staging
	// directory.
	g.SetLimit(min(jobs, runtime.GOMAXPROCS(0)))
	var mu sync.Mutex
	out := map[string]staged{}
	for _, p := range todo {
		dest := tx.StageDir(p.Lock.Name)
		g.Go(func() error {
			var pr *registry.PullResult
			var err error
			if p.local != nil {
				pr, err = p.local.unpack(gctx, dest)
			} else {
				pr, err = p.repo.Pull(gctx, p.manifest, dest, registry.PullOptions{})
			}
			if err != nil {
				return fmt.Errorf("%s@%s: %w", p.Lock.Name, p.Lock.Version, err)
			}
			if p.Lock.Tree != "" && pr.Summary.TreeHash != p.Lock.Tree {
				return fmt.Errorf("%s@%s: %w: unpacked tree %s, lock says %s", p.Lock.Name, p.Lock.Version, registry.ErrTreeMismatch, pr.Summary.TreeHash, p.Lock.Tree)
			}
			mu.Lock()
			out[p.Lock.Name] = staged{tree: pr.Summary.TreeHash, dir: dest}
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Lenient validation, with the tools the set provides counted as known.
	names := make([]string, 0, len(out))
	for _, p := range todo {
		names = append(names, out[p.Lock.Name].dir)
	}
	for i, r := range skill.LoadSet(ctx, names, skill.Options{Mode: skill.Lenient, KnownTools: opts.KnownTools}) {
		p := todo[i]
		if r.Diagnostics.HasErrors() {
			return nil, fmt.Errorf("%s@%s does not load: %w", p.Lock.Name, p.Lock.Version, r.Diagnostics.Err())
		}
		for _, d := range r.Diagnostics {
			if d.Code == skill.CodeToolUnknown {
				return nil, fmt.Errorf("%s@%s: %s", p.Lock.Name, p.Lock.Version, d.Message)
			}
			// Lenient validation only warns, but no host would load it:
			// installing would put a skill where nothing sees it.
			if d.Code == skill.CodeLowercaseSkillFile {
				return nil, fmt.Errorf("%s@%s: %s, which no host loads (they read only %s): rename it to %s in the skill and publish again", p.Lock.Name, p.Lock.Version, d.Message, skill.SkillFile, skill.SkillFile)
			}
		}
		st := out[p.Lock.Name]
		st.skill = r.Skill
		out[p.Lock.Name] = st
		// The index the plan was made from must describe these bytes.
		if err := checkContent(p, r.Skill); err != nil {
			return nil, err
		}
	}
	// The static audit of what is about to be installed, judged at each
	// skill's effective tier; a block stops the whole set.
	effective := make(map[string]skill.Tier, len(todo))
	dirs := make(map[string]string, len(todo))
	for _, p := range todo {
		if t, ok := audited[p.Lock.Name]; ok && t == out[p.Lock.Name].tree {
			continue
		}
		effective[p.Lock.Name] = p.Lock.Tier
		dirs[p.Lock.Name] = out[p.Lock.Name].dir
	}
	if opts.Auditor == nil && opts.NoAuditUnsafe || len(dirs) == 0 {
		return out, nil
	}
	outs, err := AuditStaged(ctx, dirs, effective, AuditOptions{Auditor: opts.Auditor, AllowFindings: opts.AllowAuditFindings})
	if err != nil {
		return nil, err
	}
	if audited != nil {
		for name := range dirs {
			audited[name] = out[name].tree
		}
	}
	for _, o := range outs {
		if opts.Warn != nil && o.Verdict.Decision != AuditPass {
			opts.Warn(fmt.Sprintf("%s: audit verdict %s at %s (%d findings; see skillpm audit)", o.Name, o.Verdict.Decision, o.Verdict.Tier, o.Verdict.Findings))
		}
	}
	return out, nil
}

// record makes the receipt of p. A skill from a local directory records
// its path, and its source only when a signed published copy with the
// same digest vouched for it.
func record(p *Planned, requested, installedAt string) Record {
	signers := make([]sign.Identity, 0, len(p.Verification.Signers))
	signers = append(signers, p.Verification.Signers...)
	r := Record{Name: p.Lock.Name, Version: p.Lock.Version, Source: p.Lock.Source, Digest: p.Lock.Digest,
		Tree: p.Lock.Tree, Tier: p.Lock.Tier, Claimed: p.Claimed, Signers: signers, Grants: p.Grants,
		Requested: requested, Dependencies: p.Lock.Dependencies, InstalledAt: installedAt}
	if p.local != nil {
		r.LocalPath, r.Git = p.local.where(), p.local.GitRef
		if p.repo == nil {
			r.Source = ""
		}
	}
	return r
}

// defaultJobs bounds concurrent registry work when Options.Jobs is 0: as
// many skills at once as the Client lets requests to one host await their
// answers, since at internet latency each job spends its time waiting.
const defaultJobs = registry.DefaultRegistryRequests
