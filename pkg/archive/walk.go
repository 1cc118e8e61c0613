package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	ignore "github.com/sabhiram/go-gitignore"
)

// IgnoreFile is the name of the ignore file read at the root of a skill
// directory. It uses gitignore syntax; it is itself packed unless it
// matches one of its own patterns.
const IgnoreFile = ".skillignore"

// maxIgnoreFileBytes keeps a runaway .skillignore from being read whole.
const maxIgnoreFileBytes = 1 << 20

// isVCS reports the version-control folders that are never packed. ".git"
// may also be a file (worktrees, submodules).
func isVCS(name string) bool {
	switch name {
	case ".git", ".hg", ".svn":
		return true
	}
	return false
}

// srcEntry is one path of a source tree, in the order it is packed.
type srcEntry struct {
	rel  string // slash-separated, relative to the tree root
	dir  bool
	exec bool
	size int64
	info fs.FileInfo // from Lstat, to detect a file swapped while reading
}

// tarName is the entry's name in the archive.
func (e srcEntry) tarName() string {
	if e.dir {
		return e.rel + "/"
	}
	return e.rel
}

// walkRules selects between the packing view of a tree and the installed
// view (everything, so that hand edits cannot hide behind .skillignore).
type walkRules int

const (
	packRules walkRules = iota
	installedRules
)

// collect lists a tree in packing order: sorted in byte order by entry
// name, a directory's with a trailing slash. Under
// packRules it drops VCS folders, ignored paths and directories left with no
// file, and checks every path against lim as Unpack would.
func collect(ctx context.Context, dir string, rules walkRules, lim Limits) ([]srcEntry, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("archive: %s is not a directory", dir)
	}
	var ign *ignore.GitIgnore
	if rules == packRules {
		if ign, err = readIgnore(dir); err != nil {
			return nil, err
		}
	}

	var entries []srcEntry
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("archive: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return fmt.Errorf("archive: %w", err)
		}
		rel = filepath.ToSlash(rel)
		if rules == packRules {
			skip := isVCS(d.Name())
			if !skip && ign != nil {
				m := rel
				if d.IsDir() {
					m += "/" // lets "name/" patterns match directories only
				}
				skip = ign.MatchesPath(m)
			}
			if skip {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if len(entries) >= 4*lim.MaxEntries {
				// Only a memory guard against a huge tree: empty directories
				// are dropped later, and the tracker applies the real bound.
				return entryErr(rel, ErrLimit, "more than %d paths in the tree", 4*lim.MaxEntries)
			}
		}
		switch t := d.Type(); {
		case t.IsDir():
			entries = append(entries, srcEntry{rel: rel, dir: true})
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return fmt.Errorf("archive: %w", err)
			}
			entries = append(entries, srcEntry{rel: rel, exec: info.Mode().Perm()&0o111 != 0, size: info.Size(), info: info})
		case t&fs.ModeSymlink != 0:
			return entryErr(rel, ErrLinkEntry, "symbolic link")
		default:
			return entryErr(rel, ErrSpecialFile, "file type %v", t)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	if rules == packRules {
		entries = dropEmptyDirs(entries)
	}
	// Sorted by entry name as written in the tar, directories with their
	// trailing slash: a directory then precedes its contents and each
	// subtree is contiguous. WalkDir's per-directory order differs ("a/x"
	// before "a-b", where bytes put '-' before '/').
	slices.SortFunc(entries, func(a, b srcEntry) int { return strings.Compare(a.tarName(), b.tarName()) })

	if rules == packRules {
		tr := newTracker(lim)
		for _, e := range entries {
			if _, _, err := tr.add(e.rel, e.rel, e.dir, e.size); err != nil {
				return nil, err
			}
		}
	}
	return entries, nil
}

// dropEmptyDirs keeps only directories that contain a kept file, as git
// does, so a tree packs the same whether or not it came from a git clone.
func dropEmptyDirs(entries []srcEntry) []srcEntry {
	needed := make(map[string]bool)
	for _, e := range entries {
		if e.dir {
			continue
		}
		for p := e.rel; ; {
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
			if needed[p] {
				break
			}
			needed[p] = true
		}
	}
	return slices.DeleteFunc(entries, func(e srcEntry) bool { return e.dir && !needed[e.rel] })
}

func readIgnore(dir string) (*ignore.GitIgnore, error) {
	p := filepath.Join(dir, IgnoreFile)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if !fi.Mode().IsRegular() {
		// The walk reports a link or special file; a directory of that name
		// simply holds no rules.
		return nil, nil
	}
	if fi.Size() > maxIgnoreFileBytes {
		return nil, entryErr(IgnoreFile, ErrLimit, "larger than %d bytes", maxIgnoreFileBytes)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxIgnoreFileBytes))
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	return ignore.CompileIgnoreLines(strings.Split(string(b), "\n")...), nil
}

// openChecked opens a collected file and makes sure it is still the regular
// file of the walk, so a swap for a symlink or FIFO is caught, not followed.
func openChecked(dir string, e srcEntry) (*os.File, error) {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(e.rel)))
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("archive: %w", err)
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, e.info) || fi.Size() != e.size {
		f.Close()
		return nil, entryErr(e.rel, ErrChanged, "")
	}
	return f, nil
}

// copyExact copies exactly e.size bytes of f to w and fails if the file
// turns out shorter or longer, so a header never lies about its data.
func copyExact(ctx context.Context, w io.Writer, f *os.File, e srcEntry, buf []byte) error {
	n, err := io.CopyBuffer(w, io.LimitReader(ctxReader{ctx, f}, e.size), buf)
	if err != nil {
		return fmt.Errorf("archive: %s: %w", e.rel, err)
	}
	if n != e.size {
		return entryErr(e.rel, ErrChanged, "shrank to %d bytes", n)
	}
	var one [1]byte
	if m, _ := f.Read(one[:]); m != 0 {
		return entryErr(e.rel, ErrChanged, "grew past %d bytes", e.size)
	}
	return nil
}

// ctxReader makes long copies stop soon after ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
