package engine

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/skillpm/skillpm/registry/advisory"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/auditor"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/internal/buildinfo"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

// Options configure an Engine. The zero value works: the process's
// environment, the user's hosts file, the effective trust policy, the
// embedded registry as the source of bare names and a default registry
// client.
type Options struct {
	// Client talks to registries; nil means a client with
	// registry.Options' defaults.
	Client *registry.Client

	// Source is the source of bare names (a registry namespace such as
	// ghcr.io/acme/skills, or oci-layout:DIR). It overrides a project
	// manifest's registry:, as install --from does.
	Source string
	// FallbackSource is the source of bare names when neither Source nor
	// the manifest names one (the configuration's registry); "" then means
	// the embedded registry.
	FallbackSource string
	// Resolution is how every operation picks versions in the sources:
	// whether ranges (and a bare name's newest version) match
	// pre-releases, and whether a signed sparse index is read.
	Resolution

	// Policy decides tiers. Nil means the effective policy:
	// PolicyFile, else the policy search path, else the built-in default.
	Policy *tiers.Policy
	// PolicyFile is read when Policy is nil; "" searches.
	PolicyFile string
	// Trust is the signature trust material. When it holds nothing, it
	// is derived from the policy (policycheck.PolicyTrust); a program that
	// trusts more keys, or a newer public-good root, derives it itself
	// with policycheck.TrustOptions.
	Trust sign.VerifyOptions

	// Env locates home, working directory, variables and the hosts table.
	// A zero Env means the process's, with the user's hosts file.
	Env hosts.Env
	// Target chooses the roots written to and read; zero leaves them to
	// package roots' defaults: the default host's user roots for an
	// install (roots.DefaultHost), every host's roots for the reads
	// (roots.Searched) and for update and remove (roots.Holding).
	Target roots.Target
	// Manifest and Lock are the project's files, as resolve.FindManifest picks
	// them ("" looks for skills.yaml, else gaia-agent.yaml, here, and the
	// lock beside the manifest): the project that Install without
	// references, Add, Update, Remove and Outdated without roots named,
	// Lock, DependencyGraphs and Doctor read and change. The project is the Engine's, as its roots are: its manifest
	// chooses them (scope:, hosts:, link:).
	Manifest, Lock string

	// Consent asks the user about dangerous permissions; nil asks nobody,
	// so only what a request grants is granted.
	Consent tiers.Prompter
	// Log receives what operations report beside their results, as
	// slog records (events.go): warnings that did not stop an operation
	// (slog.LevelWarn), lines about where things came from (slog.LevelInfo:
	// a git reference resolved from the cache, a note on a reference's
	// form, already prefixed with "note: " or "warning: "), events
	// (slog.LevelDebug, the event in the attribute EventKey: install
	// stages, from several goroutines at once, plans, a project's range
	// changes, PublishAll's finished skills; events.go) and the
	// decisions of install, update, add, lock, outdated and bundle, and
	// of the calls that pick one published version (info, verify,
	// promote, sign, audit): why each skill is at its version and its
	// tier (slog.LevelDebug without the attribute "event", decisions.go).
	// Nil discards them.
	Log *slog.Logger
	// Auditor audits every skill an install or update stages before it
	// commits; nil means pkg/audit's static audit (install/auditor),
	// naming this build in its reports (buildinfo.Tool: "skillpm v1.2.3").
	Auditor install.Auditor
	// LockWait bounds the wait for another skillpm on a root; 0 means
	// install.DefaultLockWait.
	LockWait time.Duration
}

// Engine runs skillpm's operations with one set of Options. It is safe
// for concurrent use when its callbacks are.
type Engine struct {
	opts   Options
	client *registry.Client
	env    hosts.Env
	// getenv reads variables such as SOURCE_DATE_EPOCH: env's, else none.
	getenv func(string) string

	mu      sync.Mutex
	policy  *tiers.Policy
	trust   sign.VerifyOptions
	auditor install.Auditor
	// advisories is the source's advisory feed, read once (Advisories).
	advisories *advisory.Checked
	// feedRead joins the callers reading the feed at once: the read
	// started ahead of a resolution and the resolution's own.
	feedRead singleflight.Group
	// feedGiven is true once a caller has been given the feed (and
	// reported its problems).
	feedGiven bool
}

// Open checks opts and opens what every operation needs: the registry
// client and the hosts table. The trust policy and its material are
// loaded by the first operation that needs them (Trust), so that
// operations that verify nothing do not fail on a broken policy.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	e := &Engine{opts: opts, client: opts.Client, policy: opts.Policy, trust: opts.Trust}
	if e.client == nil {
		c, err := registry.New(registry.Options{})
		if err != nil {
			return nil, err
		}
		e.client = c
	}
	if opts.Env.Home == "" && opts.Env.Cwd == "" && opts.Env.Getenv == nil && opts.Env.Hosts == nil {
		env, err := hosts.ProcessEnv()
		if err != nil {
			return nil, err
		}
		e.env = env
	} else {
		e.env = opts.Env
	}
	e.getenv = e.env.Getenv
	if e.getenv == nil {
		e.getenv = func(string) string { return "" }
	}
	return e, nil
}

func emptyTrust(t sign.VerifyOptions) bool {
	return len(t.PublicKeys) == 0 && len(t.TrustedRoots) == 0
}

// trustPolicy returns the trust policy in force and its signature trust
// material, loading them on first use: Options.Policy, else the
// effective policy (PolicyFile, else the search path, else the built-in
// default); Options.Trust, else the policy's material. A policy that does not load is tiers' error (a
// *tiers.PolicyError for a malformed one).
func (e *Engine) trustPolicy(ctx context.Context) (*tiers.Policy, sign.VerifyOptions, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.policy == nil {
		p, err := tiers.LoadEffective(ctx, e.opts.PolicyFile, e.getenv)
		if err != nil {
			return nil, sign.VerifyOptions{}, err
		}
		e.policy = p
	}
	if emptyTrust(e.trust) {
		trust, err := policycheck.PolicyTrust(ctx, e.policy, policycheck.TrustOptions{})
		if err != nil {
			return nil, sign.VerifyOptions{}, err
		}
		e.trust = trust
	}
	return e.policy, e.trust, nil
}

// loadAuditor returns the audit installs run: Options.Auditor, else
// install/auditor's static audit naming this build (buildinfo.Tool),
// built on first use.
func (e *Engine) loadAuditor() (install.Auditor, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.opts.Auditor != nil {
		return e.opts.Auditor, nil
	}
	if e.auditor == nil {
		a, err := auditor.New(auditor.Options{Tool: buildinfo.Tool(), CacheDir: e.auditCacheDir()})
		if err != nil {
			return nil, err
		}
		e.auditor = a
	}
	return e.auditor, nil
}

// auditCacheDir is where audit reports are cached: "audit" in the
// client's content cache, so that pruning the cache empties it too; ""
// (no cache) when the client has no cache directory. The cache holds
// reports only: every verdict is judged from the report at the tier
// decided on the staged bytes.
func (e *Engine) auditCacheDir() string {
	dir := e.client.CacheDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "audit")
}
