package install

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
	"golang.org/x/sync/errgroup"
)

// Options controls Install.
type Options struct {
	// Roots are the discovery roots to install into (one transaction each).
	Roots []Root
	// AllowAuditFindings installs skills whose static audit verdict blocks
	// at their tier (--allow-audit-findings); AuditTool names skillpm's
	// version in the audit reports.
	AllowAuditFindings bool
	AuditTool          string
	// Policy decides tiers; nil means the built-in default.
	Policy *tiers.Policy
	// Trust is the signature trust material (registry.PolicyTrust).
	Trust sign.VerifyOptions
	// Grants, Yes, AllowExperimental and Prompter are the consent inputs
	// of tiers.GrantOptions.
	Grants            []string
	Yes               bool
	AllowExperimental bool
	Prompter          tiers.Prompter
	// MinTier refuses any skill whose effective tier is lower.
	MinTier string
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
	// Jobs bounds concurrent fetches; 0 means 8.
	Jobs int
	// LockWait bounds the wait for another skillpm on a root.
	LockWait time.Duration
	// Catalog is the tool catalog for tools_required; nil means the GAIA one.
	Catalog *skill.Catalog
	// Warn receives messages that do not stop the install.
	Warn func(string)
	// Hook is passed to each root's transaction (crash-safety tests).
	Hook func(step string) error
	// Progress, when set, receives each stage as it starts; it may be
	// called from several goroutines at once.
	Progress func(Event)
	// AllowSignerChange accepts a skill signed by none of the identities
	// its receipt (or the previous lock) pins (--allow-signer-change).
	AllowSignerChange bool
	// AllowDowngrade lets Update choose a lower version than the one
	// installed (--allow-downgrade). Install never refuses a downgrade:
	// naming a version is asking for it.
	AllowDowngrade bool
	// Local are skills to install from local directories, each built with
	// registry.Build. Install adds each to the manifest at its exact
	// version; their dependencies resolve normally.
	Local []Local
	// InstalledAt, when not zero (SOURCE_DATE_EPOCH), is written into the
	// receipts; zero keeps two installs from one lock byte-identical.
	InstalledAt time.Time
	// OnPlan, when set, is shown the changes every root will get once each
	// skill is fetched and verified, before consent is asked and before
	// anything is written. An error stops the install.
	OnPlan func(ctx context.Context, changes []Change) error
}

