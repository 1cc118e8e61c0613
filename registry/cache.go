package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// cache is the content-addressed cache: <dir>/blobs/<alg>/<hex>, the blob
// layout of an OCI image layout. Entries are written to a temporary file
// beside their final name and renamed once verified, so a reader never
// sees a partial blob; every read verifies again, so a corrupted entry is
// dropped and fetched anew rather than trusted.
type cache struct {
	dir string
}

// verifyError is content that failed its digest or size check while being
// stored: the source's fault, never retried.
type verifyError struct{ err error }

func (e *verifyError) Error() string { return e.err.Error() }
func (e *verifyError) Unwrap() error { return e.err }

func (c *cache) path(d digest.Digest) (string, error) {
	if err := d.Validate(); err != nil {
		return "", fmt.Errorf("%w: digest %q: %v", ErrInvalidArtifact, d, err)
	}
	return filepath.Join(c.dir, ocispec.ImageBlobsDir, d.Algorithm().String(), d.Encoded()), nil
}

// open returns the cached blob, verified against desc and positioned at
// its start, or nil when it is not cached (or was corrupt and removed).
func (c *cache) open(ctx context.Context, desc ocispec.Descriptor) (*os.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := c.path(desc.Digest)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("content cache: %w", err)
	}
	if err := verifyFile(f, desc); err != nil {
		f.Close()
		os.Remove(p)
		return nil, nil
	}
	return f, nil
}

func verifyFile(f *os.File, desc ocispec.Descriptor) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() != desc.Size {
		return content.ErrMismatchedDigest
	}
	vr := content.NewVerifyReader(f, desc)
	if _, err := io.Copy(io.Discard, vr); err != nil {
		return err
	}
	if err := vr.Verify(); err != nil {
		return err
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// put stores r's content as desc, reading no more than desc.Size bytes
// (plus one, to detect trailing data), and returns the stored blob open at
// its start: verified as it was written, so it is not read twice. A digest
// or size mismatch is a *verifyError; anything else is the reader's or the
// disk's error.
func (c *cache) put(ctx context.Context, desc ocispec.Descriptor, r io.Reader) (*os.File, error) {
	p, err := c.path(desc.Digest)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("content cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-"+desc.Digest.Encoded()+"-*")
	if err != nil {
		return nil, fmt.Errorf("content cache: %w", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	vr := content.NewVerifyReader(ctxReader{ctx: ctx, r: r}, desc)
	if _, err := io.Copy(tmp, vr); err != nil {
		return nil, err
	}
	if err := vr.Verify(); err != nil {
		if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, content.ErrTrailingData) {
			return nil, &verifyError{err: err}
		}
		return nil, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("content cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return nil, fmt.Errorf("content cache: %w", err)
	}
	done = true
	return tmp, nil
}

// ctxReader stops a copy when ctx is done, so a local read (a layout on a
// slow disk) is as cancellable as a network one.
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
