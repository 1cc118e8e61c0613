package archive

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Unpack extracts the gzip'd tar read from r into dest and returns the tree
// hash of what it wrote, to be compared with the manifest's
// dev.skillpm.skill.tree annotation.
//
// dest must not exist (ErrDestExists); its parent must. Unpack extracts
// into a fresh directory created next to dest and renames it to dest only
// when the whole stream has been read and checked, gzip checksum included;
// on any error it removes that directory, so either dest appears complete
// or nothing is left in the parent.
//
// Only regular files and directories are accepted. Each of these is an
// *EntryError naming the entry: an unsafe or unportable name
// (ErrUnsafePath), a symlink or hardlink (ErrLinkEntry), a device, FIFO or
// other type (ErrSpecialFile), the same path twice (ErrDuplicateEntry),
// paths differing only in case or normalisation (ErrCaseCollision), an
// entry below a file (ErrPathConflict), and any bound of limits exceeded
// (ErrLimit). A malformed stream is ErrCorrupt; too much decompressed data
// or too high a compression ratio is ErrLimit without an entry.
//
// Files get mode 0755 when the entry has any execute bit and 0644
// otherwise, directories 0755, whatever the umask; owners, times and other
// bits in the archive are ignored. A leading "./" and a root "./" entry are
// accepted, as made by "tar -C dir .". Global PAX headers are skipped.
// Memory does not grow with file sizes. Limits{} means DefaultLimits.
func Unpack(ctx context.Context, r io.Reader, dest string, limits Limits) (Summary, error) {
	lim, err := limits.resolve()
	if err != nil {
		return Summary{}, err
	}
	dest = filepath.Clean(dest)
	if err := checkAbsent(dest); err != nil {
		return Summary{}, err
	}
	base := filepath.Base(dest)
	if len(base) > 64 {
		base = base[:64]
	}
	// Same parent, so the final rename is atomic and never crosses file
	// systems. MkdirTemp makes it 0700: nobody else can plant links in it.
	tmp, err := os.MkdirTemp(filepath.Dir(dest), "."+base+".unpack-*")
	if err != nil {
		return Summary{}, fmt.Errorf("archive: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()

	root, err := os.OpenRoot(tmp)
	if err != nil {
		return Summary{}, fmt.Errorf("archive: %w", err)
	}
	sum, err := extract(ctx, r, root, lim)
	if cerr := root.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("archive: %w", cerr)
	}
	if err != nil {
		return Summary{}, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Summary{}, fmt.Errorf("archive: %w", err)
	}
	// Checked again just before the rename: rename(2) would replace an
	// empty directory created meanwhile, and a symlink must never be.
	if err := checkAbsent(dest); err != nil {
		return Summary{}, err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return Summary{}, fmt.Errorf("archive: %w", err)
	}
	done = true
	return sum, nil
}

func checkAbsent(dest string) error {
	_, err := os.Lstat(dest)
	switch {
	case err == nil:
		return fmt.Errorf("archive: %s: %w", dest, ErrDestExists)
	case errors.Is(err, fs.ErrNotExist):
		return nil
	default:
		return fmt.Errorf("archive: %w", err)
	}
}

func extract(ctx context.Context, r io.Reader, root *os.Root, lim Limits) (Summary, error) {
	in := &countingReader{r: ctxReader{ctx, r}}
	zr, err := gzip.NewReader(in)
	if err != nil {
		return Summary{}, fmt.Errorf("archive: %w", streamErr(err, nil))
	}
	guard := &streamGuard{r: zr, in: in, lim: lim, cap: lim.streamCap()}
	tr := tar.NewReader(guard)
	trk := newTracker(lim)
	buf := make([]byte, copyBufSize)
	h := sha256.New()
	var (
		s     Summary
		files []File
	)
	for {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return Summary{}, fmt.Errorf("archive: %w", streamErr(err, guard))
		}
		entry := hdr.Name
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeDir:
		case tar.TypeXGlobalHeader:
			continue // metadata for the whole archive (git archive writes one)
		case tar.TypeSymlink:
			return Summary{}, entryErr(entry, ErrLinkEntry, "symbolic link to %q", hdr.Linkname)
		case tar.TypeLink:
			return Summary{}, entryErr(entry, ErrLinkEntry, "hard link to %q", hdr.Linkname)
		case tar.TypeChar, tar.TypeBlock:
			return Summary{}, entryErr(entry, ErrSpecialFile, "device")
		case tar.TypeFifo:
			return Summary{}, entryErr(entry, ErrSpecialFile, "FIFO")
		default:
			return Summary{}, entryErr(entry, ErrSpecialFile, "entry type %q", hdr.Typeflag)
		}
		dir := hdr.Typeflag == tar.TypeDir
		if dir && (entry == "./" || entry == ".") {
			continue // the root itself
		}
		name := strings.TrimPrefix(entry, "./")
		if dir {
			name = strings.TrimSuffix(name, "/")
		}
		size := hdr.Size
		if dir {
			size = 0
		}
		if size < 0 {
			return Summary{}, entryErr(entry, ErrCorrupt, "negative size")
		}
		if why := implicitlyRun(name); why != "" {
			return Summary{}, entryErr(entry, ErrImplicitExec, "%s", why)
		}
		implied, existed, err := trk.add(entry, name, dir, size)
		if err != nil {
			return Summary{}, err
		}
		for _, p := range implied {
			if err := mkdir(root, p); err != nil {
				return Summary{}, &EntryError{Entry: entry, Err: createErr(err)}
			}
			s.Dirs++
		}
		if dir {
			if !existed {
				if err := mkdir(root, name); err != nil {
					return Summary{}, &EntryError{Entry: entry, Err: createErr(err)}
				}
				s.Dirs++
			}
			continue
		}
		fe := File{Path: name, Executable: hdr.Mode&0o111 != 0}
		h.Reset()
		if err := writeFile(root, classifyingReader{tr, guard}, fe, size, h, buf); err != nil {
			return Summary{}, &EntryError{Entry: entry, Err: err}
		}
		h.Sum(fe.SHA256[:0])
		files = append(files, fe)
		s.Files++
		s.Bytes += size
	}
	// Read to the end so gzip verifies its checksum and length, and so data
	// hidden after the end-of-archive marker is bounded like the rest.
	if _, err := io.CopyBuffer(io.Discard, guard, buf); err != nil {
		return Summary{}, fmt.Errorf("archive: %w", streamErr(err, guard))
	}
	s.TreeHash = TreeHash(files)
	return s, nil
}

