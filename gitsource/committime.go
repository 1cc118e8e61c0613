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
	raw, err := c.commitObject(ctx, res)
	if err != nil {
		return time.Time{}, err
	}
	// The committer line ends with the time and zone after the last '>'
	// (git's own reading of it): "committer Name <mail> 1700000000 +0000".
	head, _, _ := strings.Cut(raw, "\n\n")
	for _, line := range strings.Split(head, "\n") {
		who, ok := strings.CutPrefix(line, "committer ")
		if !ok {
			continue
		}
		i := strings.LastIndexByte(who, '>')
		f := strings.Fields(who[i+1:])
		if i < 0 || len(f) != 2 {
			break
		}
		sec, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			break
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("commit %s: no committer time in the commit object", short(res.Commit))
}

// commitObject returns the resolved commit's object as git stores it,
// read once (Export reads it with the blobs) and kept in res.
func (c *Cache) commitObject(ctx context.Context, res *Resolved) (string, error) {
	if res.commit != "" {
		return res.commit, nil
	}
	if err := c.lookGit(); err != nil {
		return "", err
	}
	dir, err := c.repoDir(ctx, res.Ref)
	if err != nil {
		return "", err
	}
	raw, err := c.cmd(dir, nil, "cat-file", "commit", res.Commit).output(ctx)
	if err != nil {
		return "", err
	}
	res.commit = raw
	return raw, nil
}

// commitTree returns the id of the tree a commit object names.
func commitTree(raw string) (string, error) {
	line, _, _ := strings.Cut(raw, "\n")
	oid, ok := strings.CutPrefix(line, "tree ")
	if !ok || !fullCommit.MatchString(oid) {
		return "", fmt.Errorf("git cat-file: a commit object that names no tree: %q", line)
	}
	return oid, nil
}
