package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/skillpm/skillpm/internal/config"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/spf13/cobra"
)

// Exit codes, documented in the root command's help: errdef's, which
// also maps each class of error to one.
const (
	exitOK         = errdef.ExitOK
	exitFailure    = errdef.ExitFailure
	exitUsage      = errdef.ExitUsage
	exitValidation = errdef.ExitValidation
	exitResolution = errdef.ExitResolution
	exitTrust      = errdef.ExitTrust
	exitRegistry   = errdef.ExitRegistry
)

const exitCodesHelp = `Exit codes:
  0  success
  1  failure
  2  usage error
  3  validation failed
  4  no resolution
  5  refused by trust (verification, tier, ceiling, grants)
  6  registry or network failure after retries`

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// classExit gives err the exit code of its errdef class, unless a call
// site already chose one (withCode) or it has no class.
func classExit(err error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	if c := errdef.ClassOf(err); c != errdef.None {
		return withCode(c.ExitCode(), err)
	}
	return err
}

// withCode wraps err so that the process exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// globals holds the flags every command shares.
type globals struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	output     string
	quiet      bool
	verbose    bool
	configPath string
	timeout    string
	cfg        *config.Config
}

func (g *globals) json() bool { return g.output == "json" }

// config returns the configuration read for this run (empty when a
// command runs without the root's pre-run, as in some tests).
func (g *globals) config() *config.Config {
	if g.cfg == nil {
		return &config.Config{}
	}
	return g.cfg
}

// run executes the CLI and returns the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRootCmd(g)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	if msg := err.Error(); msg != "" {
		msg = withFlagHints(msg, err)
		if g.json() || jsonRequested(args) {
			writeErrorJSON(stderr, code, msg)
		} else {
			fmt.Fprintf(stderr, "skillpm: %s\n", termLines(msg))
		}
	}
	return code
}

// exitCode is the process exit code for err: the one a call site chose
// (withCode), else 2 for flag and argument errors, else the code of the
// class the library gave the error (errdef), 1 when it has none.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case isUsageError(err) || strings.HasPrefix(err.Error(), "unknown command "):
		// cobra reports an unknown command as a plain error.
		return exitUsage
	}
	return errdef.ClassOf(err).ExitCode()
}

// usageError marks flag and argument errors.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func isUsageError(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

func newRootCmd(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "skillpm",
		Short: "Package manager and signing registry client for agent skills",
		Long: `skillpm validates, packs, publishes, signs, resolves and installs agent
skills (directories with a SKILL.md) as OCI artifacts, and runs ASF workflows.

` + exitCodesHelp,
		Example: `  skillpm init my-skill
  skillpm validate ./my-skill
  skillpm pack ./my-skill --oci-layout ./out`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints the one-line form; `skillpm version` the full one.
		Version: readBuildInfo().String(),
	}
	root.SetVersionTemplate("skillpm {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf(c, err)
	})
	pf := root.PersistentFlags()
	pf.StringVar(&g.output, "output", "text", "output format: text or json")
	pf.BoolVarP(&g.quiet, "quiet", "q", false, "print only what was asked for")
	pf.BoolVarP(&g.verbose, "verbose", "v", false, "print more detail")
	pf.StringVar(&g.timeout, "timeout", "", "registry `DURATION` (10s, 1m, or seconds): to connect, of silence mid-transfer, and a third of the bound on a whole manifest; a registry that does not answer costs about twice this (default $SKILLPM_HTTP_TIMEOUT, else the configuration's http-timeout, else 10s)")
	pf.StringVar(&g.configPath, "config", "", "read the configuration from `FILE` (default $SKILLPM_CONFIG, else $XDG_CONFIG_HOME/skillpm/config.yaml)")
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		if g.output != "text" && g.output != "json" {
			return &usageError{fmt.Errorf("--output must be text or json, not %q", g.output)}
		}
		cfg, err := config.Load(g.configPath, os.Getenv)
		if err != nil {
			return err
		}
		g.cfg = cfg
		return nil
	}

	root.AddCommand(
		newVersionCmd(g), newCacheCmd(g),
		newValidateCmd(g),
		newInitCmd(g),
		newInstallCmd(g), newAddCmd(g), newUpdateCmd(g), newListCmd(g), newRemoveCmd(g), newHostsCmd(g), newAdoptCmd(g),
		newAsfCmd(g), newRunCmd(g),
		newMigrateCmd(g),
		newPolicyCmd(g),
		newPackCmd(g), newPublishCmd(g), newInfoCmd(g), newPullCmd(g), newLoginCmd(g), newLogoutCmd(g),
		newKeygenCmd(g), newSignCmd(g), newVerifyCmd(g), newPromoteCmd(g),
		newSignBlobCmd(g), newVerifyBlobCmd(g),
		newLockCmd(g), newOutdatedCmd(g), newTreeCmd(g), newWhyCmd(g), newDoctorCmd(g),
		newAuditCmd(g),
		newMirrorCmd(g), newBundleCmd(g), newIndexCmd(g), newSearchCmd(g),
		newServeCmd(g),
	)
	applyConventions(g, root)
	return root
}

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(c, args); err != nil {
			return usageErrorf(c, err)
		}
		return nil
	}
}

// usageErrorf wraps err as a usage error that points at the command's help.
func usageErrorf(c *cobra.Command, err error) error {
	return &usageError{fmt.Errorf("%w (run '%s --help' for usage)", err, c.CommandPath())}
}

// minArgs is cobra.MinimumNArgs with a usage error.
func minArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := cobra.MinimumNArgs(n)(c, args); err != nil {
			return usageErrorf(c, err)
		}
		return nil
	}
}
