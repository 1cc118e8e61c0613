package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/asf"
	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/internal/config"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/tiers"
)

// The exit codes the tests expect, errdef's.
const (
	exitOK         = errdef.ExitOK
	exitFailure    = errdef.ExitFailure
	exitUsage      = errdef.ExitUsage
	exitValidation = errdef.ExitValidation
	exitResolution = errdef.ExitResolution
	exitTrust      = errdef.ExitTrust
	exitRegistry   = errdef.ExitRegistry
)

// exitCode is the process exit code run gives err.
func exitCode(err error) int { return classOf(err).ExitCode() }

// TestExitCodeByClass: errors no call site gave a code exit with the code
// of their class. ErrImmutable, ErrUnauthorized and ErrInvalidArtifact
// exited 1 before the taxonomy.
func TestExitCodeByClass(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{&registry.ImmutableError{Repository: "r", Version: "1.0.0"}, exitValidation},
		{fmt.Errorf("pull: %w", registry.ErrUnauthorized), exitRegistry},
		{fmt.Errorf("x: %w", registry.ErrInvalidArtifact), exitValidation},
		{fmt.Errorf("x: %w", registry.ErrNotFound), exitResolution},
		{&tiers.RefusedError{}, exitTrust},
		{&install.DependedUponError{Name: "a"}, exitFailure},
		{errors.New("plain"), exitFailure},
		{classed(errdef.Usage, registry.ErrNotFound), exitUsage},
		{&usageError{errors.New("bad flag")}, exitUsage},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// TestFlagHints: the flags that get past a library error are named by the
// CLI, not by the library's message.
func TestFlagHints(t *testing.T) {
	refused := &tiers.RefusedError{Refusals: []tiers.Refusal{
		{Skill: "code@1.2.0", Permission: "shell:execute", Grant: "code:shell:execute", Via: []string{"fix@1.0.0", "code@1.2.0"}, Kind: tiers.ErrNeedsConsent},
		{Skill: "x@1.0.0", Kind: tiers.ErrExperimental},
	}}
	got := withFlagHints("refused", fmt.Errorf("install: %w", refused))
	for _, want := range []string{
		"refused\n\nhint: rerun with --grant code:shell:execute or --yes\n",
		"hint: skillpm verify shows its signers; --allow-experimental installs it on purpose",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("hints = %q, want %q in it", got, want)
		}
	}
	if got := withFlagHints("m", &registry.ImmutableError{}); !strings.HasSuffix(got, "\n\nhint: --force overwrites a published version on a private registry") {
		t.Errorf("immutable: %q", got)
	}
	if got := withFlagHints("m", errors.New("plain")); got != "m" {
		t.Errorf("plain error got hints: %q", got)
	}
}

// TestExitCodeWithoutCallSite: the library errors the commands no longer
// wrap with withCode exit as they did, by their class alone.
func TestExitCodeWithoutCallSite(t *testing.T) {
	_, cfgErr := config.Load(t.TempDir(), func(string) string { return "" }) // a directory: unreadable
	_, scopeErr := asf.ClaudeSettingsPath("team", asf.Env{Home: t.TempDir()})
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"unreadable configuration", cfgErr, exitUsage},
		{"unknown settings scope", scopeErr, exitUsage},
		{"invalid request", fmt.Errorf("x: %w", engine.ErrInvalidRequest), exitUsage},
		{"locked root", &install.LockedError{Root: "r"}, exitFailure},
		{"edited skill", fmt.Errorf("x: %w", install.ErrEdited), exitFailure},
		{"downgrade", fmt.Errorf("x: %w", install.ErrDowngrade), exitFailure},
		{"republished", fmt.Errorf("x: %w", install.ErrRepublished), exitTrust},
		{"refused", fmt.Errorf("x: %w", tiers.ErrRefused), exitTrust},
		{"no index", fmt.Errorf("x: %w", registry.ErrNoIndex), exitResolution},
		{"unverified index", fmt.Errorf("x: %w", registry.ErrUnverified), exitTrust},
		{"name conflict", lockExit(&resolve.Manifest{}, fmt.Errorf("x: %w", resolve.ErrNameConflict)), exitResolution},
		{"stale lock", lockExit(&resolve.Manifest{}, &resolve.StaleError{}), exitResolution},
		{"unknown asf host", fmt.Errorf("%w %q", asf.ErrUnknownHost, "x"), exitUsage},
		{"invalid session", fmt.Errorf("x: %w", asf.ErrInvalidSession), exitUsage},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestExceptions: every entry of the exceptions table changes the class
// the library gives (else it would restate errdef and belong nowhere),
// or keeps it against a fallback of the same commands, and except
// applies it only on the commands it names.
func TestExceptions(t *testing.T) {
	fallback := map[string]bool{}
	for _, x := range exceptions() {
		fallback[x.where] = fallback[x.where] || x.err == nil
	}
	for _, x := range exceptions() {
		if x.err == nil {
			continue
		}
		err := fmt.Errorf("x: %w", x.err)
		if errdef.ClassOf(err) == x.class && !fallback[x.where] {
			t.Errorf("%s: %v is %v to its library already: drop the exception", x.where, x.err, x.class)
		}
		if got := errdef.ClassOf(except(x.where, err)); got != x.class {
			t.Errorf("except(%s, %v) is %v, want %v", x.where, x.err, got, x.class)
		}
		if x.where != "asf" && errdef.ClassOf(except("asf", err)) == x.class {
			t.Errorf("%v: the exception of %s applies on asf too", x.err, x.where)
		}
	}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		// A hook payload that does not parse fails open (1), not 2.
		{"hook payload", except("asf", fmt.Errorf("x: %w", asf.ErrHookPayload)), exitFailure},
		{"missing workflow", except("asf", fmt.Errorf("x: %w", asf.ErrNoWorkflow)), exitFailure},
		{"plan error", except("asf", &asf.PlanError{Err: errors.New("step file not found")}), exitValidation},
		{"chosen by the command", except("asf", classed(errdef.Usage, errors.New("hooks"))), exitUsage},
		{"outside the table", except("install", fmt.Errorf("x: %w", asf.ErrHookPayload)), exitUsage},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}
