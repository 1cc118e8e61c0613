package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/migrate"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/spf13/cobra"
)

type migrateFlags struct {
	from       string
	outDir     string
	dryRun     bool
	force      bool
	knownTools []string
}

func newMigrateCmd(g *globals) *cobra.Command {
	var f migrateFlags
	c := &cobra.Command{
		Use:   "migrate DIR|GIT-REF",
		Short: "Convert a Hermes or OpenClaw skill into a GAIA skill",
		Long: `Migrate reads the Hermes or OpenClaw skill in DIR and writes a GAIA skill
to OUT/<name> (default ./migrated/<name>; the input is never modified).
The foreign block's meaning is mapped onto metadata.gaia (commands become
shell:execute permissions, environment variables requirements.env_vars, tools
tools_required), the foreign block itself is kept, and the skill is marked
security_tier: experimental. A name, version or description that breaks the
rules is fixed. The report lists every field mapped, changed and left alone,
and why.

A git reference (see skillpm install --help) migrates every skill the
repository (or its folder) holds, each reported with its reference.

The result is validated strictly, with what GAIA's loader refuses although
the format allows it (as validate --host gaia): a command GAIA ships no
binary policy for (anything but gh and pytest) or a filesystem, env,
database or desktop permission makes a skill GAIA will not load. A license
that is not a string is dropped, as GAIA's own migrate does.

Exit status 3 when the skill cannot be migrated, or when the migrated skill
(which is still written) does not pass that validation.`,
		Example: `  skillpm migrate ./pdf-extract --format hermes
  skillpm migrate ./git-status --output-dir ./skills
  skillpm migrate ./some-skill --dry-run --output json
  skillpm migrate github:acme/hermes-skills --output-dir ./skills`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runMigrate(c, g, f, args[0])
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.from, "format", string(migrate.Auto), "source `FORMAT`: hermes, openclaw or auto")
	deprecatedAlias(c, "from", "format")
	fl.StringVar(&f.outDir, "output-dir", migrate.DefaultOutDir, "write the skill to `OUT`/<name>")
	deprecatedAlias(c, "out-dir", "output-dir")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the report; write nothing")
	fl.BoolVar(&f.force, "force", false, "replace OUT/<name> if it exists")
	fl.StringArrayVar(&f.knownTools, "known-tools", nil, "an extra known-tools `FILE` (the tool names tools_required may name; repeatable)")
	deprecatedAlias(c, "catalog", "known-tools")
	return c
}

// migrateJSON is the --output json shape.
type migrateJSON struct {
	Migrated bool                        `json:"migrated"`
	DryRun   bool                        `json:"dry_run"`
	Report   *migrate.Report             `json:"report,omitempty"`
	Error    *migrate.NotMigratableError `json:"error,omitempty"`
}

func runMigrate(c *cobra.Command, g *globals, f migrateFlags, dir string) error {
	from, err := migrate.ParseFormat(f.from)
	if err != nil {
		return usageErrorf(c, err)
	}
	cat, err := loadKnownTools(f.knownTools)
	if err != nil {
		return err
	}
	opts := migrate.Options{From: from, KnownTools: cat, OutDir: f.outDir, DryRun: f.dryRun, OverwriteUnsafe: f.force}
	// Migrating reads no registry and verifies nothing: the engine is
	// opened without a policy, leniently about the hosts file.
	e, err := openEngine(c.Context(), g, engineFlags{lenientEnv: true, noPolicy: true})
	if err != nil {
		return err
	}
	res, err := e.Migrate(c.Context(), engine.MigrateRequest{Source: dir, Options: opts})
	if errors.Is(err, engine.ErrInvalidRequest) {
		return usageErrorf(c, err)
	} else if err != nil {
		return err
	}
	var first error
	done := res.Skills
	for _, m := range done {
		if err := printMigrated(g, f.dryRun, m); err != nil {
			if len(done) > 1 && !g.json() {
				fmt.Fprintf(g.stderr, "%s: %v\n", m.Origin, err)
			}
			first = cmp.Or(first, err)
		}
	}
	return first
}

