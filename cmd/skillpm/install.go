package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/tiers"
	"github.com/spf13/cobra"
)

// changeFlags are what install, add and update share: the registry
// client, the trust policy, the roots, and the request's shared options
// (options.go).
type changeFlags struct {
	regFlags
	trustFlags
	rootFlags
	engine.Consent
	engine.Checks
	// ask puts the consent question on stdin even when it is not a
	// terminal.
	ask bool
}

func (f *changeFlags) register(c *cobra.Command) {
	f.regFlags.addPlainHTTP(c)
	f.regFlags.addOffline(c)
	f.trustFlags.register(c)
	f.rootFlags.register(c)
	bindConsent(c.Flags(), &f.Consent)
	bindChecks(c.Flags(), &f.Checks)
	bindResolution(c.Flags(), &f.regFlags.resolution)
	c.Flags().BoolVar(&f.ask, "ask", false, "ask the consent question (y/N) on stdin even when it is not a terminal, for a script that answers")
}

type installFlags struct {
	changeFlags
	frozen bool
	dryRun bool
	projectOption
	noVCS  bool
	skills []string
}

func newInstallCmd(g *globals) *cobra.Command { return installCmd(g, &installFlags{}) }

// installCmd is install with its flags bound to f.
func installCmd(g *globals, f *installFlags) *cobra.Command {
	c := &cobra.Command{
		Use:   "install [REF...]",
		Short: "Resolve, verify and install skills into agent hosts' discovery roots",
		Long: `Install resolves the skills named (with their dependencies), fetches and
verifies every one, computes its tier from its signers under the trust
policy, checks its permissions against the tier's ceiling, and only then
installs the whole set into each chosen root in one atomic transaction.
Nothing is written when anything is refused.

With no REF, install reads the project manifest (skills.yaml, else
gaia-agent.yaml, whose optional skills are skipped with a message when
nothing satisfies them) and installs exactly skills.lock when it satisfies
the manifest (--frozen: fail instead of changing the lock).

A REF that is a git reference (git+https://HOST/OWNER/REPO[@REV][#SUBDIR],
git+ssh://..., git+file:///path, github:OWNER/REPO[/SUBDIR][@REV], or a
https://github.com/... URL) is fetched with git, shallowly, into the cache
(skillpm cache dir), by commit; every skill under SUBDIR is installed
(--skill NAME picks some) as a local directory is, experimental, with the
repository and commit recorded. REV is a branch, a tag, a full commit or
a semver range over the version tags (v1.2.0, NAME-v1.2.0). --offline, or
an unreachable remote, answers from the cache.

A REF that is a local directory (./my-skill, /abs/my-skill) is built as
publish would build it (--no-vcs as there) and installed from that build:
it is experimental (so needs --allow-experimental) unless the default
source publishes the same version with the same digest, signed. Its
dependencies resolve normally; the receipt records the directory. A
directory with no SKILL.md of its own installs every skill folder below it
(--skill NAME picks some).

A skill need not declare a version to install: from a directory it gets
0.0.0+tree.HASH (its files' tree hash), from git the version of the tag
the reference names, else 0.0.0-YYYYMMDDHHMMSS-COMMIT (the commit's time
and id), so that a later commit sorts later and update moves to it.
Publishing still needs a real version.

Signer pinning: a skill whose receipt (or lock entry) records signers must
be signed by one of them; --allow-signer-change accepts another signer.

Consent: dangerous permissions of community skills need --grant PERM or
--yes (or an answer on a terminal); experimental skills need
--allow-experimental, and permissions beyond the experimental ceiling an
explicit --grant. An experimental skill is never installed as a dependency.`,
		Example: `  skillpm install web-research@^1
  skillpm install fix --host claude --host codex
  skillpm install code --grant shell:execute
  skillpm install ./my-skill --allow-experimental
  skillpm install github:anthropics/skills --skill pdf --allow-experimental
  skillpm install 'git+https://example.com/acme/skills@^1#skills/pdf' --allow-experimental
  skillpm install --root ./image/skills --registry oci-layout:./bundle --min-tier verified --frozen`,
		RunE: func(c *cobra.Command, args []string) error {
			return runInstall(c, g, f, args)
		},
	}
	f.changeFlags.register(c)
	f.rootFlags.registerLink(c)
	c.Flags().BoolVar(&f.frozen, "frozen", false, "fail instead of changing skills.lock")
	c.Flags().BoolVar(&f.dryRun, "dry-run", false, "resolve, verify and check, then write nothing")
	bindRegistry(c, &f.registryOption, "default `SOURCE` for bare names: a registry namespace or oci-layout:DIR", "from")
	bindProject(c.Flags(), &f.projectOption, "")
	c.Flags().BoolVar(&f.noVCS, "no-vcs", false, "build local directories without git origin and commit (as publish --no-vcs)")
	c.Flags().StringArrayVar(&f.skills, "skill", nil, "from a git reference or folder holding several skills, install only `NAME` (repeatable)")
	return c
}

