package gitsource

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/skillpm/skillpm/pkg/archive"
)

// Skill is one skill folder of a checkout.
type Skill struct {
	// Path is the folder in the repository, slash-separated ("" for the
	// root).
	Path string
	// Dir is where Export wrote it.
	Dir string
	// GitTree is git's tree object id of the folder at the commit.
	GitTree string
}

// Ref returns the reference to this skill alone at the resolved commit.
func (s Skill) Ref(res *Resolved) *Ref { return res.Ref.At(res.Commit).In(s.Path) }

type entry struct {
	mode, typ, oid, path string
	size                 int64
}

// Export writes the skill folders under the resolved reference's Subdir
// at its commit into dest (which must not exist yet or be empty), each at
// its repository path, and returns them sorted by path. A folder holding
// a SKILL.md is a skill; a skill nested in another is returned too. Before
// writing anything it refuses a skill folder holding a submodule or a
// symlink that leaves it.
func (c *Cache) Export(ctx context.Context, res *Resolved, dest string) ([]Skill, error) {
	skills, err := c.export(ctx, res, dest)
	if err != nil {
		return nil, &Error{Ref: res.Ref.At(res.Ref.Rev).String() + " (commit " + short(res.Commit) + ")", Err: err}
	}
	return skills, nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func (c *Cache) export(ctx context.Context, res *Resolved, dest string) ([]Skill, error) {
	if err := c.lookGit(); err != nil {
		return nil, err
	}
	dir, err := c.repoDir(ctx, res.Ref)
	if err != nil {
		return nil, err
	}
	args := []string{"ls-tree", "-r", "-t", "-z", "--long", "--full-tree", res.Commit}
	if res.Ref.Subdir != "" {
		args = append(args, "--", res.Ref.Subdir)
	}
	out, err := c.cmd(dir, nil, args...).output(ctx)
	if err != nil {
		return nil, err
	}
	var entries []entry
	trees := map[string]string{}
	var roots []string
	for _, rec := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		// Git itself refuses to check out such names, but a tree can hold
		// them: nothing may be written outside dest or into a .git folder.
		if !safePath(p) {
			return nil, fmt.Errorf("%w: the tree holds the path %q, which git would refuse to check out", ErrUnsafeTree, p)
		}
		e := entry{mode: f[0], typ: f[1], oid: f[2], path: p}
		if e.typ == "blob" && f[3] == "BAD" {
			// A blob over the size limit that the partial fetch left on
			// the server: refused below if a skill holds it.
			e.size = -1
		} else if e.typ == "blob" {
			if e.size, err = strconv.ParseInt(f[3], 10, 64); err != nil {
				return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
			}
		}
		if e.typ == "tree" {
			trees[p] = e.oid
			continue
		}
		entries = append(entries, e)
		if e.typ == "blob" && e.mode != "120000" && strings.EqualFold(path.Base(p), "SKILL.md") {
			roots = append(roots, path.Dir(p))
		}
	}
	if res.Ref.Subdir != "" && len(entries) == 0 && trees[res.Ref.Subdir] == "" {
		return nil, fmt.Errorf("%w: the repository has no folder %s at this commit", ErrNoSkill, res.Ref.Subdir)
	}
	if len(roots) == 0 {
		where := "the repository"
		if res.Ref.Subdir != "" {
			where = res.Ref.Subdir
		}
		return nil, fmt.Errorf("%w: no SKILL.md in %s", ErrNoSkill, where)
	}
	sort.Strings(roots)
	inSkill := func(p string) string {
		for i := len(roots) - 1; i >= 0; i-- {
			if r := roots[i]; r == "." || p == r || strings.HasPrefix(p, r+"/") {
				return r
			}
		}
		return ""
	}
	var keep []entry
	for _, e := range entries {
		owner := inSkill(e.path)
		if owner == "" {
			continue
		}
		switch {
		case e.typ == "commit":
			return nil, fmt.Errorf("%w: %s is a git submodule inside the skill %s; skillpm installs no submodules: vendor its files or move it out of the skill folder", ErrUnsafeTree, e.path, skillLabel(owner))
		case e.mode == "120000":
			keep = append(keep, e)
		case e.typ == "blob":
			keep = append(keep, e)
		}
	}
	// The archive limits apply before any blob is read into memory.
	lim := archive.DefaultLimits()
	var total int64
	for _, e := range keep {
		if e.size < 0 || e.size > c.maxBlob() {
			return nil, fmt.Errorf("%w: %s is larger than %d bytes, the limit of a file fetched from git, so it was not fetched: keep large files out of the skill folder", ErrUnsafeTree, e.path, c.maxBlob())
		}
		if e.size > lim.MaxFileBytes {
			return nil, fmt.Errorf("%w: %s is %d bytes, over the %d-byte limit of a skill file", ErrUnsafeTree, e.path, e.size, lim.MaxFileBytes)
		}
		total += e.size
	}
	if total > lim.MaxTotalBytes || len(keep) > lim.MaxEntries {
		return nil, fmt.Errorf("%w: the skills hold %d files, %d bytes in all, over the limits (%d files, %d bytes)", ErrUnsafeTree, len(keep), total, lim.MaxEntries, lim.MaxTotalBytes)
	}
	// The commit object comes in the same git process as the blobs: it
	// names the root's tree, and CommitSigner and CommitTime read it.
	blobs, raw, err := c.readBlobs(ctx, dir, keep, res.Commit)
	if err != nil {
		return nil, err
	}
	res.commit = raw
	if trees["."], err = commitTree(raw); err != nil {
		return nil, err
	}
	// Every path and symlink is checked before anything is written. A
	// hand-made tree can hold one path twice (a symlink and a folder) or
	// a symlink whose target is lexically inside the skill but goes out
	// through another symlink ("0 -> ." then "a -> 0/0/../.."): each is
	// refused here, and the writes below go through an os.Root at dest,
	// symlinks last, so no file is ever written through a link.
	links := map[string]string{}
	seen := map[string]bool{}
	for _, e := range keep {
		if seen[e.path] {
			return nil, fmt.Errorf("%w: the tree holds %s twice; git would refuse to check it out", ErrUnsafeTree, e.path)
		}
		seen[e.path] = true
		if e.mode == "120000" {
			links[e.path] = blobs[e.oid]
		}
	}
	for _, e := range keep {
		for d := path.Dir(e.path); d != "."; d = path.Dir(d) {
			if _, ok := links[d]; ok {
				return nil, fmt.Errorf("%w: the tree holds %s both as a symlink and as a folder (with %s in it); git would refuse to check it out", ErrUnsafeTree, d, e.path)
			}
		}
	}
	for _, e := range keep {
		if e.mode != "120000" {
			continue
		}
		owner, target := inSkill(e.path), links[e.path]
		hops := 0
		if _, ok := landsIn(links, owner, path.Dir(e.path), target, &hops); !ok {
			return nil, fmt.Errorf("%w: the symlink %s points to %s, outside the skill folder %s", ErrUnsafeTree, e.path, target, skillLabel(owner))
		}
	}
	if err := writeTree(dest, keep, blobs); err != nil {
		return nil, err
	}
	out2 := make([]Skill, 0, len(roots))
	for _, r := range roots {
		s := Skill{Path: r, Dir: filepath.Join(dest, filepath.FromSlash(r)), GitTree: trees[r]}
		if r == "." {
			s.Path, s.Dir = "", dest
		}
		out2 = append(out2, s)
	}
	return out2, nil
}

