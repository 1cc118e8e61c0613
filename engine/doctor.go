package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/tiers"
)

// DoctorRequest asks for a check of the setup, as `skillpm doctor` does.
// The setup is the Engine's: the trust policy it obeys
// (Options.PolicyFile, else tiers.Find) and the variables of its
// Options.Env.
type DoctorRequest struct{}

// DoctorResult is what Doctor found. Problems lists every problem in the
// order a user reads them; the other fields say what is in use.
type DoctorResult struct {
	// Host is the default host ("" when it cannot be chosen: a problem).
	Host install.HostID
	// Env are the variables of Options.Env set (not empty) that change
	// where skillpm reads and writes (doctorEnv), SKILLPM_PASSWORD's
	// value hidden as "(set)".
	Env map[string]string
	// Policy is the trust policy file in effect, "" for the built-in
	// default.
	Policy string
	// Roots are every host's discovery roots (install.AllSearchRoots).
	Roots []install.RootHealth
	// Manifest is the manifest of the project checked, nil outside one.
	Manifest *resolve.Manifest
	// Drift is where the project's roots differ from its lock: each an
	// *install.LockDrift, or the failure to read a root's receipts.
	Drift []error
	// Registries are the sources of bare names checked: the fallback
	// source and the project's registry, each once.
	Registries []DoctorRegistry
	// Problems are the failures of each check: the user's hosts file,
	// the default host, the policy, each root (prefixed with it), the
	// project, its drift from the lock (*install.LockDrift), each registry, the
	// advisory feed's own problems and each installed copy an obeyed
	// advisory names (List returns those as records).
	Problems []error
}

// DoctorRegistry is a source of bare names and whether it answered.
type DoctorRegistry struct {
	// Source is the source ("embedded" for the embedded registry).
	Source string
	// Err is why it did not answer; nil when it did.
	Err error
}

