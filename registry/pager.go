package registry

import (
	"fmt"
	"slices"
)

// pageGuard bounds one paginated listing. oras-go follows a registry's
// Link rel="next" for as long as the registry sends one; a registry whose
// link points back at an earlier page would keep a command listing
// forever. An honest listing never repeats an entry across pages, so a
// repeat is a loop; and the pages are bounded (Limits.MaxPages) for a
// registry that invents new pages without end.
type pageGuard struct {
	registry, what string
	max, pages     int
	seen           map[string]struct{}
}

// pager returns a guard for one listing of what on registry.
func (c *Client) pager(registry, what string) *pageGuard {
	return &pageGuard{registry: registry, what: what, max: c.opts.Limits.MaxPages, seen: map[string]struct{}{}}
}

// page records one page, refusing a loop or one page too many.
func (g *pageGuard) page(items []string) error {
	g.pages++
	if g.pages > g.max {
		return fmt.Errorf("%w: registry %s: %s runs past %d pages (Link rel=\"next\"); stopped there", ErrHostile, g.registry, g.what, g.max)
	}
	for _, it := range slices.Compact(slices.Sorted(slices.Values(items))) {
		if _, ok := g.seen[it]; ok {
			return fmt.Errorf("%w: registry %s: %s loops: page %d repeats %q from an earlier page (Link rel=\"next\" points back); stopped there", ErrHostile, g.registry, g.what, g.pages, it)
		}
		g.seen[it] = struct{}{}
	}
	return nil
}
