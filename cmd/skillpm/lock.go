package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

type lockFlags struct {
	regFlags
	projectOption
	frozen  bool
	upgrade bool
	// allowRepublished accepts a git version tag moved to another commit.
	allowRepublished bool
	// policyOption is --policy: the trust policy that judges advisories
	// and git signatures instead of the project's.
	policyOption
}

type lockJSON struct {
	Schema  string          `json:"schema"`
	Lock    string          `json:"lock"`
	Changed bool            `json:"changed"`
	Written bool            `json:"written"`
	Skills  []lockSkillJSON `json:"skills"`
}

type lockSkillJSON struct {
	Name         string            `json:"name"`
	Version      string            `json:"version"`
	Source       string            `json:"source"`
	Digest       string            `json:"digest"`
	Tree         string            `json:"tree,omitempty"`
	Dependencies map[string]string `json:"dependencies,omitempty"`
	Requested    string            `json:"requested,omitempty"`
}

func newLockCmd(g *globals) *cobra.Command {
	var f lockFlags
	c := &cobra.Command{
		Short: "Resolve skills.yaml and write skills.lock without installing",
		Long: `Lock resolves what the project manifest asks for and writes the lockfile,
installing nothing. The manifest is skills.yaml (or, when there is none, a
GAIA agent's gaia-agent.yaml):

  registry: ghcr.io/acme/skills   # default source of bare names (optional)
  host: claude                    # where install puts skills (optional)
  skills:
    fix: ^1
    ghcr.io/other/skills/lint: ~1.4

Bare names are looked up in --registry, else the manifest's registry, else the
embedded registry. A dependency written without a registry lives in the
namespace of the skill that needs it, never in another registry. Only
manifests are read (their annotations), never layers, and what was read is
cached by digest.

Versions already in skills.lock are kept while they still satisfy every
requirement; otherwise the newest allowed version is chosen. The lock lists
every skill with its version, repository, manifest digest, tree hash and
the versions of its dependencies; it is rewritten only when it changes.

--upgrade lets every skill (or only the skills named) move to the
newest version the ranges allow, keeping the others where they are, as
cargo update and uv lock --upgrade do; install (or install --frozen) then
installs exactly that lock.

A git version tag that now names another commit than the one locked for
its version was moved, and is refused, naming both commits, unless
--allow-republished accepts the new commit.

--frozen changes nothing: it fails when the lock does not satisfy the
manifest or resolving again would change it, naming each difference (for
CI and reproducible installs).

Exit status: 2 when the manifest, the lock or a flag is malformed; 4 when no
set of versions satisfies the manifest (the explanation says why) or, with
--frozen, when the lock is out of date; 6 when a registry fails after
retries.`,
		Example: `  skillpm lock
  skillpm lock --frozen
  skillpm lock --upgrade
  skillpm lock --upgrade web-research
  skillpm lock --registry localhost:5000/skills --plain-http
  skillpm lock --manifest agents/gaia-agent.yaml --lock agents/skills.lock`,
		Use: "lock [--upgrade [NAME...]]",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 && !f.upgrade {
				return usageErrorf(c, fmt.Errorf("lock takes skill names only with --upgrade, got %q", args[0]))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runLock(c, g, &f, args)
		},
	}
	fl := c.Flags()
	bindProject(fl, &f.projectOption, "")
	bindRegistry(c, &f.registryOption, "`SOURCE` of bare names: a registry namespace or oci-layout:DIR (overrides the manifest's registry)", "from")
	fl.BoolVar(&f.frozen, "frozen", false, "fail instead of changing the lock")
	fl.BoolVar(&f.upgrade, "upgrade", false, "let the skills named (or all) move to the newest versions their ranges allow")
	fl.BoolVar(&f.allowRepublished, "allow-republished", false, "accept a git version tag moved to another commit than the one locked")
	bindPolicy(fl, &f.policyOption, "")
	f.addPlainHTTP(c)
	f.addOffline(c)
	return c
}

