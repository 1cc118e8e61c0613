package main

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
)

type addFlags struct {
	changeFlags
	allowExperimental bool
	allowSignerChange bool
	dryRun            bool
	noInstall         bool
	from              string
	manifest          string
	lock              string
}

func newAddCmd(g *globals) *cobra.Command {
	var f addFlags
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
			return runAdd(c, g, &f, args)
		},
	}
	f.changeFlags.register(c)
	f.rootFlags.registerLink(c)
	fl := c.Flags()
	fl.BoolVar(&f.allowExperimental, "allow-experimental", false, "install experimental (unsigned or untrusted) skills named on the command line")
	fl.BoolVar(&f.allowSignerChange, "allow-signer-change", false, "accept a skill signed by none of the identities recorded before")
	fl.BoolVar(&f.dryRun, "dry-run", false, "resolve, verify and check, then write nothing")
	fl.BoolVar(&f.noInstall, "no-install", false, "write skills.yaml and skills.lock without installing")
	fl.StringVar(&f.from, "from", "", "`SOURCE` of bare names: a registry namespace or oci-layout:DIR (a new skills.yaml records it)")
	fl.StringVar(&f.manifest, "manifest", "", "project manifest `FILE` (default skills.yaml)")
	fl.StringVar(&f.lock, "lock", "", "lockfile `FILE` (default skills.lock beside the manifest)")
	return c
}

// parseAddArg splits NAME[@RANGE]; the range is "" when none is given.
func parseAddArg(arg string) (name, rng string, err error) {
	switch {
	case strings.Contains(arg, "://"):
		return "", "", fmt.Errorf("%q is a URL: add takes published skill names (web-research@^1, ghcr.io/acme/skills/NAME@^1); git sources are written git+https://HOST/OWNER/REPO or github:OWNER/REPO", arg)
	case strings.HasPrefix(arg, ".") || strings.HasPrefix(arg, "/"):
		return "", "", fmt.Errorf("%q is a directory: add takes published skill names; install a local skill with skillpm install %s", arg, arg)
	}
	name, rng, _ = strings.Cut(arg, "@")
	if name == "" {
		return "", "", fmt.Errorf("%q: write NAME or NAME@RANGE", arg)
	}
	if strings.HasPrefix(rng, "sha256:") {
		return "", "", fmt.Errorf("%q: skills.yaml holds version ranges, not digests; write NAME@RANGE (the lock records the digest)", arg)
	}
	if rng != "" {
		if _, err := resolve.ParseRange(rng, true); err != nil {
			return "", "", fmt.Errorf("%q: the range %q does not parse: use ^1.2, ~1.4, \">=1.0, <2.0\", 1.x or \"*\"", arg, rng)
		}
	}
	return name, rng, nil
}

func runAdd(c *cobra.Command, g *globals, f *addFlags, args []string) error {
	ctx := c.Context()
	set := map[string]string{}
	var open []string // names whose range comes from the version resolved
	for _, a := range args {
		name, rng, err := parseAddArg(a)
		if err != nil {
			return &usageError{err}
		}
		if rng == "" {
			rng = resolve.AnyRange
			open = append(open, name)
		}
		set[name] = rng
	}
	p, err := openProject(ctx, f.manifest, f.lock)
	if err != nil {
		return err
	}
	for _, n := range open {
		if r := rangeOf(p.m, n); r != "" {
			set[n] = r // already in skills.yaml: keep its range
		}
	}
	edit := resolve.ManifestEdit{Set: set}
	if !p.exists() {
		edit.Registry = f.from
		if edit.Registry == "" {
			edit.Registry = g.config().Registry
		}
		edit.Scope = string(projectScope(p.m))
		if f.scope != "" {
			edit.Scope = f.scope
		}
		if len(f.roots) == 0 {
			if edit.Hosts, err = askedHosts(g, &f.rootFlags, p); err != nil {
				return err
			}
		}
	}
	data, err := resolve.EditManifest(p.mpath, p.data, edit)
	if err != nil {
		return withCode(exitUsage, err)
	}
	// A name added without a range gets ^ the version it resolves to.
	if len(open) > 0 {
		_, lock, err := projectApply(c, g, &f.changeFlags, p, data, p.prev, applyOptions{from: f.from, noInstall: true, dryRun: true})
		if err != nil {
			return err
		}
		m, err := p.parse(data)
		if err != nil {
			return err
		}
		pinned := map[string]string{}
		for _, n := range open {
			if set[n] != resolve.AnyRange {
				continue
			}
			if ls := lockEntryFor(m, n, lock); ls != nil {
				pinned[n] = "^" + ls.Version
			}
		}
		if data, err = resolve.EditManifest(p.mpath, data, resolve.ManifestEdit{Set: pinned}); err != nil {
			return withCode(exitUsage, err)
		}
	}
	res, lock, err := projectApply(c, g, &f.changeFlags, p, data, p.prev, applyOptions{
		from: f.from, dryRun: f.dryRun, noInstall: f.noInstall,
		allowExperimental: f.allowExperimental, allowSignerChange: f.allowSignerChange,
	})
	if err != nil {
		return err
	}
	m, err := p.parse(data)
	if err != nil {
		return err
	}
	if g.json() {
		added := []map[string]string{}
		for _, a := range args {
			n, _, _ := parseAddArg(a)
			e := map[string]string{"name": n, "range": rangeOf(m, n)}
			if ls := lockEntryFor(m, n, lock); ls != nil {
				e["version"] = ls.Version
			}
			added = append(added, e)
		}
		out := map[string]any{"schema": schemaOf("add"), "manifest": p.mpath, "lock": p.lpath, "added": added, "skills": lockSkills(lock), "dry_run": f.dryRun}
		if res != nil {
			out["roots"] = res.Roots
		}
		return writeJSON(g.stdout, out)
	}
	verb := "added"
	if f.dryRun {
		verb = "would add"
	}
	for _, a := range args {
		n, _, _ := parseAddArg(a)
		v := ""
		if ls := lockEntryFor(m, n, lock); ls != nil {
			v = " (" + ls.Version + ")"
		}
		fmt.Fprintf(g.stdout, "%s %s %s%s to %s\n", verb, n, rangeOf(m, n), v, p.mpath)
	}
	if res != nil {
		printRoots(g, res, f.dryRun)
	}
	return nil
}

// lockEntryFor returns the lock entry of the requirement written name.
func lockEntryFor(m *resolve.Manifest, name string, lock *resolve.Lockfile) *resolve.LockedSkill {
	if lock == nil {
		return nil
	}
	return lock.Get(resolve.ShortName(name))
}

// askedHosts are the hosts a new skills.yaml records: those of the roots
// the project installs into, without the agents root that holds a copy
// for links only.
func askedHosts(g *globals, rf *rootFlags, p *project) ([]string, error) {
	roots, err := projectRoots(g, rf, &resolve.Manifest{File: p.mpath, Dir: p.m.Dir})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range roots {
		if !r.LinkOnly {
			out = append(out, string(r.Host))
		}
	}
	return out, nil
}
