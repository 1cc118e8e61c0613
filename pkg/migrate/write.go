package migrate

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteOptions control Result.Write.
type WriteOptions struct {
	// OverwriteUnsafe replaces an existing directory at the destination.
	OverwriteUnsafe bool
}

// vcsDirs are not part of a skill and are not copied.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// listFiles returns the skill's files other than skip (its SKILL.md),
// relative to dir. Only regular files and directories are allowed: a
// symbolic link could point outside the skill, so it stops the migration.
func listFiles(ctx context.Context, dir, skip string) (files, skipped []string, err error) {
	root := dir
	if p, err := filepath.EvalSymlinks(dir); err == nil {
		root = p
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return notMigratable(filepath.Join(dir, rel), 0, ReasonUnsupportedFile,
				"symbolic link "+filepath.ToSlash(rel)+" (links are not allowed in a skill: they can point outside it)",
				"replace the link with a copy of the file, then migrate again")
		case d.IsDir():
			if vcsDirs[d.Name()] {
				skipped = append(skipped, filepath.ToSlash(rel))
				return filepath.SkipDir
			}
			return nil
		case !d.Type().IsRegular():
			return notMigratable(filepath.Join(dir, rel), 0, ReasonUnsupportedFile,
				filepath.ToSlash(rel)+" is not a regular file", "remove it from the skill, then migrate again")
		}
		if rel != skip {
			files = append(files, rel)
		}
		return nil
	})
	return files, skipped, err
}

// Write creates the migrated skill at dest: every other file of the input
// copied unchanged, and the new SKILL.md. dest should be named after the
// skill (Result.Name), or validation reports a name mismatch. The write is
// atomic: the skill is assembled in a temporary directory beside dest and
// renamed into place, so an error leaves nothing half-written. dest must not
// overlap the input, and must not exist unless opts.OverwriteUnsafe.
func (r *Result) Write(ctx context.Context, dest string, opts WriteOptions) error {
	src, err := canonical(r.dir)
	if err != nil {
		return err
	}
	out, err := canonical(dest)
	if err != nil {
		return err
	}
	if within(out, src) || within(src, out) {
		return fmt.Errorf("%w: %s and %s (write the migrated skill somewhere else)", ErrOutputOverlaps, dest, r.dir)
	}
	exists := false
	if fi, err := os.Lstat(out); err == nil {
		if !opts.OverwriteUnsafe {
			return fmt.Errorf("%w: %s (remove it, or choose another output directory)", ErrOutputExists, dest)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%w: %s is not a directory", ErrOutputExists, dest)
		}
		exists = true
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+r.Name+".migrate-*")
	if err != nil {
		return fmt.Errorf("creating a temporary directory in %s: %w", parent, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	for _, rel := range r.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := copyFile(filepath.Join(r.dir, rel), filepath.Join(tmp, rel)); err != nil {
			return err
		}
	}
	mode := r.mode
	if mode == 0 {
		mode = 0o644
	}
	if err := os.WriteFile(filepath.Join(tmp, "SKILL.md"), r.file, mode); err != nil {
		return fmt.Errorf("writing SKILL.md: %w", err)
	}
	if exists {
		old := tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return fmt.Errorf("moving the existing %s aside: %w", dest, err)
		}
		if err := os.Rename(tmp, out); err != nil {
			if rerr := os.Rename(old, out); rerr != nil {
				return fmt.Errorf("replacing %s: %w (and restoring it failed: %v; it is at %s)", dest, err, rerr, old)
			}
			return fmt.Errorf("replacing %s: %w", dest, err)
		}
		done = true
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("removing the replaced skill at %s: %w", old, err)
		}
	} else {
		if err := os.Rename(tmp, out); err != nil {
			return fmt.Errorf("moving the migrated skill into %s: %w", dest, err)
		}
		done = true
	}
	r.Report.Output = dest
	return nil
}

// copyFile copies a regular file, keeping its permission bits. The source
// is checked again: it must still be a regular file.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if lfi, err := os.Lstat(src); err != nil || !lfi.Mode().IsRegular() || !fi.Mode().IsRegular() {
		return notMigratable(src, 0, ReasonUnsupportedFile, "not a regular file", "remove it from the skill, then migrate again")
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return out.Close()
}

// canonical is the absolute path with symbolic links resolved as far as
// the path exists.
func canonical(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for cur := abs; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest), nil
		}
		if filepath.Dir(cur) == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

// within reports whether p is base or inside it.
func within(p, base string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
