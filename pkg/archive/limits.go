package archive

import (
	"fmt"
)

// Limits bounds what [Unpack] accepts and what [Pack] and [TreeHashDir]
// agree to produce, so that anything packed with the same Limits unpacks.
//
// The zero Limits means [DefaultLimits]. Any other value must set every
// field to a positive number; [Limits.Validate] says which one is wrong.
type Limits struct {
	// MaxEntries bounds the number of files and directories, directories
	// implied by a file's path included.
	MaxEntries int
	// MaxTotalBytes bounds the sum of the file sizes.
	MaxTotalBytes int64
	// MaxFileBytes bounds the size of any one file.
	MaxFileBytes int64
	// MaxPathBytes bounds the length in bytes of a slash-separated path.
	MaxPathBytes int
	// MaxDepth bounds the number of components of a path ("a/b" is 2).
	MaxDepth int
	// MaxRatio bounds decompressed/compressed bytes of the stream once more
	// than RatioFloorBytes have been decompressed. Deflate tops out near
	// 1032:1, so a bound near that catches almost nothing; text compresses
	// 3-20:1, which leaves a wide margin below the default.
	MaxRatio int
	// RatioFloorBytes is the decompressed size below which the ratio is not
	// checked: small archives of repetitive text are legitimately extreme.
	RatioFloorBytes int64
}

// DefaultLimits returns the limits used when none are given: 10,000
// entries, 1 GiB in all, 512 MiB per file, 1,024-byte paths, depth 32,
// and a 200:1 compression ratio checked past 8 MiB.
func DefaultLimits() Limits {
	return Limits{
		MaxEntries:      10_000,
		MaxTotalBytes:   1 << 30,
		MaxFileBytes:    512 << 20,
		MaxPathBytes:    1024,
		MaxDepth:        32,
		MaxRatio:        200,
		RatioFloorBytes: 8 << 20,
	}
}

// Validate reports a Limits whose fields are not all positive or that
// contradict each other. The zero Limits is valid: it means DefaultLimits.
func (l Limits) Validate() error {
	if l == (Limits{}) {
		return nil
	}
	bad := func(field string, v int64) error {
		return fmt.Errorf("%w: Limits.%s must be positive, got %d", ErrInvalidOptions, field, v)
	}
	switch {
	case l.MaxEntries <= 0:
		return bad("MaxEntries", int64(l.MaxEntries))
	case l.MaxTotalBytes <= 0:
		return bad("MaxTotalBytes", l.MaxTotalBytes)
	case l.MaxFileBytes <= 0:
		return bad("MaxFileBytes", l.MaxFileBytes)
	case l.MaxPathBytes <= 0:
		return bad("MaxPathBytes", int64(l.MaxPathBytes))
	case l.MaxDepth <= 0:
		return bad("MaxDepth", int64(l.MaxDepth))
	case l.MaxRatio <= 0:
		return bad("MaxRatio", int64(l.MaxRatio))
	case l.RatioFloorBytes <= 0:
		return bad("RatioFloorBytes", l.RatioFloorBytes)
	case l.MaxFileBytes > l.MaxTotalBytes:
		return fmt.Errorf("%w: Limits.MaxFileBytes (%d) exceeds MaxTotalBytes (%d)", ErrInvalidOptions, l.MaxFileBytes, l.MaxTotalBytes)
	case l.MaxDepth > l.MaxPathBytes:
		return fmt.Errorf("%w: Limits.MaxDepth (%d) exceeds MaxPathBytes (%d)", ErrInvalidOptions, l.MaxDepth, l.MaxPathBytes)
	case l.MaxTotalBytes > 1<<50 || l.MaxEntries > 1<<30 || l.MaxPathBytes > 1<<20:
		// Keeps streamCap's arithmetic far from overflow.
		return fmt.Errorf("%w: Limits too large", ErrInvalidOptions)
	}
	return nil
}

// resolve validates l and substitutes the defaults for the zero value.
func (l Limits) resolve() (Limits, error) {
	if err := l.Validate(); err != nil {
		return Limits{}, err
	}
	if l == (Limits{}) {
		return DefaultLimits(), nil
	}
	return l, nil
}

// streamCap bounds the decompressed tar stream: the file contents plus, per
// entry, a header, padding and a PAX header holding a long path, plus slack
// for trailing zero records. Without it, headers, global PAX records or data
// after the end-of-archive marker would be an unbounded decompression.
func (l Limits) streamCap() int64 {
	perEntry := int64(4096 + 2*l.MaxPathBytes)
	return l.MaxTotalBytes + int64(l.MaxEntries)*perEntry + 1<<20
}
