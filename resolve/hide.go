package resolve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
)

// HideFunc returns which of vs, the published versions of solver name
// key, a new resolution must not choose (cargo's yanked versions, those
// an advisory withdraws), each with why. It is asked once per name a
// resolution reaches; an error fails the resolution, since choosing a
// version that may be withdrawn is not a decision to make on a failed
// lookup.
type HideFunc func(ctx context.Context, key string, vs []*semver.Version) ([]Hidden, error)

// Hidden is a version a HideFunc withholds, and why ("yanked by its
// publisher"), which a failed resolution's explanation repeats.
type Hidden struct {
	Version *semver.Version
	Why     string
}

// hiding is a Catalog whose Versions leave out what hide returns, except
// the version the previous lock pins: a lock keeps its yanked version
// (as cargo's does), so that a yank never breaks a build that had it.
type hiding struct {
	Catalog
	hide   HideFunc
	locked map[string]*semver.Version
	// hidden records what was withheld, to explain a failed resolution.
	mu     *sync.Mutex
	hidden map[string][]Hidden
}

func newHiding(cat Catalog, hide HideFunc, locked map[string]*semver.Version) hiding {
	return hiding{Catalog: cat, hide: hide, locked: locked, mu: &sync.Mutex{}, hidden: map[string][]Hidden{}}
}

// explain adds to a failed resolution's explanation the versions of the
// skills it names that were withheld: "no versions match 1.1.0" alone
// would hide that 1.1.0 exists.
func (h hiding) explain(nse *NoSolutionError) {
	h.mu.Lock()
	defer h.mu.Unlock()
	keys := make([]string, 0, len(h.hidden))
	for k := range h.hidden {
		if strings.Contains(nse.Explanation, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, hv := range h.hidden[k] {
			nse.Explanation += fmt.Sprintf("\n\n%s %s: %s, so no new resolution chooses it.", k, hv.Version.Original(), hv.Why)
		}
	}
}

func (h hiding) Versions(ctx context.Context, key string) ([]*semver.Version, error) {
	vs, err := h.Catalog.Versions(ctx, key)
	if err != nil || len(vs) == 0 {
		return vs, err
	}
	hidden, err := h.hide(ctx, key, vs)
	if err != nil || len(hidden) == 0 {
		return vs, err
	}
	keep := h.locked[key]
	h.mu.Lock()
	h.hidden[key] = slices.DeleteFunc(slices.Clone(hidden), func(hv Hidden) bool { return keep != nil && hv.Version.Equal(keep) })
	h.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(vs), func(v *semver.Version) bool {
		if keep != nil && v.Equal(keep) {
			return false
		}
		return slices.ContainsFunc(hidden, func(hv Hidden) bool { return hv.Version.Equal(v) })
	}), nil
}