func mkdir(root *os.Root, name string) error {
	p := filepath.FromSlash(name)
	if err := root.Mkdir(p, 0o755); err != nil {
		return err
	}
	return root.Chmod(p, 0o755) // undo the umask
}

// writeFile creates fe.Path exclusively (O_EXCL: never through an existing
// path, which on a case-insensitive disk also catches a collision the
// tracker's folding missed) and copies exactly size bytes into it.
func writeFile(root *os.Root, r io.Reader, fe File, size int64, h io.Writer, buf []byte) error {
	f, err := root.OpenFile(filepath.FromSlash(fe.Path), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return createErr(err)
	}
	mode := fs.FileMode(0o644)
	if fe.Executable {
		mode = 0o755
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	n, err := io.CopyBuffer(io.MultiWriter(f, h), r, buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("%w: %d of %d bytes", ErrCorrupt, n, size)
	}
	return nil
}

// createErr maps "already exists" to ErrPathConflict: the tracker should
// have caught it, unless the disk folds names in a way it did not foresee.
func createErr(err error) error {
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %w", ErrPathConflict, err)
	}
	return err
}

// classifyingReader turns read errors from the archive into ErrCorrupt or
// ErrLimit, so that they are not confused with write errors of the disk.
type classifyingReader struct {
	r io.Reader
	g *streamGuard
}

func (c classifyingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		err = streamErr(err, c.g)
	}
	return n, err
}

// streamErr classifies an error from reading the stream: a bound the guard
// tripped stays ErrLimit, everything else from gzip or tar is ErrCorrupt.
func streamErr(err error, g *streamGuard) error {
	if g != nil && g.err != nil && errors.Is(err, g.err) {
		return g.err
	}
	if errors.Is(err, ErrLimit) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return corrupt(err)
}

func corrupt(err error) error {
	return fmt.Errorf("%w: %w", ErrCorrupt, err)
}

// countingReader counts compressed bytes for the ratio check.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// streamGuard bounds the decompressed stream as a whole (headers, padding
// and trailing data included) and its compression ratio, failing as soon
// as a bound is crossed rather than after the bytes hit the disk.
type streamGuard struct {
	r   io.Reader
	in  *countingReader
	lim Limits
	cap int64
	n   int64
	err error // sticky, so tar's wrapping cannot hide it
}

func (g *streamGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if rest := g.cap - g.n + 1; int64(len(p)) > rest {
		p = p[:rest] // one byte past the cap is enough to know
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	switch {
	case g.n > g.cap:
		g.err = fmt.Errorf("%w: more than %d bytes decompressed", ErrLimit, g.cap)
	case g.n > g.lim.RatioFloorBytes && g.n/max(g.in.n, 1) > int64(g.lim.MaxRatio): // divides: no overflow
		g.err = fmt.Errorf("%w: compression ratio above %d:1 (%d bytes from %d)", ErrLimit, g.lim.MaxRatio, g.n, g.in.n)
	}
	if g.err != nil {
		return n, g.err
	}
	return n, err
}
