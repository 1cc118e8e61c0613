package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/pkg/archive"
)

// Placement is how a skill reaches the hosts asked for.
type Placement string

// Placements.
const (
	// PlaceAuto links when any of the hosts' roots already holds links
	// skillpm made (install --link was used there before), else copies:
	// install, add and update keep a root's mode.
	PlaceAuto Placement = "auto"
	// PlaceCopy writes a copy into each host's root; hosts that share a
	// root share the copy.
	PlaceCopy Placement = "copy"
	// PlaceLink writes one canonical copy, into the agents root of the
	// scope (.agents/skills, where the skills CLI keeps its copy too), and
	// a symlink to it into the root of each host that follows symlinks and
	// does not read the agents root already.
	PlaceLink Placement = "link"
)

// Record modes.
const (
	// ModeCopy: the receipt's folder holds the files.
	ModeCopy = "copy"
	// ModeLink: the receipt's folder is a symlink to Record.Link.
	ModeLink = "link"
)

// canonicalHost is the host whose root holds the copy links point to.
const canonicalHost = HostAgents

// Placed is the roots PlaceRoots chose and why some host got no root.
type Placed struct {
	// Roots are the roots to install into, a canonical copy's root before
	// the roots linking to it.
	Roots []Root
	// Notes say which hosts a copy serves without a root of their own and
	// which got a copy where a link was asked for, and why.
	Notes []string
}

// PlaceRoots returns the roots that serve hosts hs at scope s. A root
// read by several of them (the .agents family) is listed once. With
// PlaceLink (or PlaceAuto and a root already holding links), the copy goes
// into the agents root, and each host that neither reads that root nor
// has it as its own gets a link root (Root.Link) if the hosts table says
// it follows symlinks; otherwise a copy of its own, with a note. GAIA
// always gets a copy: skillpm writes the enforced tier into GAIA's
// SKILL.md, so its bytes differ from everyone else's.
func PlaceRoots(hs []HostID, s Scope, env Env, mode Placement) (*Placed, error) {
	t := env.Table()
	dirs := make([]string, len(hs))
	for i, h := range hs {
		d, err := RootDir(h, s, env)
		if err != nil {
			return nil, err
		}
		dirs[i] = d
	}
	if mode == PlaceAuto {
		mode = PlaceCopy
		for _, d := range dirs {
			if HoldsLinks(d) {
				mode = PlaceLink
				break
			}
		}
	}
	out := &Placed{}
	add := func(r Root) {
		if !slices.ContainsFunc(out.Roots, func(o Root) bool { return o.Dir == r.Dir }) {
			out.Roots = append(out.Roots, r)
		}
	}
	if mode != PlaceLink {
		for i, h := range hs {
			add(Root{Host: h, Scope: s, Dir: dirs[i], ReadBy: t.Readers(dirs[i], env)})
		}
		return out, nil
	}
	canon, err := RootDir(canonicalHost, s, env)
	if err != nil {
		return nil, err
	}
	readers := t.Readers(canon, env)
	croot := Root{Host: canonicalHost, Scope: s, Dir: canon, LinkOnly: true}
	var rest []Root
	var linkReaders []string
	for i, h := range hs {
		switch {
		case dirs[i] == canon || slices.Contains(readers, string(h)):
			if croot.LinkOnly {
				croot.Host = h
			}
			croot.LinkOnly = false
			if dirs[i] != canon {
				out.Notes = append(out.Notes, fmt.Sprintf("%s reads %s: the copy there serves it, no link needed", h, canon))
			}
		case h == HostGaia:
			rest = append(rest, Root{Host: h, Scope: s, Dir: dirs[i], ReadBy: t.Readers(dirs[i], env)})
			out.Notes = append(out.Notes, fmt.Sprintf("%s gets a copy in %s, not a link: its %s carries the tier skillpm enforces", h, dirs[i], hosts.SkillFile))
		case followsLinks(t, h):
			r := Root{Host: h, Scope: s, Dir: dirs[i], Link: canon, ReadBy: t.Readers(dirs[i], env)}
			linkReaders = append(linkReaders, r.ReadBy...)
			rest = append(rest, r)
		default:
			rest = append(rest, Root{Host: h, Scope: s, Dir: dirs[i], ReadBy: t.Readers(dirs[i], env)})
			out.Notes = append(out.Notes, fmt.Sprintf("%s gets a copy in %s, not a link: the hosts table does not say it follows symlinks", h, dirs[i]))
		}
	}
	croot.ReadBy = union(readers, linkReaders)
	add(croot)
	for _, r := range rest {
		add(r)
	}
	return out, nil
}

func followsLinks(t *hosts.Table, h HostID) bool {
	hh, err := t.Get(string(h))
	return err == nil && hh.Symlinks == hosts.SymlinksFollowed
}

