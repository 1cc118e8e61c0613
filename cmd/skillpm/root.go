package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/skillpm/skillpm/internal/config"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const exitCodesHelp = `Exit codes (the class of the error decides):
  0  success
  1  failure (doctor: a problem reported)
  2  usage error
  3  validation failed
  4  no resolution, or not found (not installed)
  5  refused by trust (verification, tier, ceiling, grants)
  6  registry or network failure after retries
outdated exits 1 for outdated skills only with --exit-code; the asf hook
commands exit as the ASF runtime does (see skillpm asf --help).`

// globals holds the flags every command shares.
type globals struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	output     string
	quiet      bool
	verbosity  int
	color      string
	configPath string
	timeout    string
	cfg        *config.Config
	// cfgErr is the configuration's error for the commands that run
	// without one (doctor, version), which report it.
	cfgErr error
	// command is the running command's path ("skillpm policy check").
	command string
	// out is the output layer (output.go) the pre-run sets up.
	out *output
	// progress is the run's progress line (nil off a terminal).
	progress *progressView
	// deprecations holds pflag's notices of deprecated flag names.
	deprecations bytes.Buffer
	// jsonErr is stderr in JSON mode, flushed before the error is written.
	jsonErr *jsonLines
}

func (g *globals) json() bool { return g.output == "json" }

// verbose reports -v (or SKILLPM_LOG=debug) or more.
func (g *globals) verbose() bool { return g.o().level >= levelVerbose }

// o is the output layer; before the pre-run (a flag error, a test that
// calls a command's function) a default one on the plain streams.
func (g *globals) o() *output {
	if g.out == nil {
		level := levelNormal
		if g.quiet {
			level = levelQuiet
		}
		g.out = &output{stdout: g.stdout, stderr: g.stderr, level: level, json: g.json()}
	}
	return g.out
}

// setupOutput builds the output layer from -q, -v, --color, --output and
// SKILLPM_LOG; in JSON mode stderr becomes JSON lines.
func (g *globals) setupOutput(getenv func(string) string) error {
	if g.output != "text" && g.output != "json" {
		return &usageError{fmt.Errorf("--output must be text or json, not %q", g.output)}
	}
	if g.quiet && g.verbosity > 0 {
		return &usageError{errors.New("--quiet and --verbose contradict each other: give one")}
	}
	color, err := useColor(g.color, g.stderr, getenv)
	if err != nil {
		return &usageError{err}
	}
	level := g.verbosity
	if env, ok := logLevel(getenv("SKILLPM_LOG")); !ok {
		return &usageError{fmt.Errorf("SKILLPM_LOG=%s: use debug (as -v) or trace (as -vv)", getenv("SKILLPM_LOG"))}
	} else if env > level {
		level = env
	}
	if g.quiet {
		level = levelQuiet
	}
	o := &output{stdout: g.stdout, stderr: g.stderr, level: level, json: g.json(), color: color && !g.json(), width: termWidth(g.stdout)}
	if g.json() {
		g.jsonErr = &jsonLines{w: g.stderr}
		g.stderr = g.jsonErr
		o.stderr = g.jsonErr
		o.width = 0
	}
	g.out = o
	for _, l := range strings.Split(strings.TrimSpace(g.deprecations.String()), "\n") {
		if l != "" {
			o.Warn(l)
		}
	}
	if g.progress = newProgressView(g); g.progress != nil {
		g.stdout = stopOnWrite{w: g.stdout, stop: g.progress.Stop}
		o.stdout = g.stdout
	}
	return nil
}

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
	g.progress.Stop()
	if g.jsonErr != nil {
		g.jsonErr.Flush()
	}
	if err == nil {
		return errdef.ExitOK
	}
	class := classOf(err)
	if msg := err.Error(); msg != "" {
		msg = withFlagHints(msg, err)
		if g.jsonErr != nil {
			g.jsonErr.Flush()
		}
		if g.json() || jsonRequested(args) {
			writeErrorJSON(stderr, class, msg)
		} else {
			g.o().Error(class.String(), class.ExitCode(), msg)
		}
	}
	return class.ExitCode()
}

// runsWithoutConfig reports the commands that run when the configuration
// does not load: doctor (which reports it) and version.
func runsWithoutConfig(c *cobra.Command) bool {
	return c.Parent() != nil && !c.Parent().HasParent() && (c.Name() == "doctor" || c.Name() == "version")
}

// classOf is the errdef class of a command's failure, which gives the
// exit code (flag and argument errors are usage errors; the commands'
// deliberate exceptions are applied where they return, exceptions.go).
func classOf(err error) errdef.Class {
	if strings.HasPrefix(err.Error(), "unknown command ") {
		// cobra reports an unknown command as a plain error.
		return errdef.Usage
	}
	return errdef.ClassOf(err)
}

// usageError marks flag and argument errors.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// Class is errdef.Usage: the command line was not understood.
func (e *usageError) Class() errdef.Class { return errdef.Usage }

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
		return usageErrorf(c, flagSuggestion(c, err))
	})
	pf := root.PersistentFlags()
	pf.StringVarP(&g.output, "output", "o", "text", "output `FORMAT`: text or json (json: stdout holds one document with a schema key, stderr JSON lines only)")
	pf.BoolVarP(&g.quiet, "quiet", "q", false, "print only what was asked for: no notes, warnings or progress")
	pf.CountVarP(&g.verbosity, "verbose", "v", "-v adds the decisions (why this version, why this tier, retries); -vv adds every HTTP request (also SKILLPM_LOG=debug or trace)")
	pf.StringVar(&g.color, "color", "auto", "colour warnings and errors: `WHEN` is auto (on a terminal, unless NO_COLOR is set), always or never")
	pf.StringVar(&g.timeout, "timeout", "", "registry `DURATION` (10s, 1m, or seconds): to connect, of silence mid-transfer, and a third of the bound on a whole manifest; a registry that does not answer costs about twice this (default $SKILLPM_HTTP_TIMEOUT, else the configuration's http-timeout, else 10s)")
	pf.StringVar(&g.configPath, "config", "", "read the configuration from `FILE` (default $SKILLPM_CONFIG, else $XDG_CONFIG_HOME/skillpm/config.yaml)")
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		g.command = c.CommandPath()
		if err := g.setupOutput(os.Getenv); err != nil {
			return err
		}
		cfg, err := config.Load(g.configPath, os.Getenv)
		if err != nil && runsWithoutConfig(c) {
			// doctor and version are what a user runs when the
			// configuration is broken: they run on the defaults and doctor
			// reports the error as a problem.
			g.cfgErr, cfg = err, &config.Config{}
		} else if err != nil {
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
		newPolicyCmd(g), newTrustCmd(g),
		newPackCmd(g), newPublishCmd(g), newInfoCmd(g), newPullCmd(g), newLoginCmd(g), newLogoutCmd(g),
		newKeygenCmd(g), newSignCmd(g), newVerifyCmd(g), newPromoteCmd(g), newYankCmd(g), newDeprecateCmd(g), newAdvisoryCmd(g), newQuarantineCmd(g), newRestoreCmd(g),
		newSignBlobCmd(g), newVerifyBlobCmd(g),
		newLockCmd(g), newOutdatedCmd(g), newTreeCmd(g), newWhyCmd(g), newDoctorCmd(g),
		newAuditCmd(g),
		newMirrorCmd(g), newBundleCmd(g), newIndexCmd(g), newSearchCmd(g),
		newServeCmd(g),
	)
	groupCommands(root)
	applyConventions(g, root)
	// pflag tells of a deprecated flag name while parsing, before the
	// output layer exists: the notice is kept and given as a warning
	// (setupOutput), so it never lands on stdout or in JSON mode as text.
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().SetOutput(&g.deprecations)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return root
}

// commandGroups sorts the commands of skillpm --help by what a user is
// doing, as cargo's and gh's help do.
func commandGroups() []struct {
	group    cobra.Group
	commands []string
} {
	return []struct {
		group    cobra.Group
		commands []string
	}{
		{cobra.Group{ID: "use", Title: "Using skills:"}, []string{"install", "add", "update", "remove", "list", "outdated", "tree", "why", "lock", "info", "search", "adopt", "hosts", "quarantine", "restore"}},
		{cobra.Group{ID: "make", Title: "Making skills:"}, []string{"init", "validate", "audit", "migrate", "pack", "publish", "yank", "deprecate"}},
		{cobra.Group{ID: "trust", Title: "Signing and trust:"}, []string{"keygen", "sign", "verify", "promote", "policy", "trust", "advisory", "sign-blob", "verify-blob"}},
		{cobra.Group{ID: "registry", Title: "Registries:"}, []string{"login", "logout", "pull", "mirror", "bundle", "index", "serve"}},
		{cobra.Group{ID: "workflow", Title: "ASF workflows:"}, []string{"run", "asf"}},
		{cobra.Group{ID: "setup", Title: "Setup and help:"}, []string{"doctor", "cache", "version"}},
	}
}

// groupCommands puts every command of root in its group; help and
// completion go with setup.
func groupCommands(root *cobra.Command) {
	byName := map[string]*cobra.Command{}
	for _, c := range root.Commands() {
		byName[c.Name()] = c
	}
	for _, g := range commandGroups() {
		root.AddGroup(&g.group)
		for _, n := range g.commands {
			if c := byName[n]; c != nil {
				c.GroupID = g.group.ID
			}
		}
	}
	root.SetHelpCommandGroupID("setup")
	root.SetCompletionCommandGroupID("setup")
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

// flagSuggestion adds to an unknown-flag error the command's flags
// closest to the one given, as cobra does for commands.
func flagSuggestion(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var have []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			have = append(have, f.Name)
		}
	})
	s := suggest(name, have)
	if len(s) == 0 {
		return err
	}
	for i := range s {
		s[i] = "--" + s[i]
	}
	return fmt.Errorf("%w; did you mean %s?", err, strings.Join(s, ", "))
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
