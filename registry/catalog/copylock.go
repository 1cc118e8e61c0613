package catalog

import (
	"context"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
)

// CopyLock copies exactly the skills of lock, each at its locked version
// and digest with every referrer, from their sources into dst, a directory
// of OCI layouts: see [registry.Client.CopyPinned], which does the copy.
func CopyLock(ctx context.Context, c *registry.Client, lock *resolve.Lockfile, dst registry.Source, opts registry.CopyLockOptions) (*registry.MirrorResult, error) {
	pins := make([]registry.Pinned, len(lock.Skills))
	for i, s := range lock.Skills {
		pins[i] = registry.Pinned{Repository: s.Source, Name: s.Name, Version: s.Version, Digest: s.Digest}
	}
	return c.CopyPinned(ctx, pins, dst, opts)
}
