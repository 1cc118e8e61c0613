package main

import (
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

type addFlags struct {
	changeFlags
	dryRun    bool
	noInstall bool
	projectOption
}

func newAddCmd(g *globals) *cobra.Command { return addCmd(g, &addFlags{}) }

// addCmd is add with its flags bound to f.
func addCmd(g *globals, f *addFlags) *cobra.Command {
	c := &cobra.Command{
		Use:   "add NAME[@RANGE]...",
		Short: "Add skills to the project: skills.yaml, skills.lock and its roots",
		Long: `Add writes the skills named into skills.yaml (creating it, with the source
of bare names, scope: project and the hosts to install into), resolves the
project again keeping the versions already locked, installs the result into
the project's roots (verified and checked as install does), and only then
writes skills.yaml and skills.lock, together.

A name without a range is added at ^ the version resolved (web-research
becomes web-research: ^1.2.0), as cargo add and uv add do; NAME@RANGE
writes the range as given. A skill already in skills.yaml gets the new
range, or keeps its own when none is given.

The hosts are --host, else the manifest's hosts:, else the configuration's
host:, else the single host whose roots already hold skills, else agents.
The scope is --scope, else the manifest's scope:, else project (roots
under the project directory, such as .claude/skills).

--no-install writes skills.yaml and skills.lock only; --dry-run resolves,
verifies and checks, then writes nothing. Nothing is written when anything
fails or is refused.`,
		Example: `  skillpm add web-research
  skillpm add web-research@^1.2 code-review@~2.0 --host claude
  skillpm add ghcr.io/acme/skills/lint@^1 --no-install`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runAdd(c, g, f, args)
		},
	}
	f.changeFlags.register(c)
	f.rootFlags.registerLink(c)
	fl := c.Flags()
	fl.BoolVar(&f.dryRun, "dry-run", false, "resolve, verify and check, then write nothing")
	fl.BoolVar(&f.noInstall, "no-install", false, "write skills.yaml and skills.lock without installing")
	bindRegistry(c, &f.registryOption, "`SOURCE` of bare names: a registry namespace or oci-layout:DIR (a new skills.yaml records it)", "from")
	bindProject(fl, &f.projectOption, "project manifest `FILE` (default skills.yaml)")
	return c
}

// request is what add passes on to the install: every flag that sets a
// field of the request (TestRequestFields checks it).
func (f *addFlags) request() engine.InstallRequest {
	return engine.InstallRequest{
		Consent: f.Consent, Checks: f.Checks, DryRun: f.dryRun,
	}
}

func runAdd(c *cobra.Command, g *globals, f *addFlags, args []string) error {
	ctx := c.Context()
	r := engine.AddRequest{NoInstall: f.noInstall, InstallRequest: f.request()}
	r.Refs = args
	if err := f.check(); err != nil {
		return err
	}
	ef := engineFlags{reg: &f.regFlags, from: f.registry, rf: &f.rootFlags, lenientEnv: true, manifest: f.manifest, project: &f.projectOption, ask: f.ask}
	if !f.noInstall {
		ef.trust = &f.trustFlags
	}
	e, err := openEngine(ctx, g, ef)
	if err != nil {
		return err
	}
	res, err := e.Add(ctx, r)
	if err != nil {
		return projectFailure(ctx, g, e, err)
	}
	return printAdd(g, res, f.lockOf(res.Manifest), f.dryRun)
}

// addedJSON is a requirement add wrote and the version it locked.
type addedJSON struct {
	Name  string `json:"name"`
	Range string `json:"range"`
	// Version is "" when the lock has none.
	Version string `json:"version,omitempty"`
}

// lockedVersion is the version lock records for the requirement written
// name, "" when there is none.
func lockedVersion(lock *resolve.Lockfile, name string) string {
	if lock == nil {
		return ""
	}
	if ls := lock.Get(resolve.ShortName(name)); ls != nil {
		return ls.Version
	}
	return ""
}

// printAdd renders what add wrote (or would) and installed.
func printAdd(g *globals, res *engine.AddResult, lock string, dryRun bool) error {
	if g.json() {
		added := make([]addedJSON, len(res.Added))
		for i, a := range res.Added {
			added[i] = addedJSON{Name: a.Name, Range: a.Range, Version: lockedVersion(res.Lock, a.Name)}
		}
		out := map[string]any{"schema": schemaOf("add"), "manifest": res.Manifest.File, "lock": lock, "added": added, "skills": lockSkills(res.Lock), "dry_run": dryRun}
		if len(res.Roots) > 0 {
			out["roots"] = res.Roots
		}
		return g.writeJSON(out)
	}
	verb := "added"
	if dryRun {
		verb = "would add"
	}
	for _, a := range res.Added {
		v := ""
		if lv := lockedVersion(res.Lock, a.Name); lv != "" {
			v = " (" + lv + ")"
		}
		fmt.Fprintf(g.stdout, "%s %s %s%s to %s\n", verb, a.Name, a.Range, v, res.Manifest.File)
	}
	if len(res.Roots) > 0 {
		printRoots(g, res.Result, dryRun)
	}
	return nil
}
