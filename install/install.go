package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/pkg/archive"
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
}

// Install resolves what m asks for (with prev's versions preferred), then
// fetches, verifies and checks every skill of the solution before any
// root is touched, then commits each root atomically. Nothing is written
// when anything is refused.
func Install(ctx context.Context, c *registry.Client, cat resolve.Catalog, m *resolve.Manifest, prev *resolve.Lockfile, opts Options) (*Result, error) {
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	lock, err := resolve.Lock(ctx, cat, m, prev, resolve.LockOptions{Frozen: opts.Frozen, Prerelease: opts.Prerelease, Warn: warn})
	if err != nil {
		return nil, err
	}
	plan, err := prepare(ctx, c, lock, opts)
	if err != nil {
		return nil, err
	}
	if err := checkTrust(ctx, lock, plan, opts); err != nil {
		return nil, err
	}
	res := &Result{Lock: lock, Plan: plan}
	for _, r := range opts.Roots {
		rr, err := commitRoot(ctx, r, lock, plan, opts)
		if err != nil {
			return res, fmt.Errorf("%s: %w", r.Dir, err)
		}
		res.Roots = append(res.Roots, rr)
	}
	return res, nil
}

// prepare opens each locked skill's repository, fetches its manifest by
// digest and verifies its signatures, concurrently.
func prepare(ctx context.Context, c *registry.Client, lock *resolve.Lockfile, opts Options) ([]*Planned, error) {
	plan := make([]*Planned, len(lock.Skills))
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = 8
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for i, ls := range lock.Skills {
		g.Go(func() error {
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
			v, err := repo.VerifySkill(gctx, m, registry.VerifyOptions{Trust: opts.Trust, Policy: opts.Policy})
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
// the ceilings and grants of every skill at once.
func checkTrust(ctx context.Context, lock *resolve.Lockfile, plan []*Planned, opts Options) error {
	byName := map[string]*Planned{}
	for _, p := range plan {
		byName[p.Lock.Name] = p
	}
	for _, p := range plan {
		if opts.MinTier != "" && tiers.Rank(p.Lock.Tier) < tiers.Rank(opts.MinTier) {
			return fmt.Errorf("%w: %s@%s is %s, below the minimum tier %s (--min-tier)", tiers.ErrRefused, p.Lock.Name, p.Lock.Version, p.Lock.Tier, opts.MinTier)
		}
		if p.Lock.Tier == skill.TierExperimental && p.Lock.Requested == "" {
			return tiers.ExperimentalDependency(dependencyPath(lock, p.Lock.Name))
		}
	}
	reqs := make([]tiers.Request, 0, len(plan))
	for _, p := range plan {
		var perms []skill.Permission
		for _, s := range p.Permissions {
			perm, err := skill.ParsePermission(s)
			if err != nil {
				return fmt.Errorf("%s@%s declares %w", p.Lock.Name, p.Lock.Version, err)
			}
			perms = append(perms, perm)
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
		for _, gr := range pl.Grants {
			plan[i].Grants = append(plan[i].Grants, Grant{Permission: gr.Permission.String(), By: string(gr.By)})
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
	for _, p := range plan {
		old, ok := rec.Get(p.Lock.Name)
		dir := filepath.Join(r.Dir, p.Lock.Name)
		if ok && old.Digest == p.Lock.Digest {
			if sum, err := archive.TreeHashInstalled(ctx, dir); err == nil && sum.TreeHash == old.Tree {
				res.Unchanged = append(res.Unchanged, p.Lock.Name)
				rec.Put(record(p, old.Requested))
				continue
			}
		}
		if _, err := os.Stat(dir); err == nil && !opts.Force {
			if !ok {
				return res, fmt.Errorf("%w: %s exists in %s but was not installed by skillpm; move it away or use --force", ErrEdited, p.Lock.Name, r.Dir)
			}
			if sum, err := archive.TreeHashInstalled(ctx, dir); err != nil || sum.TreeHash != old.Tree {
				return res, fmt.Errorf("%w: %s in %s differs from what skillpm installed; keep your changes elsewhere, or use --force to overwrite them", ErrEdited, p.Lock.Name, r.Dir)
			}
		}
		todo = append(todo, p)
	}
	if len(todo) == 0 && !lockChanged(opts.LockFile, lock) {
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
		rec.Put(record(p, requested))
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
		jobs = 8
	}
	g.SetLimit(jobs)
	var mu sync.Mutex
	dirs := map[string]string{}
	for _, p := range todo {
		dest := tx.StageDir(p.Lock.Name)
		g.Go(func() error {
			pr, err := p.repo.Pull(gctx, p.manifest, dest, registry.PullOptions{})
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
		}
	}
	return nil
}

func record(p *Planned, requested string) Record {
	signers := make([]sign.Identity, 0, len(p.Verification.Signers))
	signers = append(signers, p.Verification.Signers...)
	return Record{Name: p.Lock.Name, Version: p.Lock.Version, Source: p.Lock.Source, Digest: p.Lock.Digest,
		Tree: p.Lock.Tree, Tier: p.Lock.Tier, Claimed: p.Claimed, Signers: signers, Grants: p.Grants,
		Requested: requested, Dependencies: p.Lock.Dependencies}
}
