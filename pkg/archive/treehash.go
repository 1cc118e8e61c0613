package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"
	"strings"
)

// File is one regular file as the tree hash sees it.
type File struct {
	// Path is slash-separated and relative to the skill root.
	Path string
	// Executable is true when any execute bit is set (mode 0755 once
	// packed); otherwise the mode is 0644.
	Executable bool
	// SHA256 is the digest of the file's content.
	SHA256 [sha256.Size]byte
}

// Summary describes a tree that was packed, unpacked or hashed.
type Summary struct {
	// TreeHash is "sha256:<hex>" as computed by [TreeHash].
	TreeHash string
	// Files is the number of regular files.
	Files int
	// Dirs is the number of directories below the root.
	Dirs int
	// Bytes is the total size of the files' content.
	Bytes int64
}

// TreeHash returns "sha256:<hex>", the SHA-256 of this listing of files,
// one line per file sorted by Path in byte order:
//
//	<mode> SP <path> NUL <hex sha256 of content> LF
//
// where mode is "0644" or "0755" (Executable). Only regular files count:
// directories carry no information of their own (always 0755, implied by
// the paths) and empty ones are never packed. A path holds no NUL, so the
// listing parses unambiguously. The empty tree hashes the empty listing.
//
// Paths must be unique; TreeHash sorts a copy and does not check them.
func TreeHash(files []File) string {
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	h := sha256.New()
	var hx [2 * sha256.Size]byte
	for _, f := range sorted {
		mode := "0644 "
		if f.Executable {
			mode = "0755 "
		}
		hex.Encode(hx[:], f.SHA256[:])
		io.WriteString(h, mode)
		io.WriteString(h, f.Path)
		h.Write([]byte{0})
		h.Write(hx[:])
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// TreeHashDir hashes dir as [Pack] would pack it, with the same
// .skillignore and VCS exclusions and the same checks against opts.Limits,
// without compressing anything: its TreeHash equals Pack's.
func TreeHashDir(ctx context.Context, dir string, opts PackOptions) (Summary, error) {
	lim, _, err := opts.resolve()
	if err != nil {
		return Summary{}, err
	}
	entries, err := collect(ctx, dir, packRules, lim)
	if err != nil {
		return Summary{}, err
	}
	return hashEntries(ctx, dir, entries)
}

// TreeHashInstalled hashes every file under dir, ignoring no path and
// reading no .skillignore, so that an installed skill can be checked for
// hand edits against the tree hash recorded when it was unpacked: a file
// added, removed, changed or made (non-)executable changes the hash, and a
// link or special file is an error. For a tree produced by [Unpack] it
// equals Unpack's TreeHash.
func TreeHashInstalled(ctx context.Context, dir string) (Summary, error) {
	entries, err := collect(ctx, dir, installedRules, Limits{})
	if err != nil {
		return Summary{}, err
	}
	return hashEntries(ctx, dir, entries)
}

// InstalledFiles lists and hashes the files under dir as
// [TreeHashInstalled] does: [TreeHash] of the result is its TreeHash. It
// is for saying which files two trees differ in.
func InstalledFiles(ctx context.Context, dir string) ([]File, error) {
	entries, err := collect(ctx, dir, installedRules, Limits{})
	if err != nil {
		return nil, err
	}
	var files []File
	if _, err := hashFiles(ctx, dir, entries, &files); err != nil {
		return nil, err
	}
	return files, nil
}

func hashEntries(ctx context.Context, dir string, entries []srcEntry) (Summary, error) {
	return hashFiles(ctx, dir, entries, nil)
}

// hashFiles hashes entries, appending each file to *out when out is set.
func hashFiles(ctx context.Context, dir string, entries []srcEntry, out *[]File) (Summary, error) {
	var s Summary
	files := make([]File, 0, len(entries))
	buf := make([]byte, copyBufSize)
	h := sha256.New()
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		if e.dir {
			s.Dirs++
			continue
		}
		f, err := openChecked(dir, e)
		if err != nil {
			return Summary{}, err
		}
		h.Reset()
		err = copyExact(ctx, h, f, e, buf)
		f.Close()
		if err != nil {
			return Summary{}, err
		}
		fe := File{Path: e.rel, Executable: e.exec}
		h.Sum(fe.SHA256[:0])
		files = append(files, fe)
		s.Files++
		s.Bytes += e.size
	}
	s.TreeHash = TreeHash(files)
	if out != nil {
		*out = files
	}
	return s, nil
}