// AgentsRoots are the roots the copies links point to may be in: the
// agents root of each scope env resolves. A link record naming a copy
// anywhere else is refused (a project's receipts are committed with it).
func AgentsRoots(env Env) []string {
	var out []string
	for _, s := range []Scope{ScopeProject, ScopeUser} {
		if d, err := env.Table().RootDir(string(canonicalHost), s, env); err == nil {
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}

// HoldsLinks reports whether root's receipts record a link skillpm made.
func HoldsLinks(root string) bool {
	rec, err := ReadReceipts(root)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(rec.Skills, func(r Record) bool { return r.Link != "" })
}

func union(a ...[]string) []string {
	var out []string
	for _, s := range a {
		for _, x := range s {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	sort.Strings(out)
	return out
}

// linkText is the symlink's content: the copy's path relative to the
// link's directory, both with their symlinked parents resolved (as the
// skills CLI writes it), so a tree moved as a whole keeps working;
// absolute when no relative path exists.
func linkText(linkDir, target string) string {
	from, to := linkDir, target
	if d, err := filepath.EvalSymlinks(linkDir); err == nil {
		from = d
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(target)); err == nil {
		to = filepath.Join(d, filepath.Base(target))
	}
	if rel, err := filepath.Rel(from, to); err == nil {
		return rel
	}
	return target
}

// isLinkTo reports whether path is a symlink that resolves to target.
func isLinkTo(path, target string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return false
	}
	got, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	want, err := filepath.EvalSymlinks(target)
	return err == nil && got == want
}

// place sets the fields of nr that say how root i of the job holds it:
// a link's target, a copy's links (those this job makes, and those old
// recorded that are still links to it), the hosts that read it and
// whether it exists only for its links.
func (j *job) place(i int, nr *Record, old Record, hadOld bool) {
	r := j.roots[i]
	nr.ReadBy = r.ReadBy
	if r.ReadBy == nil && hadOld {
		// A root given without its readers (update, a custom root) keeps
		// what the receipt knew.
		nr.ReadBy = old.ReadBy
	}
	if r.Link != "" {
		nr.Mode, nr.Link = ModeLink, filepath.Join(r.Link, nr.Name)
		return
	}
	nr.Mode = ModeCopy
	dir := filepath.Join(r.Dir, nr.Name)
	readers := [][]string{nr.ReadBy}
	for _, l := range old.LinkedFrom {
		if isLinkTo(l, dir) && !slices.Contains(nr.LinkedFrom, l) {
			nr.LinkedFrom = append(nr.LinkedFrom, l)
			readers = append(readers, old.ReadBy)
		}
	}
	for _, o := range j.roots {
		if o.Link == r.Dir {
			l := filepath.Join(o.Dir, nr.Name)
			if !slices.Contains(nr.LinkedFrom, l) {
				nr.LinkedFrom = append(nr.LinkedFrom, l)
			}
			readers = append(readers, o.ReadBy)
		}
	}
	sort.Strings(nr.LinkedFrom)
	nr.ReadBy = union(readers...)
	// A copy someone installed for its own sake stays when the links go.
	nr.LinkOnly = r.LinkOnly && (!hadOld || old.LinkOnly)
}

// unlinked updates the copy a removed link pointed to: the link leaves
// its LinkedFrom, and a copy that was only there for its links is removed
// with the last of them (unless its files were edited and not force). It
// takes the copy's root lock itself, after the link's root was unlocked,
// so that it never holds two roots out of the global order. It says what
// it did with the copy, "" when it kept it.
func unlinked(ctx context.Context, link, copyDir string, force bool, wait time.Duration, hook func(string) error) (string, error) {
	root, name := filepath.Dir(copyDir), filepath.Base(copyDir)
	lock, rec, err := lockAndRead(ctx, root, wait)
	if err != nil {
		return "", err
	}
	defer lock.Unlock()
	r, ok := rec.Get(name)
	if !ok || !slices.Contains(r.LinkedFrom, link) {
		// The link's receipt named a copy that does not know it: that
		// receipt, not this root, is wrong, and this root is left alone.
		return "", nil
	}
	var left []string
	for _, l := range r.LinkedFrom {
		if l != link && isLinkTo(l, copyDir) {
			left = append(left, l)
		}
	}
	r.LinkedFrom = left
	tx, err := beginTxn(root)
	if err != nil {
		return "", err
	}
	tx.hook = hook
	what := ""
	switch {
	case !r.LinkOnly || len(left) > 0:
		rec.Put(r)
	case !exists(copyDir):
		rec.Delete(name)
	default:
		sum, err := archive.TreeHashInstalled(ctx, copyDir)
		if !force && (err != nil || (r.Tree != "" && sum.TreeHash != r.Tree)) {
			rec.Put(r)
			what = "kept " + copyDir + ": its files were edited since skillpm installed them (a forced remove deletes it)"
			break
		}
		tx.Remove(name)
		rec.Delete(name)
		what = "removed " + copyDir + ", which nothing links to any more"
	}
	if err := tx.Commit(ctx, rec); err != nil {
		return "", err
	}
	return what, nil
}

// treeOf is the tree hash of the files a skill folder shows: through a
// link, those of the copy it points to.
func treeOf(ctx context.Context, dir string) (archive.Summary, error) {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if d, err := filepath.EvalSymlinks(dir); err == nil {
			dir = d
		}
	}
	return archive.TreeHashInstalled(ctx, dir)
}
