package archive

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"time"
)

const (
	// packLevel is part of the format: changing it changes every digest.
	// Level 9 makes skill text no smaller than 6 and costs 20% more time;
	// 6 is spelled out because DefaultCompression's meaning could change.
	packLevel = 6
	// gzipOSUnknown is the RFC 1952 "unknown" OS byte, the same everywhere.
	gzipOSUnknown = 255
	// maxUSTARTime is the largest mtime a USTAR header holds in octal;
	// later ones would need a PAX record and break the fixed layout.
	maxUSTARTime = 1<<33 - 1
	copyBufSize  = 32 << 10
)

// PackOptions controls [Pack] and [TreeHashDir]. The zero value is ready to
// use.
type PackOptions struct {
	// ModTime is written as every entry's mtime, truncated to the second.
	// Zero means the Unix epoch; the CLI sets it from SOURCE_DATE_EPOCH. It
	// must lie between 1970 and 2242 (what a USTAR header holds).
	ModTime time.Time
	// Limits are the bounds Unpack will apply; Pack refuses a tree that
	// would not unpack under them. Zero means DefaultLimits.
	Limits Limits
	// Warn, when set, is called for each path that is packed but rarely
	// belongs in a skill (node_modules, __pycache__, .venv, .DS_Store), in
	// packing order. Pack never prints.
	Warn func(PackWarning)
}

// PackWarning is a path Pack includes but that probably should be left
// out with .skillignore.
type PackWarning struct {
	// Path is slash-separated, relative to the skill directory.
	Path string
	// Message says why it is suspect and how to leave it out.
	Message string
}

// Validate reports options Pack would refuse.
func (o PackOptions) Validate() error {
	_, _, err := o.resolve()
	return err
}

func (o PackOptions) resolve() (Limits, time.Time, error) {
	lim, err := o.Limits.resolve()
	if err != nil {
		return Limits{}, time.Time{}, err
	}
	mt := time.Unix(0, 0)
	if !o.ModTime.IsZero() {
		s := o.ModTime.Unix()
		if s < 0 || s > maxUSTARTime {
			return Limits{}, time.Time{}, fmt.Errorf("%w: ModTime %v outside 1970..2242", ErrInvalidOptions, o.ModTime)
		}
		mt = time.Unix(s, 0)
	}
	return lim, mt, nil
}

// PackResult describes a packed skill.
type PackResult struct {
	Summary
	// Digest is "sha256:<hex>" of the bytes written to w: the OCI layer
	// digest.
	Digest string
	// Size is the number of bytes written to w.
	Size int64
}

// Pack writes dir as a reproducible gzip'd tar to w and returns its digest
// and tree hash. The same files (paths, content, executable bits) give the
// same bytes on any machine, whatever the mtimes, owners, umask or
// directory read order:
//
//   - entries are sorted in byte order of their names, which are
//     slash-separated with no "./" prefix, directories ending in "/": each
//     directory precedes its contents and each subtree is contiguous;
//   - only directories that contain a packed file are written, as git
//     keeps no empty directories;
//   - every header is PAX-format (a USTAR block, plus a PAX record only for
//     a path USTAR cannot hold) with mtime opts.ModTime, no atime or ctime,
//     uid/gid 0, empty user and group names, mode 0755 for directories and
//     files with any execute bit, 0644 for other files;
//   - gzip uses level 6, no name, no comment, mtime 0 and OS byte 255.
//
// Left out: VCS folders (.git, .hg, .svn) anywhere, and paths matched by the
// root .skillignore or the root .gitignore (gitignore syntax; an ignored
// directory's contents cannot be re-included). .skillignore itself is
// packed unless it ignores itself, so the rules travel with the skill.
// An environment file (.env, .env.local, .env.production: any .env* but
// the committed templates .env.example, .env.sample, .env.template and
// .env.dist) that is not ignored is an *EntryError (ErrSecretFile) naming
// it and how to exclude it; node_modules, __pycache__, .venv and .DS_Store
// are packed but reported to opts.Warn. A symlink, device, FIFO or
// socket that is not ignored is an *EntryError (ErrLinkEntry,
// ErrSpecialFile), as is a path Unpack would refuse under opts.Limits.
//
// Pack streams: memory does not grow with file sizes. On error, w may have
// received a partial stream.
func Pack(ctx context.Context, dir string, w io.Writer, opts PackOptions) (PackResult, error) {
	lim, mtime, err := opts.resolve()
	if err != nil {
		return PackResult{}, err
	}
	entries, err := collect(ctx, dir, packRules, lim)
	if err != nil {
		return PackResult{}, err
	}
	if opts.Warn != nil {
		for _, w := range packWarnings(entries) {
			opts.Warn(w)
		}
	}

	out := &digestWriter{w: w, h: sha256.New()}
	gz, err := gzip.NewWriterLevel(out, packLevel)
	if err != nil {
		return PackResult{}, err
	}
	gz.Header = gzip.Header{OS: gzipOSUnknown}
	tw := tar.NewWriter(gz)

	var res PackResult
	files := make([]File, 0, len(entries))
	buf := make([]byte, copyBufSize)
	h := sha256.New()
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return PackResult{}, err
		}
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     e.rel,
			Mode:     0o644,
			Size:     e.size,
			ModTime:  mtime,
			Format:   tar.FormatPAX,
		}
		if e.dir {
			hdr.Typeflag, hdr.Name, hdr.Mode, hdr.Size = tar.TypeDir, e.tarName(), 0o755, 0
		} else if e.exec {
			hdr.Mode = 0o755
		}
		if e.dir {
			if err := tw.WriteHeader(hdr); err != nil {
				return PackResult{}, fmt.Errorf("archive: %s: %w", e.rel, err)
			}
			res.Dirs++
			continue
		}
		// Open before writing the header so a vanished file fails cleanly.
		f, err := openChecked(dir, e)
		if err != nil {
			return PackResult{}, err
		}
		if err := tw.WriteHeader(hdr); err != nil {
			f.Close()
			return PackResult{}, fmt.Errorf("archive: %s: %w", e.rel, err)
		}
		h.Reset()
		err = copyExact(ctx, io.MultiWriter(tw, h), f, e, buf)
		f.Close()
		if err != nil {
			return PackResult{}, err
		}
		fe := File{Path: e.rel, Executable: e.exec}
		h.Sum(fe.SHA256[:0])
		files = append(files, fe)
		res.Files++
		res.Bytes += e.size
	}
	if err := tw.Close(); err != nil {
		return PackResult{}, fmt.Errorf("archive: %w", err)
	}
	if err := gz.Close(); err != nil {
		return PackResult{}, fmt.Errorf("archive: %w", err)
	}
	res.TreeHash = TreeHash(files)
	res.Digest = "sha256:" + hex.EncodeToString(out.h.Sum(nil))
	res.Size = out.n
	return res, nil
}

// digestWriter hashes and counts what goes to w, so the layer digest comes
// for free with the stream.
type digestWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (d *digestWriter) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	d.h.Write(p[:n])
	d.n += int64(n)
	return n, err
}
