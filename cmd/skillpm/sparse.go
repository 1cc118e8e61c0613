package main

import (
	"context"
	"fmt"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/sign"
)

// refreshSparse re-describes names in src's sparse index after publish or
// mirror wrote them, where src has an index (or create is set), and signs
// it with sopts when a key is given. A failure is a warning, not an
// error: the skills are there, and installs fall back to the registry
// (with a warning) while the index is stale or unsigned.
func refreshSparse(ctx context.Context, g *globals, client *registry.Client, src registry.Source, names []string, create bool, sopts *sign.SignOptions) {
	if len(names) == 0 {
		return
	}
	res, err := sparse.Update(ctx, client, src, sparse.UpdateOptions{Names: names, IfExists: !create})
	if err != nil {
		fmt.Fprintf(g.stderr, "warning: the sparse index of %s was not updated (installs read the registry until skillpm index build %s): %v\n", src, src, err)
		return
	}
	if res.Descriptor.Digest == "" || len(res.Changed)+len(res.Removed) == 0 {
		return
	}
	signed := ""
	if sopts != nil && sopts.Key != nil {
		repo, err := client.Repository(src, sparse.Repository)
		if err == nil {
			_, err = signAttach(ctx, repo, res.Descriptor, sparse.Tag, *sopts)
		}
		if err != nil {
			fmt.Fprintf(g.stderr, "warning: the sparse index %s@%s was updated but not signed: %v\n", res.Location, res.Descriptor.Digest, err)
			return
		}
		signed = ", signed"
	} else {
		fmt.Fprintf(g.stderr, "warning: the sparse index %s@%s was updated unsigned: installs ignore it until it is signed (skillpm index build %s --sign --key K)\n", res.Location, res.Descriptor.Digest, src)
	}
	if !g.quiet && !g.json() {
		fmt.Fprintf(g.stderr, "updated the sparse index %s:%s (%s%s)\n", res.Location, sparse.Tag, res.Descriptor.Digest, signed)
	}
}