func runInstall(c *cobra.Command, g *globals, f *installFlags, args []string) error {
	ctx := c.Context()
	if err := f.check(); err != nil {
		return err
	}
	e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, trust: &f.trustFlags, from: f.registry, rf: &f.rootFlags, manifest: f.manifest, project: &f.projectOption, ask: f.ask})
	if err != nil {
		return err
	}
	res, err := e.Install(ctx, f.request(args))
	if errors.Is(err, resolve.ErrNoManifest) {
		return &usageError{fmt.Errorf("nothing to install: name skills (skillpm install web-research@^1) or write %s", resolve.ManifestFile)}
	}
	if err != nil {
		return installFailure(ctx, g, e, err, true)
	}
	return printInstall(g, res, f.dryRun)
}

// request is what install passes on: the references and every flag that
// sets a field of the request (TestRequestFields checks it).
func (f *installFlags) request(refs []string) engine.InstallRequest {
	return engine.InstallRequest{
		Refs: refs, Consent: f.Consent, Checks: f.Checks,
		Frozen: f.frozen, DryRun: f.dryRun, NoVCS: f.noVCS, Skills: f.skills,
	}
}

// printInstall renders an install's result: JSON, the plan of a dry run,
// or each root's installed skills and the plan's tiers and grants.
func printInstall(g *globals, res *install.Result, dryRun bool) error {
	if dryRun {
		res.Roots = dryRunRoots(res)
	}
	if g.json() {
		return g.writeJSON(map[string]any{"schema": schemaOf("install"), "roots": res.Roots, "changes": res.Changes, "skills": res.Lock.Skills, "dry_run": dryRun})
	}
	if dryRun {
		// Only what would change, as update --dry-run shows it.
		printPlan(g.stdout, res.Changes)
		return nil
	}
	for _, r := range res.Roots {
		switch {
		case len(r.Installed) == 0:
			fmt.Fprintf(g.stdout, "%s: up to date (%s)\n", r.Root.Dir, strings.Join(r.Unchanged, ", "))
		case r.Root.Link != "":
			fmt.Fprintf(g.stdout, "%s: linked %s to the copy in %s (read here by %s)\n", r.Root.Dir, strings.Join(r.Installed, ", "), r.Root.Link, strings.Join(r.Root.ReadBy, ", "))
		default:
			fmt.Fprintf(g.stdout, "%s: installed %s%s\n", r.Root.Dir, strings.Join(r.Installed, ", "), readBy(r.Root))
		}
	}
	if !g.quiet {
		// The tiers and grants of what this install placed, not of the
		// skills the roots already held as they were.
		placed := map[string]bool{}
		for _, r := range res.Roots {
			for _, n := range r.Installed {
				placed[n] = true
			}
		}
		for _, p := range res.Plan {
			if !placed[p.Lock.Name] {
				continue
			}
			grants := make([]string, 0, len(p.Grants))
			for _, gr := range p.Grants {
				grants = append(grants, gr.Permission+" ("+gr.By+")")
			}
			fmt.Fprintf(g.stdout, "  %s %s  %s  %s\n", p.Lock.Name, p.Lock.Version, p.Lock.Tier, strings.Join(grants, ", "))
		}
	}
	return nil
}

func installExit(m *resolve.Manifest, err error) error {
	return lockExit(m, except("install", err))
}

// check refuses a --min-tier that names no tier, before anything is
// opened.
func (f *changeFlags) check() error {
	if f.MinTier != "" && !tiers.ValidTier(f.MinTier) {
		return &usageError{fmt.Errorf("--min-tier %q: use verified, community or experimental", f.MinTier)}
	}
	return nil
}
