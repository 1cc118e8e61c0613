package engine

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/gitsource"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
)

// gitCache opens the cache of fetched git repositories: "git" in the
// content cache, so that pruning the cache empties it too. Offline
// answers from the cache only.
func gitCache(offline bool) (*gitsource.Cache, error) {
	dir, err := registry.DefaultCacheDir()
	if err != nil {
		return nil, err
	}
	return gitsource.New(gitsource.Options{Dir: filepath.Join(dir, "git"), Offline: offline}), nil
}

// gitFetches resolves git references for one command, once per
// repository and revision: references to several folders of one
// repository at one revision share the listing and the fetch.
type gitFetches struct {
	cache *gitsource.Cache
	done  map[string]*gitsource.Resolved
	// audits says the command audits the skills it builds from these
	// fetches (an install): the auditor may start on each as soon as it
	// is exported. A command that only resolves (lock) compiles nothing.
	audits bool
	// held are the sources the roots already hold (heldLocals): a skill
	// exported at the commit it was installed from is likely a no-op,
	// which must not compile the audit's parsers ahead.
	held map[string]bool
}

// openGitFetches opens the git cache (see gitCache) for one command.
func openGitFetches(offline bool) (*gitFetches, error) {
	c, err := gitCache(offline)
	if err != nil {
		return nil, err
	}
	return &gitFetches{cache: c, done: map[string]*gitsource.Resolved{}}, nil
}

// resolve is gitsource.Cache.Resolve, answered from an earlier resolve of
// the same repository and revision in this command.
func (g *gitFetches) resolve(ctx context.Context, ref *gitsource.Ref) (*gitsource.Resolved, error) {
	key := ref.Remote() + "\x00" + ref.Rev
	if res, ok := g.done[key]; ok {
		same := *res
		same.Ref = ref
		return &same, nil
	}
	res, err := g.cache.Resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	g.done[key] = res
	return res, nil
}

// gitErr marks a gitsource failure with errGit.
func gitErr(err error) error { return errdef.Mark(errGit, err) }

