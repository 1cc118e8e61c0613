package main

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/gitsource"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/spf13/cobra"
)

// gitCache opens the cache of fetched git repositories: "git" in the
// content cache, so that skillpm cache prune empties it too.
func gitCache(offline bool) (*gitsource.Cache, error) {
	dir, err := registry.DefaultCacheDir()
	if err != nil {
		return nil, err
	}
	return gitsource.New(gitsource.Options{Dir: filepath.Join(dir, "git"), Offline: offline}), nil
}

// gitSkills is what a git reference holds, exported into a temporary
// directory that done removes.
type gitSkills struct {
	res    *gitsource.Resolved
	skills []gitsource.Skill
	done   func()
}

// gitExport resolves ref (notes and cache warnings on stderr) and exports
// its skills, keeping those named in pick (by folder name or skill name)
// when pick is not empty.
func gitExport(c *cobra.Command, g *globals, cache *gitsource.Cache, raw string) (*gitSkills, error) {
	ref, err := gitsource.Parse(raw)
	if err != nil {
		return nil, gitExit(err)
	}
	if ref.Note != "" {
		fmt.Fprintln(g.stderr, "note: "+ref.Note)
	}
	res, err := cache.Resolve(c.Context(), ref)
	if err != nil {
		return nil, gitExit(err)
	}
	if res.Warning != "" {
		fmt.Fprintln(g.stderr, "warning: "+res.Warning)
	}
	tmp, err := os.MkdirTemp("", "skillpm-git-")
	if err != nil {
		return nil, err
	}
	done := func() { os.RemoveAll(tmp) }
	skills, err := cache.Export(c.Context(), res, filepath.Join(tmp, "tree"))
	if err != nil {
		done()
		return nil, gitExit(err)
	}
	return &gitSkills{res: res, skills: skills, done: done}, nil
}

// gitLocals builds each skill of a git reference (those named by --skill
// when given) as install builds a local directory, recording the
// repository (credentials removed) and commit as the artifact's source
// and revision.
func gitLocals(c *cobra.Command, g *globals, cache *gitsource.Cache, raw string, pick []string) ([]install.Local, func(), error) {
	gs, err := gitExport(c, g, cache, raw)
	if err != nil {
		return nil, func() {}, err
	}
	created, err := registry.SourceDateEpoch(os.Getenv)
	if err != nil {
		gs.done()
		return nil, func() {}, withCode(exitUsage, err)
	}
	// A commit with a valid SSH signature is signed by its key for the
	// trust policy; a signature that does not verify stops the install.
	var signers []sign.Identity
	if key, ok, err := cache.CommitSigner(c.Context(), gs.res); err != nil {
		gs.done()
		return nil, func() {}, withCode(exitTrust, err)
	} else if ok {
		fp := sign.Fingerprint(key)
		if fp == "" {
			gs.done()
			return nil, func() {}, withCode(exitTrust, fmt.Errorf("%s: the commit's signing key (%T) has no fingerprint", gs.res.Ref, key))
		}
		signers = []sign.Identity{{KeyFingerprint: fp}}
	}
	var out []install.Local
	found := map[string]bool{}
	var have []string
	for _, s := range gs.skills {
		origin := s.Ref(gs.res).String()
		base := path.Base("/" + s.Path)
		if s.Path == "" {
			base = path.Base(gs.res.Ref.Path)
		}
		have = append(have, base)
		if len(pick) > 0 && !slices.Contains(pick, base) {
			continue
		}
		a, err := registry.Build(c.Context(), s.Dir, registry.BuildOptions{Created: created, NoVCS: true,
			Source: gs.res.Ref.Remote(), Revision: gs.res.Commit})
		if err != nil {
			gs.done()
			var ve *skill.ValidationError
			if errors.As(err, &ve) {
				printDiagnostics(g.stderr, ve.Diagnostics)
				return nil, func() {}, withCode(exitValidation, fmt.Errorf("%s: %s, not installed", origin, plural(len(ve.Diagnostics.Errors()), "error")))
			}
			return nil, func() {}, withCode(exitValidation, fmt.Errorf("%s: %w", origin, err))
		}
		found[base], found[a.Skill.Name] = true, true
		out = append(out, install.Local{Dir: s.Dir, Origin: origin, GitRef: gs.res.Ref.In(s.Path).String(), Signers: signers, Artifact: a})
	}
	for _, p := range pick {
		if !found[p] {
			gs.done()
			return nil, func() {}, withCode(exitResolution, fmt.Errorf("%s: no skill %s (it has %s)", gs.res.Ref, p, strings.Join(have, ", ")))
		}
	}
	return out, gs.done, nil
}

// gitExit gives a gitsource error the exit code of its class.
func gitExit(err error) error { return classExit(err) }

