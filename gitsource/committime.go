package gitsource

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CommitTime returns the committer time of the resolved commit, read from
// the commit object in the cache. A skill that declares no version is
// built at a pseudo-version made of this time and the commit, so that a
// later commit gives a later version.
func (c *Cache) CommitTime(ctx context.Context, res *Resolved) (time.Time, error) {
	t, err := c.commitTime(ctx, res)
	if err != nil {
		return time.Time{}, &Error{Ref: res.Ref.At(res.Commit).String(), Err: err}
	}
	return t, nil
}

func (c *Cache) commitTime(ctx context.Context, res *Resolved) (time.Time, error) {
	if err := c.lookGit(); err != nil {
		return time.Time{}, err
	}
	dir, err := c.repoDir(ctx, res.Ref)
	if err != nil {
		return time.Time{}, err
	}
	out, err := c.cmd(dir, nil, "show", "-s", "--format=%ct", res.Commit).output(ctx)
	if err != nil {
		return time.Time{}, err
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("git show %s: unexpected commit time %q", short(res.Commit), strings.TrimSpace(out))
	}
	return time.Unix(sec, 0).UTC(), nil
}
