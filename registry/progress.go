package registry

import (
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// ProgressState says what happened to a blob.
type ProgressState int

const (
	// ProgressStarted is sent before the first byte moves.
	ProgressStarted ProgressState = iota
	// ProgressRunning is sent as bytes move.
	ProgressRunning
	// ProgressDone is sent when the blob is complete and verified.
	ProgressDone
	// ProgressSkipped is sent when the blob was already there (in the
	// target when pushing, in the cache when pulling).
	ProgressSkipped
)

// Progress describes one blob moving. Bytes counts what moved so far in
// the current attempt; a retried transfer starts again from zero.
type Progress struct {
	// Op is "push" or "pull".
	Op string
	// Location is the repository.
	Location Location
	// Descriptor is the blob.
	Descriptor ocispec.Descriptor
	// Title is a human name for the blob: the layer's file name, "config"
	// or "manifest".
	Title string
	// State is what happened.
	State ProgressState
	// Bytes is how many bytes moved; Descriptor.Size is the total.
	Bytes int64
}

// ProgressFunc receives progress; see Options.Progress.
type ProgressFunc func(Progress)

// progressEvery is the granularity of ProgressRunning reports.
const progressEvery = 32 << 10

// progressReader reports bytes read through fn, at most every
// progressEvery bytes.
type progressReader struct {
	r        io.Reader
	fn       ProgressFunc
	p        Progress
	reported int64
}

func (pr *progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.p.Bytes += int64(n)
	if pr.p.Bytes-pr.reported >= progressEvery {
		pr.reported = pr.p.Bytes
		pr.p.State = ProgressRunning
		pr.fn(pr.p)
	}
	return n, err
}

// track wraps r so that fn sees its progress; with no fn it returns r.
func track(r io.Reader, fn ProgressFunc, p Progress) io.Reader {
	if fn == nil {
		return r
	}
	p.State = ProgressStarted
	fn(p)
	return &progressReader{r: r, fn: fn, p: p}
}

// report sends one event when fn is set.
func report(fn ProgressFunc, p Progress, state ProgressState, n int64) {
	if fn == nil {
		return
	}
	p.State, p.Bytes = state, n
	fn(p)
}

// blobTitle names a blob for progress: the title annotation, else kind.
func blobTitle(desc ocispec.Descriptor, kind string) string {
	if t := desc.Annotations[ocispec.AnnotationTitle]; t != "" {
		return t
	}
	return kind
}