// printMigrated renders one skill's migration, and gives a skill that
// could not be migrated, or does not pass strict validation once it is,
// exit code 3.
func printMigrated(g *globals, dryRun bool, m engine.Migrated) error {
	var nm *migrate.NotMigratableError
	switch {
	case errors.As(m.Err, &nm):
		if g.json() {
			if werr := g.writeJSON(migrateJSON{DryRun: dryRun, Error: nm}); werr != nil {
				return werr
			}
		}
		msg := m.Err.Error()
		if nm.Hint != "" {
			msg += "\n\thint: " + nm.Hint
		}
		return classed(errdef.Validation, errors.New(msg))
	case m.Err != nil:
		return m.Err
	}
	r := m.Result
	if g.json() {
		if err := g.writeJSON(migrateJSON{Migrated: true, DryRun: dryRun, Report: &r.Report}); err != nil {
			return err
		}
	} else {
		printMigrateReport(g.stdout, &r.Report, g.quiet)
		printDiagnostics(g.stderr, r.Report.Diagnostics.Errors())
	}
	if !r.Report.Valid {
		where := "the migrated skill"
		if r.Report.Output != "" {
			where = r.Report.Output
		}
		return classed(errdef.Validation, fmt.Errorf("%s does not pass strict validation for GAIA (%s); fix it, then run skillpm validate --host gaia", where, plural(len(r.Report.Diagnostics.Errors()), "error")))
	}
	return nil
}

func printMigrateReport(w io.Writer, r *migrate.Report, quiet bool) {
	kind := "standard"
	if len(r.Migrated) > 0 {
		names := make([]string, len(r.Migrated))
		for i, f := range r.Migrated {
			names[i] = string(f)
		}
		kind = strings.Join(names, "+")
	}
	if r.Output != "" {
		fmt.Fprintf(w, "migrated %s skill %s: %s -> %s\n", kind, r.Name, r.Source, r.Output)
	} else {
		fmt.Fprintf(w, "migrated %s skill %s: %s (dry run, nothing written)\n", kind, r.Name, r.Source)
	}
	if quiet {
		return
	}
	if len(r.Mapped) > 0 {
		fmt.Fprintln(w, "mapped:")
		for _, m := range r.Mapped {
			fmt.Fprintf(w, "  %s -> %s", m.From, m.To)
			if len(m.Values) > 0 {
				fmt.Fprintf(w, ": %s", strings.Join(m.Values, ", "))
			}
			if m.Note != "" {
				fmt.Fprintf(w, " (%s)", m.Note)
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.Changes) > 0 {
		fmt.Fprintln(w, "changed:")
		for _, c := range r.Changes {
			fmt.Fprintf(w, "  %s: %s -> %s (%s)\n", c.Field, c.From, c.To, c.Reason)
		}
	}
	if len(r.Unmapped) > 0 {
		fmt.Fprintln(w, "not mapped (kept as written):")
		for _, u := range r.Unmapped {
			if u.Value != "" {
				fmt.Fprintf(w, "  %s = %s: %s\n", u.Field, u.Value, u.Reason)
			} else {
				fmt.Fprintf(w, "  %s: %s\n", u.Field, u.Reason)
			}
		}
	}
	if len(r.Suggestions) > 0 {
		fmt.Fprintln(w, "suggestions:")
		for _, s := range r.Suggestions {
			fmt.Fprintf(w, "  %s %s (%s): %s\n", s.Kind, s.Skill, s.From, s.Message)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	errs, warns := 0, 0
	for _, d := range r.Diagnostics {
		if d.Severity == skill.Error {
			errs++
		} else {
			warns++
		}
	}
	if errs == 0 {
		fmt.Fprintf(w, "result: valid (strict, GAIA loads it), %s\n", plural(warns, "warning"))
	} else {
		fmt.Fprintf(w, "result: invalid (strict, for GAIA), %s, %s\n", plural(errs, "error"), plural(warns, "warning"))
	}
}
