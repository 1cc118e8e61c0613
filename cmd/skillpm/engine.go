package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
)

// engineFlags are what a command that opens the engine hands it: the
// registry client's flags, the trust flags (nil for commands that verify
// nothing) and the source of bare names (--registry).
type engineFlags struct {
	reg   *regFlags
	trust *trustFlags
	from  string
	rf    *rootFlags
	// policyFile is the policy file the engine edits (trust add): --policy,
	// else the project's or the configuration's (engine.LoadPolicy),
	// else the user's.
	policyFile string
	// manifest is the project manifest the command was given (--manifest;
	// "" looks here), whose policy: is the one in force.
	manifest string
	// project, when set, is the project the engine's operations read and
	// change (--manifest and --lock: Options.Manifest and Lock).
	project *projectOption
	// client, when set, is the registry client to use (one the command
	// opened already).
	client *registry.Client
	// ask asks for consent on stdin even when it is not a terminal.
	ask bool
	// warn, when set, renders the engine's warnings instead of warnOnce
	// (lock and bundle print each as "skillpm: warning: ...").
	warn func(string)
	// item, when set, is told of each skill a PublishAll finishes.
	item func(done, total int, it *engine.PublishItem)
	// plan, when set, is shown the plan of an install or update before
	// consent; ranges an update's range changes in a project.
	plan   func([]install.Change)
	ranges func(*engine.UpdateResult)
	// noPolicy looks for no policy file (sign, pull: they verify nothing,
	// and a broken project manifest here is none of their business).
	noPolicy bool
	// lenientEnv resolves roots with the built-in hosts table when the
	// user's hosts file does not load (osEnv), for commands that read
	// every host's roots without --host, --scope or --root.
	lenientEnv bool
}

// openEngine opens the library engine as the command line configures it:
// the registry client with progress on a terminal, the trust policy with
// --policy, --key and --public-good-root (its errors rendered as policy
// check does), the configuration's registry and host, a terminal prompt
// for consent, warnings on stderr once each (unless -q) and notes on
// stderr.
func openEngine(ctx context.Context, g *globals, f engineFlags) (*engine.Engine, error) {
	reg := f.reg
	if reg == nil {
		reg = &regFlags{}
	}
	client := f.client
	if client == nil {
		var err error
		if client, err = regClient(g, reg); err != nil {
			return nil, err
		}
	}
	env, err := processEnv()
	if err != nil && f.lenientEnv {
		env, err = osEnv(), nil
	}
	if err != nil {
		return nil, err
	}
	opts := engine.Options{
		Client: client, Source: f.from, FallbackSource: g.config().Registry,
		Resolution: reg.resolution, Env: env,
		Consent: newTermPrompter(g, f.ask),
	}
	h := cliLog{warn: f.warn, note: g.o().Note, item: f.item, plan: f.plan, ranges: f.ranges}
	if h.warn == nil {
		h.warn = warnOnce(g)
	}
	if g.verbose() {
		h.decision = g.o().Decision
	}
	opts.Log = slog.New(h)
	if f.rf != nil {
		opts.Target = f.rf.target()
	}
	opts.Target.Link, opts.Target.DefaultHost = g.config().Link, g.config().Host
	if f.project != nil {
		opts.Manifest, opts.Lock = f.project.manifest, f.project.lock
	}
	if f.noPolicy {
		return engine.Open(ctx, opts)
	}
	file := f.policyFile
	if f.trust != nil {
		file = f.trust.policy
	}
	c, err := choosePolicy(ctx, g, file, f.manifest, h.warn)
	switch {
	case c == nil:
		return nil, err
	case err != nil && f.trust != nil:
		return nil, policyLoadError(g, err)
	case err != nil:
		// The engine reports the failure when an operation needs the
		// policy; trust add creates a project's missing one.
		opts.PolicyFile = c.File
	default:
		opts.Policy, opts.PolicyFile = c.Policy, c.File
	}
	if f.trust != nil {
		keys, err := f.trust.publicKeys()
		if err != nil {
			return nil, err
		}
		_, vopts, err := f.trust.trustIn(ctx, c.Policy, keys)
		if err != nil {
			return nil, err
		}
		opts.Trust = vopts.Trust
	}
	return engine.Open(ctx, opts)
}

// cliLog renders the engine's events (Options.Log): warnings through
// warn, notes as they come, a PublishAll's finished skills through item,
// plans through plan and a project update's range changes through ranges
// when set, the engine's decisions (why this version, why this tier:
// debug records without an event) through decision when set (-v);
// install stages are not shown.
type cliLog struct {
	warn, note, decision func(string)
	item                 func(done, total int, it *engine.PublishItem)
	plan                 func([]install.Change)
	ranges               func(*engine.UpdateResult)
}