// maxLinkHops bounds the symlinks one target may go through, as the
// kernel's own bound (40 on Linux) does.
const maxLinkHops = 40

// landsIn follows target, a symlink's text in the folder dir, the way the
// filesystem will once the tree is written: through the tree's other
// symlinks (links, by path). It returns where the target lands, and
// false when it goes through a symlink outside the skill folder owner,
// lands outside it, is absolute, or loops.
func landsIn(links map[string]string, owner, dir, target string, hops *int) (string, bool) {
	if path.IsAbs(target) {
		return "", false
	}
	cur := dir
	for _, el := range strings.Split(target, "/") {
		switch el {
		case "", ".":
			continue
		case "..":
			if cur == "." {
				return "", false
			}
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, el)
		if t, ok := links[next]; ok {
			if *hops++; *hops > maxLinkHops || !within(next, owner) {
				return "", false
			}
			r, ok := landsIn(links, owner, path.Dir(next), t, hops)
			if !ok {
				return "", false
			}
			next = r
		}
		cur = next
	}
	return cur, within(cur, owner)
}

// within reports whether the slash path p is the folder owner or in it.
func within(p, owner string) bool {
	return owner == "." || p == owner || strings.HasPrefix(p, owner+"/")
}

// writeTree writes the checked entries under dest through an os.Root, so
// that no path can resolve outside dest whatever is on disk, and makes
// the symlinks after every file: no write goes through one.
func writeTree(dest string, keep []entry, blobs map[string]string) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, e := range keep {
		if e.mode == "120000" {
			continue
		}
		p := filepath.FromSlash(e.path)
		if d := filepath.Dir(p); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		mode := os.FileMode(0o644)
		if e.mode == "100755" {
			mode = 0o755
		}
		f, err := root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return err
		}
		_, werr := f.WriteString(blobs[e.oid])
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
	}
	for _, e := range keep {
		if e.mode != "120000" {
			continue
		}
		p := filepath.FromSlash(e.path)
		if d := filepath.Dir(p); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		if err := root.Symlink(blobs[e.oid], p); err != nil {
			return err
		}
	}
	return nil
}