// Planned is one skill of an install plan.
type Planned struct {
	Lock         resolve.LockedSkill `json:"lock"`
	Permissions  []string            `json:"permissions"`
	Claimed      string              `json:"claimed"`
	Grants       []Grant             `json:"grants,omitempty"`
	Verification *registry.Verification
	manifest     *registry.Manifest
	repo         *registry.Repository
	// local is set for a skill installed from a local directory.
	local *Local
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
// fetches, verifies and checks every skill of the solution before any
// root is touched, then commits each root atomically. Nothing is written
// when anything is refused. A skill whose receipt (or prev's entry) pins
// signers must be signed by one of them unless opts.AllowSignerChange.
func Install(ctx context.Context, c *registry.Client, cat resolve.Catalog, m *resolve.Manifest, prev *resolve.Lockfile, opts Options) (*Result, error) {
	// Installing a project's lock that satisfies its manifest into roots
	// that already hold it is a no-op that asks no registry anything.
	if opts.LockFile != "" && prev != nil && len(opts.Local) == 0 && !opts.DryRun && prev.Satisfies(m, cat.Namespace()) == nil {
		if rrs, ok := upToDate(ctx, opts.Roots, prev); ok && !lockChanged(opts.LockFile, prev) {
			return &Result{Lock: prev, Roots: rrs, Changes: []Change{}}, nil
		}
	}
	j, err := newJob(ctx, c, cat, m, prev, opts.Roots, opts)
	if err != nil {
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
	if err := j.consent(ctx, opts); err != nil {
		return nil, err
	}
	res := &Result{Lock: j.lock, Plan: j.plan, Changes: j.changes}
	rrs, err := j.commit(ctx, opts)
	res.Roots = rrs
	return res, err
}

// job is one resolution and its verified plan, for the roots it is to be
// committed into. Install makes one for all its roots; Update one per root.
type job struct {
	lock  *resolve.Lockfile
	prev  *resolve.Lockfile
	plan  []*Planned
	roots []Root
	// receipts are each root's receipts as read for planning; commitRoot
	// reads them again under the root's lock.
	receipts []*Receipts
	changes  []Change
}

// newJob resolves, fetches and verifies, and works out what changes in
// each root. It writes nothing.
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
	// A registry-backed catalog can fetch ahead of the solver, which asks
	// one question at a time.
	if g, ok := cat.(*registry.Graph); ok {
		roots := map[string]string{}
		for _, r := range m.Skills {
			if key, err := cat.Namespace().Key(r.Name); err == nil {
				roots[key] = r.Range
			}
		}
		stop := g.Prefetch(ctx, opts.Jobs, roots)
		defer stop()
	}
	lock, err := resolve.Lock(ctx, cat, m, prev, resolve.LockOptions{Frozen: opts.Frozen, Prerelease: opts.Prerelease, Warn: warn})
	if err != nil {
		return nil, err
	}
	plan, err := prepare(ctx, c, cat.Namespace(), lock, opts)
	if err != nil {
		return nil, err
	}
	j := &job{lock: lock, prev: prev, plan: plan, roots: roots}
	for _, r := range roots {
		rec, err := ReadReceipts(r.Dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Dir, err)
		}
		j.receipts = append(j.receipts, rec)
	}
	j.changes = j.diff()
	return j, nil
}

// consent applies the tier rules to the job's whole set (checkTrust),
// carrying forward the consent each root's receipts record.
func (j *job) consent(ctx context.Context, opts Options) error {
	opts.progress(Event{Stage: StageChecking})
	return checkTrust(ctx, j.lock, j.plan, j.carried(), j.kept(), opts)
}

