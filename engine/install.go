package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/tiers"
	"golang.org/x/sync/errgroup"
)

// InstallRequest is one install: references, or (with none) the project.
type InstallRequest struct {
	// Refs are what `skillpm install REF...` takes: name, name@range,
	// registry/namespace/name@version, oci-layout:DIR/name, a local
	// directory (./my-skill) or a git reference. None means the project:
	// Options.Manifest (default skills.yaml, else gaia-agent.yaml) and its
	// lock.
	Refs []string
	// Origin names where Refs come from in messages; "" means "the
	// command line".
	Origin string
	// RegistryOnly refuses references to local directories and git
	// repositories (install.ErrUnsupportedRef), and leaves skills
	// installed from git alone in an update: a request from another
	// program (the HTTP API) must not make skillpm read this machine's
	// directories or fetch repositories.
	RegistryOnly bool

	// Consent and Checks are the shared knobs (request.go).
	Consent
	Checks
	// Frozen fails instead of changing the project's lock.
	Frozen bool
	// DryRun resolves, verifies and checks, then writes nothing.
	DryRun bool
	// NoVCS builds local directories without git origin and commit.
	NoVCS bool
	// Skills picks, from a git reference holding several skills, those
	// named.
	Skills []string
}

// InstallError is an install that failed once its source was chosen: it
// carries the manifest resolved and the graph it was resolved in, for
// front ends that explain a resolution failure.
type InstallError struct {
	// Manifest is what was resolved; Graph where (nil when the failure
	// came before a source was chosen).
	Manifest *resolve.Manifest
	Graph    *catalog.Registry
	// Err is the failure.
	Err error
}

// installError is err, a failure to resolve or install m in graph, as an
// *InstallError; a lock it finds stale is named by lpath, the lock as
// resolve.FindManifest found it, rather than by the default name resolve gives a
// lock that is missing.
func installError(m *resolve.Manifest, graph *catalog.Registry, lpath string, err error) *InstallError {
	if stale, ok := errors.AsType[*resolve.StaleError](err); ok && lpath != "" {
		stale.Lock = lpath
	}
	return &InstallError{Manifest: m, Graph: graph, Err: err}
}

func (e *InstallError) Error() string { return e.Err.Error() }

// Class is errdef.None: an install failure is of its cause's class.
func (e *InstallError) Class() errdef.Class { return errdef.None }

// Unwrap returns the failure.
func (e *InstallError) Unwrap() error { return e.Err }

// graph returns the registry graph m's names resolve in: the Engine's
// Source, else the manifest's registry, else FallbackSource, else the
// embedded registry.
func (e *Engine) graph(m *resolve.Manifest) (*catalog.Registry, error) {
	ns, err := m.Namespace(e.source(m))
	if err != nil {
		return nil, invalid(err)
	}
	return catalog.New(e.client, ns)
}

// source is the one default-source rule, for every operation that
// resolves names: the Engine's Source, else the manifest's registry: (the
// "" returned, which m.Namespace reads), else FallbackSource (the
// configuration's), else "" again, the embedded registry.
func (e *Engine) source(m *resolve.Manifest) string {
	if e.opts.Source == "" && m.Registry == "" {
		return e.opts.FallbackSource
	}
	return e.opts.Source
}

// options are the install.Options every install and update shares.
func (e *Engine) options(ctx context.Context, roots []install.Root, r *InstallRequest) (install.Options, error) {
	policy, trust, err := e.trustPolicy(ctx)
	if err != nil {
		return install.Options{}, err
	}
	aud, err := e.loadAuditor()
	if err != nil {
		return install.Options{}, err
	}
	opts := install.Options{
		Roots: roots, Hosts: e.env.Table(), Policy: policy, Trust: trust,
		Grants: r.Grants, Yes: r.Yes, AllowExperimental: r.AllowExperimental, Prompter: e.opts.Consent,
		AllowAuditFindings: r.AllowAuditFindings, Auditor: aud,
		MinTier: skill.Tier(r.MinTier), Force: r.Force, Frozen: r.Frozen, DryRun: r.DryRun, Prerelease: e.opts.Prerelease,
		AllowSignerChange: r.AllowSignerChange, AllowDowngrade: r.AllowDowngrade, AllowRepublished: r.AllowRepublished,
		NoIndex: e.opts.NoIndex, LockWait: e.opts.LockWait, Warn: e.warnFunc(), Progress: e.progressFunc(), OnPlan: e.planFunc(),
		AgentsRoots: install.AgentsRoots(e.env), Ahead: e.feedAhead,
	}
	if r.MinTier != "" && !tiers.ValidTier(r.MinTier) {
		return opts, invalid(fmt.Errorf("minimum tier %q: use verified, community or experimental", r.MinTier))
	}
	if opts.InstalledAt, err = registry.SourceDateEpoch(e.getenv); err != nil {
		return opts, invalid(err)
	}
	return opts, nil
}