func skillLabel(p string) string {
	if p == "." {
		return "at the repository root"
	}
	return p
}

// readBlobs reads the entries' blobs, and the commit object of commit,
// with one git cat-file --batch.
func (c *Cache) readBlobs(ctx context.Context, dir string, es []entry, commit string) (map[string]string, string, error) {
	var in strings.Builder
	in.WriteString(commit + "\n")
	want := map[string]bool{}
	for _, e := range es {
		if !want[e.oid] {
			want[e.oid] = true
			in.WriteString(e.oid + "\n")
		}
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := c.cmd(dir, nil, "cat-file", "--batch").exec(ctx, strings.NewReader(in.String()), pw)
		pw.CloseWithError(err)
		done <- err
	}()
	out := map[string]string{}
	raw := ""
	br := bufio.NewReader(pr)
	var rerr error
	for i := range len(want) + 1 {
		head, err := br.ReadString('\n')
		if err != nil {
			rerr = fmt.Errorf("git cat-file: %w", err)
			break
		}
		typ := "blob"
		if i == 0 {
			typ = "commit"
		}
		f := strings.Fields(head)
		if len(f) != 3 || f[1] != typ || i == 0 && f[0] != commit {
			rerr = fmt.Errorf("git cat-file: unexpected %q", strings.TrimSpace(head))
			break
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			rerr = fmt.Errorf("git cat-file: unexpected %q", strings.TrimSpace(head))
			break
		}
		buf := make([]byte, n+1)
		if _, err := io.ReadFull(br, buf); err != nil {
			rerr = fmt.Errorf("git cat-file: %w", err)
			break
		}
		if i == 0 {
			raw = string(buf[:n])
			continue
		}
		out[f[0]] = string(buf[:n])
	}
	pr.CloseWithError(io.EOF)
	if err := <-done; rerr == nil && err != nil {
		rerr = err
	}
	return out, raw, rerr
}

// safePath reports whether a path from a tree is relative, clean, and has
// no "..", "." or ".git" element (in any letter case) and no backslash.
func safePath(p string) bool {
	if p == "" || path.IsAbs(p) || strings.Contains(p, "\\") {
		return false
	}
	for _, el := range strings.Split(p, "/") {
		if el == "" || el == "." || el == ".." || strings.EqualFold(el, ".git") {
			return false
		}
	}
	return true
}