// commit installs the plan into each of the job's roots in turn.
func (j *job) commit(ctx context.Context, opts Options) ([]RootResult, error) {
	var out []RootResult
	for _, r := range j.roots {
		opts.progress(Event{Stage: StageCommitting, Root: r.Dir})
		rr, err := commitRoot(ctx, r, j.lock, j.plan, opts)
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
			m, err := repo.Get(gctx, registry.Selector{Kind: registry.SelectDigest, Raw: ls.Digest, Digest: d}, true)
			if err != nil {
				return fmt.Errorf("%s@%s: %w", ls.Name, ls.Version, err)
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
			v, _, err := repo.VerifyWithAudits(gctx, m, registry.VerifyOptions{Trust: opts.Trust, Policy: opts.Policy})
			if lerr := <-layer; err == nil && lerr != nil {
				return fmt.Errorf("%s@%s: %w", ls.Name, ls.Version, lerr)
			}
			if err != nil {
				return fmt.Errorf("%s@%s: verifying signatures: %w", ls.Name, ls.Version, err)
			}
			plan[i] = &Planned{Lock: ls, Permissions: m.Metadata.Permissions, Claimed: m.Metadata.Tier,
				Verification: v, manifest: m, repo: repo}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, p := range plan {
		lock.Skills[i].Tier = p.Verification.Decision.Effective
		lock.Skills[i].Signers = nil
		for _, id := range p.Verification.Signers {
			lock.Skills[i].Signers = append(lock.Skills[i].Signers, resolve.Signer(id))
		}
		p.Lock = lock.Skills[i]
		for _, w := range p.Verification.Decision.Warnings {
			if opts.Warn != nil {
				opts.Warn(fmt.Sprintf("%s@%s: %s", p.Lock.Name, p.Lock.Version, w))
			}
		}
	}
	return plan, nil
}

// OpenLocked opens the repository a lock entry's canonical source names.
func OpenLocked(c *registry.Client, ls resolve.LockedSkill) (*registry.Repository, error) {
	src := strings.TrimSuffix(ls.Source, "/"+ls.Name)
	if src == ls.Source {
		return nil, fmt.Errorf("%s: lock source %q does not end in the skill's name", ls.Name, ls.Source)
	}
	var s registry.Source
	var err error
	switch {
	case src == resolve.EmbeddedSource:
		s = c.Embedded()
	case strings.HasPrefix(src, registry.LayoutPrefix):
		s, err = c.Layout(filepath.FromSlash(strings.TrimPrefix(src, registry.LayoutPrefix)))
	default:
		s, err = c.Remote(src)
	}
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
		if opts.MinTier != "" && tiers.Rank(p.Lock.Tier) < tiers.Rank(opts.MinTier) {
			return fmt.Errorf("%w: %s@%s is %s, below the minimum tier %s (--min-tier)", tiers.ErrRefused, p.Lock.Name, p.Lock.Version, p.Lock.Tier, opts.MinTier)
		}
		if _, ok := kept[p.Lock.Name]; ok {
			continue
		}
		if p.Lock.Tier == skill.TierExperimental && p.Lock.Requested == "" {
			return tiers.ExperimentalDependency(dependencyPath(lock, p.Lock.Name))
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
		reqs = append(reqs, tiers.Request{Skill: p.Lock.Name + "@" + p.Lock.Version, Tier: p.Lock.Tier, Permissions: perms})
	}
	var grants []skill.Permission
	for _, g := range opts.Grants {
		perm, err := skill.ParsePermission(g)
		if err != nil {
			return fmt.Errorf("--grant %s: %w", g, err)
		}
		grants = append(grants, perm)
	}
	plans, err := opts.Policy.CheckSet(ctx, reqs, tiers.GrantOptions{Grants: grants, Yes: opts.Yes, AllowExperimental: opts.AllowExperimental, Prompter: opts.Prompter})
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

// commitRoot installs the plan into one root: lock, recover, skip what is
// already there, stage and check the rest, commit.
func commitRoot(ctx context.Context, r Root, lock *resolve.Lockfile, plan []*Planned, opts Options) (RootResult, error) {
	res := RootResult{Root: r, Installed: []string{}, Unchanged: []string{}}
	if opts.DryRun {
		for _, p := range plan {
			res.Installed = append(res.Installed, p.Lock.Name)
		}
		return res, nil
	}
	wait := opts.LockWait
	if wait == 0 {
		wait = DefaultLockWait
	}
	rl, err := Lock(ctx, r.Dir, wait)
	if err != nil {
		return res, err
	}
	defer rl.Unlock()
	if res.Recovered, err = Recover(ctx, r.Dir); err != nil {
		return res, err
	}
	rec, err := ReadReceipts(r.Dir)
	if err != nil {
		return res, err
	}
	var todo []*Planned
	recChanged := false
	for _, p := range plan {
		old, ok := rec.Get(p.Lock.Name)
		dir := filepath.Join(r.Dir, p.Lock.Name)
		if ok && old.Digest == p.Lock.Digest {
			if sum, err := archive.TreeHashInstalled(ctx, dir); err == nil && sum.TreeHash == old.Tree {
				res.Unchanged = append(res.Unchanged, p.Lock.Name)
				requested := p.Lock.Requested
				if requested == "" {
					requested = old.Requested
				}
				nr := record(p, requested, old.InstalledAt)
				// A new requested range, tier or grant is worth a commit
				// even when no file changes.
				recChanged = recChanged || !sameRecord(nr, old)
				rec.Put(nr)
				continue
			}
		}
		if _, err := os.Stat(dir); err == nil && !opts.Force {
			if !ok {
				what := "placed there by hand or by another tool"
				if o := ForeignOrigin(r.Dir, p.Lock.Name); o != "" {
					what = o
				}
				return res, fmt.Errorf("%w: %s exists in %s but was not installed by skillpm (%s); to replace it with this one use --force, or keep it and take it under management with skillpm adopt %s", ErrEdited, p.Lock.Name, r.Dir, what, p.Lock.Name)
			}
			if sum, err := archive.TreeHashInstalled(ctx, dir); err != nil || sum.TreeHash != old.Tree {
				return res, fmt.Errorf("%w: %s in %s differs from what skillpm installed; keep your changes elsewhere, or use --force to overwrite them", ErrEdited, p.Lock.Name, r.Dir)
			}
		}
		todo = append(todo, p)
	}
	if len(todo) == 0 && !recChanged && !lockChanged(opts.LockFile, lock) {
		return res, nil
	}
	tx, err := Begin(r.Dir)
	if err != nil {
		return res, err
	}
	tx.Hook = opts.Hook
	if err := stage(ctx, tx, todo, opts); err != nil {
		tx.Abort()
		return res, err
	}
	for _, p := range todo {
		old, _ := rec.Get(p.Lock.Name)
		requested := p.Lock.Requested
		if requested == "" {
			requested = old.Requested
		}
		at := ""
		if !opts.InstalledAt.IsZero() {
			at = opts.InstalledAt.UTC().Format(time.RFC3339)
		}
		rec.Put(record(p, requested, at))
		res.Installed = append(res.Installed, p.Lock.Name)
	}
	if opts.LockFile != "" {
		b, err := lock.Marshal()
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

// stage pulls every skill into the transaction's staging area (checking
// the tree hash against the manifest) and validates it leniently, then
// checks tools_required across the whole set.
func stage(ctx context.Context, tx *Txn, todo []*Planned, opts Options) error {
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
	dirs := map[string]string{}
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
			dirs[p.Lock.Name] = dest
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	// Lenient validation, with the tools the set provides counted as known.
	names := make([]string, 0, len(dirs))
	for _, p := range todo {
		names = append(names, dirs[p.Lock.Name])
	}
	for _, r := range skill.LoadSet(ctx, names, skill.Options{Mode: skill.Lenient, Catalog: opts.Catalog}) {
		if r.Diagnostics.HasErrors() {
			return fmt.Errorf("%s does not load: %w", filepath.Base(r.Dir), r.Diagnostics.Err())
		}
		for _, d := range r.Diagnostics {
			if d.Code == skill.CodeToolUnknown {
				return fmt.Errorf("%s: %s", filepath.Base(r.Dir), d.Message)
			}
			// Lenient validation only warns, but no host would load it:
			// installing would put a skill where nothing sees it.
			if d.Code == skill.CodeLowercaseSkillFile {
				return fmt.Errorf("%s: %s, which no host loads (they read only %s): rename it to %s in the skill and publish again", filepath.Base(r.Dir), d.Message, skill.SkillFile, skill.SkillFile)
			}
		}
	}
	// The static audit of what is about to be installed, judged at each
	// skill's effective tier; a block stops the whole set.
	effective := make(map[string]string, len(todo))
	for _, p := range todo {
		effective[p.Lock.Name] = p.Lock.Tier
	}
	outs, err := AuditStaged(ctx, dirs, effective, AuditOptions{AllowFindings: opts.AllowAuditFindings, Tool: opts.AuditTool})
	if err != nil {
		return err
	}
	for _, o := range outs {
		if opts.Warn != nil && o.Verdict.Decision != audit.Pass {
			opts.Warn(fmt.Sprintf("%s: audit verdict %s at %s (%d findings; see skillpm audit)", o.Name, o.Verdict.Decision, o.Verdict.Tier, len(o.Report.Findings)))
		}
	}
	return nil
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
		r.LocalPath = p.local.Dir
		if p.repo == nil {
			r.Source = ""
		}
	}
	return r
}

// defaultJobs bounds concurrent registry work when Options.Jobs is 0.
const defaultJobs = 8