// lockPaths picks the manifest and lock files (resolve.FindManifest).
func lockPaths(f *lockFlags) (manifest, lock string) {
	return resolve.FindManifest(f.manifest, f.lock)
}

func runLock(c *cobra.Command, g *globals, f *lockFlags, names []string) error {
	ctx := c.Context()
	if f.upgrade && f.frozen {
		return usageErrorf(c, errors.New("--upgrade and --frozen contradict each other"))
	}
	e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: f.registry, policyFile: f.policy, manifest: f.manifest, project: &f.projectOption, warn: resolverWarn(g)})
	if err != nil {
		return err
	}
	res, err := e.Lock(ctx, engine.LockRequest{Frozen: f.frozen, Upgrade: f.upgrade, Names: names, AllowRepublished: f.allowRepublished})
	if err != nil {
		return lockFailure(ctx, g, e, f, err)
	}
	return printLock(g, res, f.frozen)
}

// lockFailure words lock's failures for the command line.
func lockFailure(ctx context.Context, g *globals, e *engine.Engine, f *lockFlags, err error) error {
	mpath, _ := lockPaths(f)
	var ie *engine.InstallError
	var nip *resolve.NotInProjectError
	switch {
	case errors.As(err, &nip):
		return notInProjectErr(nip)
	case errors.Is(err, resolve.ErrNoManifest):
		return classed(errdef.Usage, fmt.Errorf("no %s here: start one with skillpm add NAME, write one listing the skills the project needs (see skillpm lock --help), or name it with --manifest", mpath))
	case errors.Is(err, resolve.ErrInvalidLock):
		return classed(errdef.Usage, fmt.Errorf("%w; delete it and run skillpm lock to write it again", err))
	case isUsageError(err):
		return err
	case errors.As(err, &ie):
		return notFoundHint(ctx, e, ie.Graph, ie.Manifest, ie.Err, lockExit(ie.Manifest, ie.Err))
	}
	if mapped, ok := engineErr(g, err); ok {
		return mapped
	}
	return err
}

// printLock renders a lock: JSON, or a table of the skills and a line
// saying whether the file was written (it changed, and the lock was not
// frozen).
func printLock(g *globals, res *engine.LockResult, frozen bool) error {
	next, lpath, changed, written := res.Lock, res.Lock.File, res.Changed, res.Changed && !frozen
	if g.json() {
		j := lockJSON{Schema: schemaOf("lock"), Lock: lpath, Changed: changed, Written: written, Skills: []lockSkillJSON{}}
		for _, s := range next.Skills {
			j.Skills = append(j.Skills, lockSkillJSON{Name: s.Name, Version: s.Version, Source: s.Source, Digest: s.Digest,
				Tree: s.Tree, Dependencies: s.Dependencies, Requested: s.Requested})
		}
		return g.writeJSON(j)
	}
	tw := tabwriter.NewWriter(g.tableOut(), 0, 0, 2, ' ', 0)
	for _, s := range next.Skills {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Version, shortDigest(s.Digest))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !g.quiet {
		n := plural(len(next.Skills), "skill")
		switch {
		case written:
			fmt.Fprintf(g.stderr, "wrote %s: %s\n", lpath, n)
		default:
			fmt.Fprintf(g.stderr, "%s is up to date: %s\n", lpath, n)
		}
	}
	return nil
}

// lockExit words a resolution failure with the project's manifest (a
// stale lock names its file itself); its class stays the library's but
// for the exceptions of "install".
func lockExit(m *resolve.Manifest, err error) error {
	var nse *resolve.NoSolutionError
	if errors.As(err, &nse) {
		return classed(errdef.ClassOf(err), fmt.Errorf("no set of versions satisfies %s:\n\n%s", m.File, nse.Explanation))
	}
	return except("install", err)
}

// shortDigest returns "sha256:" and the first 12 hex digits.
func shortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12]
	}
	return d
}