// doctorEnv are skillpm's own variables that change where it reads and
// writes, or how, and every variable the hosts table says moves a host's
// roots: sorted, once each.
func doctorEnv(t *hosts.Table) []string {
	out := []string{"SKILLPM_CONFIG", "SKILLPM_CACHE", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "SOURCE_DATE_EPOCH", "SKILLPM_PASSWORD"}
	seen := map[string]bool{}
	for _, k := range out {
		seen[k] = true
	}
	for _, h := range t.Hosts() {
		for _, d := range append(slices.Clone(h.User), h.Project...) {
			if d.Env != "" && !seen[d.Env] {
				seen[d.Env] = true
				out = append(out, d.Env)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Doctor checks the setup: the user's hosts file, the default host, the
// variables in effect, the trust policy, every host's roots (receipts,
// pending transactions), a project's drift from its lock, and whether
// the sources of bare names answer. What is wrong is reported, not
// returned: the error is for a check that could not run at all.
func (e *Engine) Doctor(ctx context.Context, _ DoctorRequest) (*DoctorResult, error) {
	rep := &DoctorResult{Env: map[string]string{}}
	env := e.env
	if _, err := hosts.Load(env); err != nil {
		// Reported, and the engine's table is used (a lenient opener
		// gives the built-in one).
		rep.Problems = append(rep.Problems, err)
	}
	if h, err := roots.DefaultHost(env, e.opts.Target.DefaultHost); err != nil {
		rep.Problems = append(rep.Problems, err)
	} else {
		rep.Host = h
	}
	for _, k := range doctorEnv(env.Table()) {
		if v := e.getenv(k); v != "" {
			if k == "SKILLPM_PASSWORD" {
				v = "(set)"
			}
			rep.Env[k] = v
		}
	}
	// A project policy this machine has not approved (LoadPolicy's rule)
	// is set aside by every command run here without a policy of its own.
	if c, _ := LoadPolicy(ctx, PolicyRequest{Manifest: e.opts.Manifest}); c != nil && c.Unapproved != "" {
		rep.Problems = append(rep.Problems, fmt.Errorf("this project's policy %s is not approved on this machine (or changed since), so every command run here ignores it: review it, then run skillpm policy approve", c.Unapproved))
	}
	if p := tiers.Find(e.opts.PolicyFile, e.getenv, os.Stat); p != "" {
		rep.Policy = p
		if _, err := tiers.Load(ctx, p); err != nil {
			rep.Problems = append(rep.Problems, fmt.Errorf("policy %s: %w", p, err))
		}
	}
	for _, root := range install.AllSearchRoots(env) {
		dr := install.CheckRoot(env, root)
		for _, p := range dr.Problems {
			rep.Problems = append(rep.Problems, fmt.Errorf("%s: %w", root.Dir, p))
		}
		rep.Roots = append(rep.Roots, dr)
	}
	sources := []string{e.opts.FallbackSource}
	if resolve.HasProject(e.opts.Manifest) {
		p, err := openProject(ctx, e.opts.Manifest, e.opts.Lock)
		if err != nil {
			rep.Problems = append(rep.Problems, err)
		} else {
			if p.manifest.Registry != "" {
				if src, err := resolve.CanonicalSource(p.manifest.Registry, p.manifest.Dir); err == nil {
					sources = append(sources, src)
				}
			}
			rep.Manifest = p.manifest
			if placed, err := roots.Project(env, roots.Target{DefaultHost: e.opts.Target.DefaultHost}, p.manifest); err != nil {
				rep.Problems = append(rep.Problems, targetErr(err))
			} else {
				rep.Drift = install.LockDrifts(ctx, p.manifest.File, p.lockFile, p.prev, placed.Roots)
			}
			rep.Problems = append(rep.Problems, rep.Drift...)
		}
	}
	e.doctorAdvisories(ctx, rep)
	seen := map[string]bool{}
	for _, s := range sources {
		if seen[s] {
			continue
		}
		seen[s] = true
		dr := DoctorRegistry{Source: s}
		if s == "" {
			dr.Source = resolve.EmbeddedSource
		}
		if dr.Err = e.reachable(ctx, s); dr.Err != nil {
			rep.Problems = append(rep.Problems, fmt.Errorf("registry %s: %w", dr.Source, dr.Err))
		}
		rep.Registries = append(rep.Registries, dr)
	}
	return rep, nil
}

// reachable lists a source's skills, which needs the registry to answer;
// a registry without a catalog answered all the same.
func (e *Engine) reachable(ctx context.Context, src string) error {
	spec := source.Spec{}
	if src != "" && src != resolve.EmbeddedSource {
		var err error
		if spec, err = source.Parse(src); err != nil {
			return err
		}
	}
	s, err := e.client.OpenSource(spec)
	if err != nil {
		return err
	}
	if _, err := e.client.SourceNames(ctx, s); err != nil && !errors.Is(err, registry.ErrNoCatalog) {
		return err
	}
	return nil
}

// doctorAdvisories checks every root against the advisory feed: the
// feed's problems and each installed copy an advisory names are problems.
func (e *Engine) doctorAdvisories(ctx context.Context, rep *DoctorResult) {
	ch, _, err := e.advisoryFeed(ctx)
	if err != nil {
		rep.Problems = append(rep.Problems, err)
		return
	}
	for _, p := range feedProblems(ch) {
		rep.Problems = append(rep.Problems, errors.New(p))
	}
	var roots []install.Root
	for _, r := range rep.Roots {
		roots = append(roots, r.Root)
	}
	found, err := e.auditInstalled(ctx, roots)
	if err != nil {
		rep.Problems = append(rep.Problems, err)
		return
	}
	for _, a := range found {
		if a.foreign != "" {
			// Nobody recorded what it is: say how it was recognised.
			rep.Problems = append(rep.Problems, fmt.Errorf("%s: %s (a copy skillpm did not install, placed by %s, recognised by its tree hash %s; remove it or adopt it)", a.Dir, a.Advised, a.foreign, a.Tree))
			continue
		}
		rep.Problems = append(rep.Problems, fmt.Errorf("%s: %s", a.Dir, a.Advised))
	}
}
