package install

import (
	"context"

	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
)

// pinLocked tells c the manifest digest of each version prev (a project's
// lock, or what the receipts record for the skills named) records, so
// that the solver reads those versions' requirements from the content
// cache rather than asking the registry for their tags. Entries it cannot
// use are left to the registry. A pinned version whose tag was since
// moved keeps the pinned bytes: install never replaces them without
// AllowRepublished, which pins nothing. update does not pin: it reads the
// installed versions' tags and refuses a moved one (ErrRepublished).
func pinLocked(ctx context.Context, c *registry.Client, prev *resolve.Lockfile) {
	if prev != nil {
		pin(ctx, c, prev.Skills)
	}
}

func pin(ctx context.Context, c *registry.Client, skills []resolve.LockedSkill) {
	for _, ls := range skills {
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
