package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	spm "github.com/skillpm/skillpm"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
)

// engineFlags are what a command that opens the engine hands it: the
// registry client's flags, the trust flags (nil for commands that verify
// nothing) and the source of bare names (--from).
type engineFlags struct {
	reg   *regFlags
	trust *trustFlags
	from  string
	rf    *rootFlags
	// client, when set, is the registry client to use (one the command
	// opened already).
	client *registry.Client
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
func openEngine(ctx context.Context, g *globals, f engineFlags) (*spm.Engine, error) {
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
	opts := spm.Options{
		Client: client, Source: f.from, FallbackSource: g.config().Registry,
		Env: env, Host: g.config().Host,
		Consent: newTermPrompter(g), Warn: warnOnce(g),
		Notes:     func(line string) { fmt.Fprintln(g.stderr, termLines(line)) },
		AuditTool: "skillpm " + skillpmVersion(), Getenv: os.Getenv, Link: g.config().Link,
	}
	if f.rf != nil {
		opts.Target = f.rf.target()
	}
	if f.trust != nil {
		policy, vopts, err := f.trust.load(ctx, g)
		if err != nil {
			return nil, err
		}
		opts.Policy, opts.Trust = policy, vopts.Trust
	}
	return spm.Open(ctx, opts)
}

// target is the engine's view of the root flags; --link, when given, is
// its Placement.
func (f *rootFlags) target() spm.Target {
	t := spm.Target{Hosts: f.hosts, Scope: f.scope, Roots: f.roots}
	if f.linkc != nil && f.linkc.Flags().Changed("link") {
		t.Placement = install.PlaceCopy
		if f.link {
			t.Placement = install.PlaceLink
		}
	}
	return t
}

// engineExit maps what the engine decides to exit codes and renders what
// it returns for a front end to show (build diagnostics, the several
// hosts a default cannot be chosen from). Errors of the packages below
// are left for the command's own mapping.
func engineExit(g *globals, err error) (error, bool) {
	var be *spm.BuildError
	var ni *spm.NotInstalledError
	var sh *spm.SeveralHostsError
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
			return withCode(exitValidation, errors.New(msg)), true
		}
		if be.Dir {
			return withCode(exitValidation, be.Err), true
		}
		return withCode(exitValidation, err), true
	case errors.As(err, &ni):
		return notInstalledAnywhere(ni.Names), true
	case errors.As(err, &sh):
		return rootsErr(g, err), true
	case errors.Is(err, spm.ErrGit):
		return gitExit(err), true
	case errors.Is(err, spm.ErrUntrustedCommit):
		return withCode(exitTrust, err), true
	case errors.Is(err, spm.ErrNoSuchSkill):
		return withCode(exitResolution, err), true
	case errors.Is(err, spm.ErrLockMismatch):
		return withCode(exitFailure, err), true
	case errors.Is(err, spm.ErrInvalidRequest):
		return withCode(exitUsage, err), true
	}
	return err, false
}

// installFailure maps an install's or update's failure to its exit code;
// hint adds, for a resolution failure, where skillpm looked.
func installFailure(ctx context.Context, g *globals, e *spm.Engine, err error, hint bool) error {
	if mapped, ok := engineExit(g, err); ok {
		return mapped
	}
	var ie *spm.InstallError
	if !errors.As(err, &ie) {
		return regExit(err)
	}
	mapped := installExit(ie.Manifest, ie.LockFile, ie.Err)
	if hint && ie.Graph != nil {
		return notFoundHint(ctx, e.Client(), ie.Graph, ie.Manifest, ie.Err, mapped)
	}
	return mapped
}
