package install

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
)

// FromRefs turns references named by a user (on the command line or in an
// API request) into a manifest, adding the skills already asked for in
// the first root so the solve keeps them, and a lock of what is installed
// there so their versions are preferred. References that cannot be
// installed by name (a local directory, a digest) wrap ErrUnsupportedRef;
// malformed ones wrap registry.ErrInvalidRef.
func FromRefs(file string, refs []string, roots []Root) (*resolve.Manifest, *resolve.Lockfile, error) {
	m := &resolve.Manifest{File: file}
	asked := map[string]bool{}
	for _, a := range refs {
		ref, err := registry.ParseRef(a)
		if err != nil {
			return nil, nil, err
		}
		if ref.Kind == registry.KindDir {
			return nil, nil, fmt.Errorf("%w: %s: installing a local directory is not supported yet; publish it (skillpm publish %s) and install it by name", ErrUnsupportedRef, a, a)
		}
		name := ref.Name
		if ref.Source != "" {
			name = strings.TrimSuffix(ref.Source, "/") + "/" + ref.Name
			if ref.Kind == registry.KindLayout && !strings.HasPrefix(name, registry.LayoutPrefix) {
				name = registry.LayoutPrefix + name
			}
		}
		rng := resolve.AnyRange
		switch ref.Selector.Kind {
		case registry.SelectVersion, registry.SelectRange:
			rng = ref.Selector.Raw
		case registry.SelectDigest:
			return nil, nil, fmt.Errorf("%w: %s: install by digest is not supported; name a version", ErrUnsupportedRef, a)
		}
		m.Skills = append(m.Skills, resolve.Requirement{Name: name, Range: rng})
		asked[ref.Name] = true
	}
	prev := &resolve.Lockfile{Version: resolve.LockVersion}
	if len(roots) > 0 {
		rec, err := ReadReceipts(roots[0].Dir)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range rec.Skills {
			if r.Source == "" {
				continue
			}
			prev.Skills = append(prev.Skills, resolve.LockedSkill{Name: r.Name, Version: r.Version, Source: r.Source, Digest: r.Digest, Tree: r.Tree, Requested: r.Requested, Dependencies: r.Dependencies})
			if r.Explicit() && !asked[r.Name] {
				name := r.Name
				if !strings.HasPrefix(r.Source, resolve.EmbeddedSource+"/") {
					name = r.Source
				}
				m.Skills = append(m.Skills, resolve.Requirement{Name: name, Range: r.Requested})
			}
		}
	}
	return m, prev, nil
}