// place returns p's roots after sending its notes (a host given a copy
// where a link was asked for, and why) to Options.Log; err is from
// package roots (targetErr).
func (e *Engine) place(p *install.Placed, err error) ([]install.Root, error) {
	if err != nil {
		return nil, targetErr(err)
	}
	for _, n := range p.Notes {
		e.note("note: " + n)
	}
	return p.Roots, nil
}

// Install resolves, verifies and installs what r names (or the project)
// as `skillpm install` does: references go to the roots of the target
// (without hosts or roots named: roots.DefaultHost's user roots, or when
// several hosts hold skills, each of those hosts' user roots, with a
// note saying so); a project goes to roots.Project and its lock is
// written only when it changed.
// Nothing is written when anything is refused.
func (e *Engine) Install(ctx context.Context, r InstallRequest) (*install.Result, error) {
	t := e.opts.Target
	var into []install.Root
	var err error
	if len(r.Refs) > 0 {
		if len(t.Hosts) == 0 && !t.NamesRoots() {
			var several *roots.SeveralHostsError
			t.DefaultHost, err = roots.DefaultHost(e.env, t.DefaultHost)
			switch {
			case errors.As(err, &several):
				// The user's agents read skills where skillpm put them
				// before: install for each of those hosts, and say so.
				t.Hosts = several.Hosts
				e.note(fmt.Sprintf("note: skills are installed for several hosts (%s): installing for each of them; --host (or host: in the configuration) chooses one", strings.Join(several.Hosts, ", ")))
			case err != nil:
				return nil, err
			}
		}
		t.Placement = roots.Placement(t, nil)
		if into, err = e.place(roots.Placed(e.env, t)); err != nil {
			return nil, err
		}
	}
	var (
		m        *resolve.Manifest
		prev     *resolve.Lockfile
		local    []install.Local
		refs     []string
		lockFile string
	)
	if len(r.Refs) == 0 {
		mpath, lpath := resolve.FindManifest(e.opts.Manifest, e.opts.Lock)
		if m, err = resolve.ReadManifest(ctx, mpath); err != nil {
			if errors.Is(err, resolve.ErrNoManifest) {
				return nil, err
			}
			return nil, installError(&resolve.Manifest{File: mpath}, nil, lpath, err)
		}
		if prev, err = resolve.ReadLockfile(ctx, lpath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, invalid(err)
		}
		lockFile = lpath
		var done func()
		if m, local, done, err = e.gitRequirements(ctx, m, prev, gitOptions{Mode: gitLock(r.Frozen), Offline: e.client.Offline(), AllowRepublished: r.AllowRepublished, Audit: true}); err != nil {
			return nil, err
		}
		defer done()
		t.Placement = roots.Placement(t, m)
		if into, err = e.place(roots.Project(e.env, t, m)); err != nil {
			return nil, err
		}
		if stale := staleLock(prev, into); len(stale) > 0 {
			msg := fmt.Sprintf("%s is older than the installed skills (run skillpm update to move it):", lpath)
			for _, s := range stale {
				msg += "\n  " + s
			}
			e.warn(msg)
		}
	} else {
		var cache *gitFetches
		var dirs []string
		held := heldLocals(into)
		var dirAt []int
		for _, a := range r.Refs {
			ref, perr := source.ParseRef(a)
			kind := refKind(ref, perr)
			if r.RegistryOnly {
				if kind == source.RefGit {
					return nil, fmt.Errorf("%w: %s: a git reference; name a skill in a registry", install.ErrUnsupportedRef, a)
				}
				refs = append(refs, a)
				continue
			}
			if kind == source.RefGit {
				if cache == nil {
					if cache, err = openGitFetches(e.client.Offline()); err != nil {
						return nil, err
					}
					cache.audits, cache.held = true, held
				}
				ls, _, done, err := e.gitLocals(ctx, cache, a, r.Skills)
				defer done()
				if err != nil {
					return nil, err
				}
				local = append(local, ls...)
				continue
			}
			if kind == source.RefDir {
				dirAt = append(dirAt, len(local))
				dirs = append(dirs, a)
				local = append(local, install.Local{})
				continue
			}
			refs = append(refs, a)
		}
		// The directories build concurrently, and their skills (a folder
		// may hold several) take their directory's place in local.
		built := make([][]install.Local, len(dirs))
		err := forEach(ctx, len(dirs), func(ctx context.Context, i int) error {
			var err error
			built[i], err = e.buildLocals(ctx, dirs[i], r.NoVCS, r.Skills, held)
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(dirs) > 0 {
			all := make([]install.Local, 0, len(local))
			k := 0
			for i, l := range local {
				if k < len(dirAt) && dirAt[k] == i {
					all = append(all, built[k]...)
					k++
					continue
				}
				all = append(all, l)
			}
			local = all
		}
		// The references' manifest names the namespace; what the roots
		// hold is read by InstallRefs under their locks.
		if m, _, err = install.FromRefs(origin(r.Origin), refs, nil); err != nil {
			if errors.Is(err, install.ErrUnsupportedRef) || errors.Is(err, registry.ErrInvalidRef) {
				return nil, invalid(err)
			}
			return nil, err
		}
	}
	graph, err := e.graph(m)
	if err != nil {
		return nil, err
	}
	opts, err := e.options(ctx, into, &r)
	if err != nil {
		return nil, err
	}
	opts.Hide = e.hideYanked(graph)
	opts.Check = e.checkAdvisories
	opts.Local = local
	if !r.DryRun {
		opts.LockFile = lockFile
	}
	var res *install.Result
	if len(r.Refs) > 0 {
		res, err = install.InstallRefs(ctx, e.client, graph, origin(r.Origin), refs, opts)
	} else {
		res, err = install.Install(ctx, e.client, graph, m, prev, opts)
	}
	if err != nil {
		return nil, installError(m, graph, lockFile, err)
	}
	e.statusWarnings(ctx, res)
	e.decideInstall(res)
	return res, nil
}

func origin(s string) string {
	if s == "" {
		return "the command line"
	}
	return s
}

// CheckRefs answers what is wrong with r's references without any I/O:
// a malformed or unsupported reference, a source of bare names that does
// not parse. Install makes the same checks; a server calls CheckRefs to
// answer with its own status before it starts streaming the work.
func (e *Engine) CheckRefs(_ context.Context, r InstallRequest) error {
	var refs []string
	for _, a := range r.Refs {
		ref, perr := source.ParseRef(a)
		switch kind := refKind(ref, perr); {
		case kind == source.RefGit && r.RegistryOnly:
			return fmt.Errorf("%w: %s: a git reference; name a skill in a registry", install.ErrUnsupportedRef, a)
		case kind == source.RefGit, kind == source.RefDir && !r.RegistryOnly:
			continue
		}
		refs = append(refs, a)
	}
	m, _, err := install.FromRefs(origin(r.Origin), refs, nil)
	if err != nil {
		return invalid(err)
	}
	if _, err := m.Namespace(e.source(m)); err != nil {
		return invalid(err)
	}
	return nil
}

// forEach runs fn for 0..n-1 on up to GOMAXPROCS goroutines: building
// and hashing the skills of one install are independent. The error
// returned is the one of the lowest index, so that which failure is
// reported does not depend on scheduling; the first failure cancels the
// ctx the others see.
func forEach(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	switch n {
	case 0:
		return nil
	case 1:
		return fn(ctx, 0)
	}
	errs := make([]error, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range n {
		g.Go(func() error {
			errs[i] = fn(gctx, i)
			return errs[i]
		})
	}
	g.Wait()
	for _, err := range errs {
		if err != nil && !(errors.Is(err, context.Canceled) && ctx.Err() == nil) {
			return err
		}
	}
	// Only cancellations caused by another failure remain; that failure
	// was returned above, so this is ctx's own.
	return ctx.Err()
}

// buildLocals builds the skill in dir, or when dir holds no SKILL.md
// every skill folder below it (those named in pick, by folder or skill
// name, when pick is not empty), as a git reference's skills are found.
func (e *Engine) buildLocals(ctx context.Context, dir string, noVCS bool, pick []string, held map[string]bool) ([]install.Local, error) {
	dirs := []string{dir}
	// A directory that is a skill is built alone (a skill nested in it is
	// its files); one that is not is searched. Either way the build below
	// reports a directory with no skill at all.
	if found, err := skill.FindSkills(ctx, dir); err == nil && len(found) > 0 && filepath.Clean(found[0]) != filepath.Clean(dir) {
		dirs = found
	}
	found := map[string]bool{}
	var have, build []string
	for _, d := range dirs {
		base := filepath.Base(d)
		have = append(have, base)
		if len(pick) > 0 && !slices.Contains(pick, base) {
			continue
		}
		build = append(build, d)
	}
	out := make([]install.Local, len(build))
	err := forEach(ctx, len(build), func(ctx context.Context, i int) error {
		// Installs audit what they build: the auditor starts on it now,
		// unless the roots hold a copy from this folder already (then
		// the install is likely a no-op, which compiles nothing).
		if abs, err := filepath.Abs(build[i]); err == nil && !held[abs] {
			e.prepareAudit(ctx, abs)
		}
		var err error
		out[i], err = e.buildLocal(ctx, build[i], noVCS)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, l := range out {
		found[filepath.Base(build[i])], found[l.Artifact.Skill.Name] = true, true
	}
	for _, p := range pick {
		if !found[p] {
			return nil, errdef.Mark(errNoSuchSkill, fmt.Errorf("%s: no skill %s (it has %s)", dir, p, strings.Join(have, ", ")))
		}
	}
	return out, nil
}

// buildLocal builds the skill in dir as publish would, for installing it
// from source.
func (e *Engine) buildLocal(ctx context.Context, dir string, noVCS bool) (install.Local, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return install.Local{}, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return install.Local{}, invalid(fmt.Errorf("%s: no such skill directory", dir))
	}
	created, err := registry.SourceDateEpoch(e.getenv)
	if err != nil {
		return install.Local{}, invalid(err)
	}
	// A folder's skill need not declare a version: it installs at
	// registry.TreeVersion of its files.
	a, err := registry.Build(ctx, abs, registry.BuildOptions{Created: created, NoVCS: noVCS, Unversioned: true, Lenient: true})
	if err != nil {
		return install.Local{}, &BuildError{Where: dir, Dir: true, Err: err}
	}
	return install.Local{Dir: abs, Artifact: a}, nil
}

// auditPreparer is an auditor that can start, in the background, what
// auditing a copy of a directory will need (install/auditor.Static).
type auditPreparer interface {
	Prepare(ctx context.Context, dir string)
}

// heldLocals are the folders and git references at a commit (receipts'
// LocalPath) the roots hold skills from. Read without the roots' locks:
// it only spares the auditor a head start, and decides nothing.
func heldLocals(roots []install.Root) map[string]bool {
	held := map[string]bool{}
	for _, r := range roots {
		rec, err := install.ReadReceipts(r.Dir)
		if err != nil {
			continue
		}
		for _, s := range rec.Skills {
			if s.LocalPath != "" {
				held[s.LocalPath] = true
			}
		}
	}
	return held
}

// prepareAudit lets the auditor start on dir, a skill an install is about
// to build, stage and audit: its compiles then overlap the build and
// staging. It returns at once: the first caller would otherwise make the
// auditor while the others' builds waited for it. It decides nothing; the
// audit still reads the staged bytes.
func (e *Engine) prepareAudit(ctx context.Context, dir string) {
	go func() {
		if a, err := e.loadAuditor(); err == nil {
			if p, ok := a.(auditPreparer); ok {
				p.Prepare(ctx, dir)
			}
		}
	}()
}

// staleLock lists the skills a lock pins below what the roots hold:
// applying such a lock would be a downgrade nobody asked for.
func staleLock(lock *resolve.Lockfile, roots []install.Root) []string {
	if lock == nil {
		return nil
	}
	var out []string
	for _, r := range roots {
		rec, err := install.ReadReceipts(r.Dir)
		if err != nil {
			continue
		}
		for _, got := range rec.Skills {
			ls := lock.Get(got.Name)
			if ls == nil || got.Source == "" {
				continue
			}
			if newer(got.Version, ls.Version) {
				out = append(out, fmt.Sprintf("%s: %s holds %s, skills.lock pins %s", got.Name, r.Dir, got.Version, ls.Version))
			}
		}
	}
	return out
}

// newer reports whether version a is above version b; versions that do
// not parse compare as not newer.
func newer(a, b string) bool {
	va, errA := semver.NewVersion(a)
	vb, errB := semver.NewVersion(b)
	return errA == nil && errB == nil && va.GreaterThan(vb)
}

// refKind is the kind of a parsed reference, or -1 when it did not parse
// (install.FromRefs reports why).
func refKind(ref source.Ref, err error) source.RefKind {
	if err != nil {
		return -1
	}
	return ref.Kind
}
