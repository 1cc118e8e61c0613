package registry

import (
	"context"
	"io"
	"log/slog"
)

// resumeReader reads a blob transfer and, when it breaks midway (a reset,
// a stall) and the registry takes Range requests (oras-go then hands out
// a body that can seek), carries on from the byte it broke at instead of
// starting over: a large layer on a flaky link is then not downloaded
// once per failure. Whatever is pieced together is still verified
// against the digest as it is written to the cache (cache.put); a
// registry that answers the Range with other bytes fails that check.
type resumeReader struct {
	ctx     context.Context
	r       *Repository
	rc      io.ReadCloser
	off     int64
	resumes int
}

func (rr *resumeReader) Read(p []byte) (int, error) {
	for {
		n, err := rr.rc.Read(p)
		rr.off += int64(n)
		if err == nil || err == io.EOF || !isTransient(err) || rr.ctx.Err() != nil {
			return n, err
		}
		s, ok := rr.rc.(io.Seeker)
		pol := rr.r.c.opts.Retry
		if !ok || rr.resumes >= pol.retries(rr.ctx) {
			return n, err
		}
		wait := pol.backoff(rr.resumes)
		rr.resumes++
		rr.r.c.log().LogAttrs(rr.ctx, slog.LevelInfo, "resuming",
			slog.String("registry", rr.r.loc.Registry), slog.String("repository", rr.r.loc.Repository),
			slog.String("cause", err.Error()), slog.Int64("at_byte", rr.off), slog.Duration("after", wait))
		if serr := sleep(rr.ctx, wait); serr != nil {
			return n, serr
		}
		// oras-go's body seeks only where it is not already: to the end
		// first (which drops the broken body), then back to where the
		// transfer broke, which asks for the rest with a Range.
		if _, serr := s.Seek(0, io.SeekEnd); serr != nil {
			return n, err
		}
		if _, serr := s.Seek(rr.off, io.SeekStart); serr != nil {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
	}
}

func (rr *resumeReader) Close() error { return rr.rc.Close() }