// gitRequirements builds the skills of the manifest's git references
// (resolve.IsGitName) and returns the manifest without them: install adds
// each built skill at its exact version, and the lock records its commit
// (LockedSkill.Git) and tree. A range written as the value is matched
// against the version tags. With frozen, the commit comes from the lock:
// it is fetched by id (whatever the branch holds now) and its trees must
// be the locked ones. Without, the reference is resolved again, so a
// branch moves to its newest commit and a range to its newest tag.
func gitRequirements(c *cobra.Command, g *globals, m *resolve.Manifest, prev *resolve.Lockfile, frozen, offline bool) (*resolve.Manifest, []install.Local, func(), error) {
	var dones []func()
	done := func() {
		for _, d := range dones {
			d()
		}
	}
	out := *m
	out.Skills = nil
	var locals []install.Local
	var cache *gitsource.Cache
	for _, r := range m.Skills {
		if !resolve.IsGitName(r.Name) {
			out.Skills = append(out.Skills, r)
			continue
		}
		at := fmt.Sprintf("%s:%d", m.File, r.Line)
		ref, err := gitsource.Parse(r.Name)
		if err != nil {
			done()
			return nil, nil, func() {}, gitExit(fmt.Errorf("%s: %w", at, err))
		}
		if r.Range != resolve.AnyRange && r.Range != "" {
			if ref.Rev != "" {
				done()
				return nil, nil, func() {}, withCode(exitUsage, fmt.Errorf("%s: %s names a revision and the range %s: write one", at, ref, r.Range))
			}
			ref = ref.At(r.Range)
		}
		asked := ref
		var locked []resolve.LockedSkill
		if frozen && prev == nil {
			done()
			return nil, nil, func() {}, withCode(exitFailure, fmt.Errorf("%s: %s: --frozen needs a lock, and there is none; run skillpm install without --frozen", at, ref))
		}
		if frozen {
			commit := ""
			for _, ls := range prev.Skills {
				lr, err := gitsource.Parse(ls.Git)
				if ls.Git == "" || err != nil || lr.Remote() != ref.Remote() || !within(lr.Subdir, ref.Subdir) {
					continue
				}
				if commit != "" && lr.Rev != commit {
					done()
					return nil, nil, func() {}, withCode(exitFailure, fmt.Errorf("%s: the lock has %s at two commits (%s, %s); run skillpm install without --frozen", at, ref, commit, lr.Rev))
				}
				commit = lr.Rev
				locked = append(locked, ls)
			}
			if commit == "" {
				done()
				return nil, nil, func() {}, withCode(exitFailure, fmt.Errorf("%s: %s is not in the lock %s (--frozen); run skillpm install without --frozen", at, ref, prev.File))
			}
			ref = ref.At(commit)
		}
		if cache == nil {
			if cache, err = gitCache(offline); err != nil {
				done()
				return nil, nil, func() {}, err
			}
		}
		ls, d, err := gitLocals(c, g, cache, ref.String(), nil)
		dones = append(dones, d)
		if err != nil {
			done()
			return nil, nil, func() {}, err
		}
		for i, l := range ls {
			// Receipts keep the reference as asked, not the locked commit,
			// so that update can move it.
			if lr, err := gitsource.Parse(l.Origin); err == nil {
				ls[i].GitRef = asked.In(lr.Subdir).String()
			}
			for _, e := range locked {
				if e.Name == l.Artifact.Skill.Name && e.Tree != "" && e.Tree != l.Artifact.Pack.TreeHash {
					done()
					return nil, nil, func() {}, withCode(exitFailure, fmt.Errorf("%s: %s at %s has the tree %s; the lock says %s", at, e.Name, l.Origin, l.Artifact.Pack.TreeHash, e.Tree))
				}
			}
		}
		locals = append(locals, ls...)
	}
	return &out, locals, done, nil
}

// within reports whether the repository folder p is dir or inside it.
func within(p, dir string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

// updateGit moves the skills installed from git in each root (those named,
// or all) to the newest commit of the reference they were asked for by,
// through a normal install into that root. It returns the names it
// handled, which install.Update (which leaves local builds alone) must not
// be given.
func updateGit(c *cobra.Command, g *globals, client *registry.Client, graph resolve.Catalog, names []string, opts install.Options) (map[string]bool, []install.RootResult, error) {
	handled := map[string]bool{}
	var results []install.RootResult
	var cache *gitsource.Cache
	for _, root := range opts.Roots {
		rec, err := install.ReadReceipts(root.Dir)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", root.Dir, err)
		}
		var locals []install.Local
		var dones []func()
		for _, r := range rec.Skills {
			if r.Git == "" || len(names) > 0 && !slices.Contains(names, r.Name) {
				continue
			}
			handled[r.Name] = true
			if cache == nil {
				if cache, err = gitCache(false); err != nil {
					return nil, nil, err
				}
			}
			ls, done, err := gitLocals(c, g, cache, r.Git, nil)
			dones = append(dones, done)
			if err != nil {
				for _, d := range dones {
					d()
				}
				return nil, nil, err
			}
			locals = append(locals, ls...)
		}
		if len(locals) == 0 {
			continue
		}
		o := opts
		o.Roots, o.Local = []install.Root{root}, locals
		res, err := install.Install(c.Context(), client, graph, &resolve.Manifest{File: "the receipts of " + root.Dir}, nil, o)
		for _, d := range dones {
			d()
		}
		if err != nil {
			return nil, nil, err
		}
		results = append(results, res.Roots...)
	}
	return handled, results, nil
}