// gitLocals resolves the git reference raw, exports it and builds each
// of its skills (those named in pick, by folder or skill name, when pick
// is not empty) as a local directory is built, recording the repository
// (credentials removed) and commit as the artifact's source and revision.
// done removes the exported tree.
func (e *Engine) gitLocals(ctx context.Context, fetches *gitFetches, raw string, pick []string) (_ []install.Local, _ *gitsource.Resolved, done func(), _ error) {
	done = func() {}
	ref, err := gitsource.Parse(raw)
	if err != nil {
		return nil, nil, done, gitErr(err)
	}
	if ref.Note != "" {
		e.note("note: " + ref.Note)
	}
	cache := fetches.cache
	res, err := fetches.resolve(ctx, ref)
	if err != nil {
		return nil, nil, done, gitErr(err)
	}
	if res.Warning != "" {
		e.note("warning: " + res.Warning)
	}
	tmp, err := os.MkdirTemp("", "skillpm-git-")
	if err != nil {
		return nil, nil, done, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	fail := func(err error) ([]install.Local, *gitsource.Resolved, func(), error) {
		cleanup()
		return nil, nil, done, err
	}
	skills, err := cache.Export(ctx, res, filepath.Join(tmp, "tree"))
	if err != nil {
		return fail(gitErr(err))
	}
	for _, s := range skills {
		if base := skillBase(s, res); fetches.audits && !fetches.held[s.Ref(res).String()] && (len(pick) == 0 || slices.Contains(pick, base)) {
			e.prepareAudit(ctx, s.Dir)
		}
	}
	created, err := registry.SourceDateEpoch(e.getenv)
	if err != nil {
		return fail(invalid(err))
	}
	// A commit with a valid SSH signature is signed by its key for the
	// trust policy; a signature that does not verify stops the install.
	var signers []sign.Identity
	if key, ok, err := cache.CommitSigner(ctx, res); err != nil {
		return fail(errdef.Mark(errUntrustedCommit, err))
	} else if ok {
		fp := sign.Fingerprint(key)
		if fp == "" {
			return fail(errdef.Mark(errUntrustedCommit, fmt.Errorf("%s: the commit's signing key (%T) has no fingerprint", res.Ref, key)))
		}
		signers = []sign.Identity{{KeyFingerprint: fp}}
	}
	// A skill that declares no version installs at the version of the tag
	// the reference was resolved by, else at a pseudo-version of the
	// commit: its time orders it.
	commitTime, err := cache.CommitTime(ctx, res)
	if err != nil {
		return fail(gitErr(err))
	}
	var out []install.Local
	found := map[string]bool{}
	var have []string
	for _, s := range skills {
		origin := s.Ref(res).String()
		base := skillBase(s, res)
		have = append(have, base)
		if len(pick) > 0 && !slices.Contains(pick, base) {
			continue
		}
		found[base] = true
		out = append(out, install.Local{Dir: s.Dir, Origin: origin, GitRef: res.Ref.In(s.Path).String(),
			Repository: res.Ref.TrustRepository(), Signers: signers})
	}
	// The skills of one export build concurrently, each into its place.
	err = forEach(ctx, len(out), func(ctx context.Context, i int) error {
		a, err := registry.Build(ctx, out[i].Dir, registry.BuildOptions{Created: created, NoVCS: true,
			Source: res.Ref.Remote(), Revision: res.Commit,
			Unversioned: true, Lenient: true, TagVersion: res.Version, CommitTime: commitTime})
		if err != nil {
			return &BuildError{Where: out[i].Origin, Err: err}
		}
		out[i].Artifact = a
		return nil
	})
	if err != nil {
		return fail(err)
	}
	for _, l := range out {
		found[l.Artifact.Skill.Name] = true
	}
	for _, p := range pick {
		if !found[p] {
			return fail(errdef.Mark(errNoSuchSkill, fmt.Errorf("%s: no skill %s (it has %s)", res.Ref, p, strings.Join(have, ", "))))
		}
	}
	return out, res, cleanup, nil
}

// skillBase is the name a pick matches an exported skill by: its folder,
// or the repository's name for a skill at the top.
func skillBase(s gitsource.Skill, res *gitsource.Resolved) string {
	if s.Path == "" {
		return path.Base(res.Ref.Path)
	}
	return path.Base("/" + s.Path)
}

// gitLockMode says how gitRequirements uses the project's lock.
type gitLockMode int

const (
	// gitResolve resolves every reference again: a branch moves to its
	// newest commit, a range to its newest tag.
	gitResolve gitLockMode = iota
	// gitKeep keeps the commit the lock records for a reference, and
	// resolves the references the lock does not have: what a change to
	// other skills of the project (add, remove) does.
	gitKeep
	// gitFrozen takes every commit from the lock; a reference the lock
	// does not have is resolve.ErrLockMismatch.
	gitFrozen
)

// gitRequirements builds the skills of the manifest's git references
// (source.IsGitName) and returns the manifest without them, and done,
// which removes their exported trees once installed. Install adds
// each built skill at its exact version, and the lock records its commit
// (LockedSkill.Git) and tree. A range written as the value is matched
// against the version tags. opts.Mode says whether a reference is
// resolved again or taken at the commit prev locks; a locked commit is
// fetched by id (whatever the branch holds now) and its trees must be the
// locked ones. A reference resolved again through a tag that now names
// another commit than the one locked for the same version was moved, and
// is refused (install.ErrRepublished, both commits named) unless
// opts.AllowRepublished, as a republished registry version is.
func (e *Engine) gitRequirements(ctx context.Context, m *resolve.Manifest, prev *resolve.Lockfile, opts gitOptions) (*resolve.Manifest, []install.Local, func(), error) {
	mode := opts.Mode
	var dones []func()
	done := func() {
		for _, d := range dones {
			d()
		}
	}
	fail := func(err error) (*resolve.Manifest, []install.Local, func(), error) {
		done()
		return nil, nil, func() {}, err
	}
	out := *m
	out.Skills = nil
	var locals []install.Local
	var cache *gitFetches
	for _, r := range m.Skills {
		if !source.IsGitName(r.Name) {
			out.Skills = append(out.Skills, r)
			continue
		}
		at := fmt.Sprintf("%s:%d", m.File, r.Line)
		ref, err := gitsource.Parse(r.Name)
		if err != nil {
			return fail(gitErr(fmt.Errorf("%s: %w", at, err)))
		}
		if r.Range != resolve.AnyRange && r.Range != "" {
			if ref.Rev != "" {
				return fail(invalid(fmt.Errorf("%s: %s names a revision and the range %s: write one", at, ref, r.Range)))
			}
			ref = ref.At(r.Range)
		}
		asked := ref
		var locked []resolve.LockedSkill
		if mode == gitFrozen && prev == nil {
			return fail(errdef.Mark(resolve.ErrLockMismatch, fmt.Errorf("%s: %s: a frozen install needs a lock, and there is none", at, ref)))
		}
		if mode != gitResolve && prev != nil {
			commit := ""
			for _, ls := range prev.Skills {
				lr, err := gitsource.Parse(ls.Git)
				if ls.Git == "" || err != nil || lr.Remote() != ref.Remote() || !within(lr.Subdir, ref.Subdir) {
					continue
				}
				if commit != "" && lr.Rev != commit {
					return fail(errdef.Mark(resolve.ErrLockMismatch, fmt.Errorf("%s: the lock has %s at two commits (%s, %s)", at, ref, commit, lr.Rev)))
				}
				commit = lr.Rev
				locked = append(locked, ls)
			}
			if commit == "" && mode == gitFrozen {
				return fail(errdef.Mark(resolve.ErrLockMismatch, fmt.Errorf("%s: %s is not in the lock %s (frozen install)", at, ref, prev.File)))
			}
			if commit != "" {
				ref = ref.At(commit)
			}
		}
		if cache == nil {
			if cache, err = openGitFetches(opts.Offline); err != nil {
				return fail(err)
			}
			cache.audits = opts.Audit
		}
		ls, res, d, err := e.gitLocals(ctx, cache, ref.String(), nil)
		dones = append(dones, d)
		if err != nil {
			return fail(err)
		}
		if mode != gitFrozen && !opts.AllowRepublished {
			if err := movedTag(prev, res, ls); err != nil {
				return fail(fmt.Errorf("%s: %w", at, err))
			}
		}
		for i, l := range ls {
			// Receipts keep the reference as asked, not the locked commit,
			// so that update can move it.
			if lr, err := gitsource.Parse(l.Origin); err == nil {
				ls[i].GitRef = asked.In(lr.Subdir).String()
			}
			for _, el := range locked {
				if el.Name == l.Artifact.Skill.Name && el.Tree != "" && el.Tree != l.Artifact.Pack.TreeHash {
					return fail(errdef.Mark(resolve.ErrLockMismatch, fmt.Errorf("%s: %s at %s has the tree %s; the lock says %s", at, el.Name, l.Origin, l.Artifact.Pack.TreeHash, el.Tree)))
				}
			}
		}
		locals = append(locals, ls...)
	}
	return &out, locals, done, nil
}

// gitOptions are the choices gitRequirements makes on the lock's behalf.
type gitOptions struct {
	// Mode says how the lock's commits are used.
	Mode gitLockMode
	// Offline answers from the git cache only.
	Offline bool
	// AllowRepublished accepts a version tag moved to another commit
	// than the one locked.
	AllowRepublished bool
	// Audit says the skills built are audited next (an install), so
	// the auditor may start on them early (gitFetches.audits).
	Audit bool
}

// movedTag refuses a skill built from a reference resolved through a tag
// (res) when prev locks the same skill, from the same repository, at the
// same version (the tag's, or the one its SKILL.md says) but another
// commit: the tag was moved to other content since the lock was written.
// A branch, or a range that moved on to a newer version, is no refusal.
func movedTag(prev *resolve.Lockfile, res *gitsource.Resolved, built []install.Local) error {
	if prev == nil || res == nil || res.Tag == "" {
		return nil
	}
	for _, l := range built {
		for _, ls := range prev.Skills {
			lr, err := gitsource.Parse(ls.Git)
			if ls.Git == "" || err != nil || ls.Name != l.Artifact.Skill.Name || lr.Remote() != res.Ref.Remote() || lr.Rev == res.Commit {
				continue
			}
			if ls.Version != l.Artifact.Skill.Version && ls.Version != res.Version {
				continue
			}
			return fmt.Errorf("%w: %s@%s was republished: the lock has commit %s, the tag %s of %s now names commit %s; check with its publisher before accepting the new content",
				install.ErrRepublished, ls.Name, ls.Version, lr.Rev, res.Tag, res.Ref.Remote(), res.Commit)
		}
	}
	return nil
}

// within reports whether the repository folder p is dir or inside it.
func within(p, dir string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

// gitLock is gitFrozen for a frozen operation, else gitResolve.
func gitLock(frozen bool) gitLockMode {
	if frozen {
		return gitFrozen
	}
	return gitResolve
}
