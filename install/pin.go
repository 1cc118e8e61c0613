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
// are left to the registry. A pinned version whose tag was since moved
// to other content keeps the pinned bytes (nothing is replaced without
// AllowRepublished, which pins nothing); a machine without the pinned
// manifest in its cache reads the tag and refuses the move (ErrRepublished).
func pinLocked(ctx context.Context, c *registry.Client, prev *resolve.Lockfile) {
	if prev != nil {
		pin(ctx, c, prev.Skills)
	}
}

// pinReceipts pins what rec records as installed (see pinLocked): an
// update re-resolves every skill it updates, and the versions installed
// are the likeliest answers.
func pinReceipts(ctx context.Context, c *registry.Client, rec *Receipts) {
	var ls []resolve.LockedSkill
	for _, r := range rec.Skills {
		if r.Source != "" {
			ls = append(ls, resolve.LockedSkill{Name: r.Name, Version: r.Version, Source: r.Source, Digest: r.Digest})
		}
	}
	pin(ctx, c, ls)
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
