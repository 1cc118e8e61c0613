package install

import (
	"context"

	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
)

// pinLocked tells c the manifest digest of each version prev records (a
// project's lock, or the receipts an update starts from), so that the
// solver reads those versions' requirements from the content cache rather
// than asking the registry for their tags: an update check then costs the
// tag lists and nothing more per unchanged skill. Entries it cannot use
// are left to the registry.
func pinLocked(ctx context.Context, c *registry.Client, prev *resolve.Lockfile) {
	if prev == nil {
		return
	}
	for _, ls := range prev.Skills {
		d, err := digest.Parse(ls.Digest)
		if err != nil {
			continue
		}
		repo, err := OpenLocked(c, ls)
		if err != nil {
			continue
		}
		repo.Pin(ctx, ls.Version, d)
	}
}