// Enabled asks for warnings and notes, and for the debug records when
// events or decisions are wanted.
func (h cliLog) Enabled(_ context.Context, l slog.Level) bool {
	return l >= slog.LevelInfo || h.item != nil || h.plan != nil || h.ranges != nil || h.decision != nil
}

// Handle renders one warning, note or finished publish.
func (h cliLog) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelInfo {
		var it *engine.PublishItem
		done, total := 0, 0
		hasEvent := false
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case engine.EventKey:
				hasEvent = true
				switch v := a.Value.Any().(type) {
				case *engine.PublishItem:
					it = v
				case []install.Change:
					if h.plan != nil {
						h.plan(v)
					}
				case *engine.UpdateResult:
					if h.ranges != nil {
						h.ranges(v)
					}
				}
			case "done":
				done = int(a.Value.Int64())
			case "total":
				total = int(a.Value.Int64())
			}
			return true
		})
		if it != nil && h.item != nil {
			h.item(done, total, it)
		}
		if !hasEvent && h.decision != nil {
			h.decision(r.Message)
		}
		return nil
	}
	if r.Level >= slog.LevelWarn {
		h.warn(r.Message)
	} else {
		h.note(r.Message)
	}
	return nil
}

// WithAttrs returns h: the engine's records carry their text in the
// message.
func (h cliLog) WithAttrs([]slog.Attr) slog.Handler { return h }

// WithGroup returns h.
func (h cliLog) WithGroup(string) slog.Handler { return h }

// target is the engine's view of the root flags; --link, when given, is
// its Placement.
func (f *rootFlags) target() roots.Target {
	t := roots.Target{Hosts: f.hosts, Scope: f.scope, Roots: f.roots}
	if f.linkc != nil && f.linkc.Flags().Changed("link") {
		t.Placement = install.PlaceCopy
		if f.link {
			t.Placement = install.PlaceLink
		}
	}
	return t
}

// engineErr renders what the engine returns for a front end to show
// (build diagnostics, the names no root holds, the several hosts a
// default cannot be chosen from), keeping each error's class; it reports
// false for the errors it leaves to the command.
func engineErr(g *globals, err error) (error, bool) {
	var be *engine.BuildError
	var ni *install.NotInstalledError
	var sh *roots.SeveralHostsError
	switch {
	case err == nil:
		return nil, true
	case errors.As(err, &be):
		var ve *skill.ValidationError
		if errors.As(be.Err, &ve) {
			printDiagnostics(g.stderr, ve.Diagnostics)
			msg := fmt.Sprintf("%s: %s, not installed", be.Where, plural(len(ve.Diagnostics.Errors()), "error"))
			if be.Dir {
				msg += "; fix and check with skillpm validate " + be.Where
			}
			return classed(be.Class(), errors.New(msg)), true
		}
		if be.Dir {
			// The message names the directory already.
			return classed(be.Class(), be.Err), true
		}
		return classed(be.Class(), err), true
	case errors.As(err, &ni):
		return notInstalledAnywhere(ni.Names), true
	case errors.As(err, &sh):
		return rootsErr(g, err), true
	}
	return err, false
}

// installFailure maps an install's or update's failure to its exit code;
// hint adds, for a resolution failure, where skillpm looked.
func installFailure(ctx context.Context, g *globals, e *engine.Engine, err error, hint bool) error {
	if mapped, ok := engineErr(g, err); ok {
		return mapped
	}
	var ie *engine.InstallError
	if !errors.As(err, &ie) {
		return err
	}
	cause := ie.Err
	if ie.Manifest != nil && isProjectManifest(ie.Manifest.File) {
		cause = &inProject{cause}
	}
	mapped := installExit(ie.Manifest, cause)
	if hint && ie.Graph != nil {
		return notFoundHint(ctx, e, ie.Graph, ie.Manifest, ie.Err, mapped)
	}
	return mapped
}

// inProject marks a failure of a project's resolution, so that the hints
// name the project's commands (add) rather than install's.
type inProject struct{ error }

// Unwrap returns the failure.
func (e *inProject) Unwrap() error { return e.error }

// Class is errdef.None: the failure is of its cause's class.
func (e *inProject) Class() errdef.Class { return errdef.None }

// isProjectManifest reports whether file is a project manifest
// (skills.yaml, gaia-agent.yaml) rather than the command line's
// references.
func isProjectManifest(file string) bool {
	base := filepath.Base(file)
	return base == resolve.ManifestFile || base == resolve.AgentManifestFile
}
