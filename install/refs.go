package install

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
)

// FromRefs turns references named by a user (on the command line or in an
// API request) into a manifest, adding the skills already asked for in
// the first root so the solve keeps them, and a lock of what is installed
// there so their versions are preferred. References that cannot be
// installed by name (a local directory, a digest) wrap ErrUnsupportedRef;
// malformed ones wrap source.ErrInvalidRef.
func FromRefs(file string, refs []string, roots []Root) (*resolve.Manifest, *resolve.Lockfile, error) {
	m := &resolve.Manifest{File: file}
	asked := map[string]bool{}
	for _, a := range refs {
		ref, err := source.ParseRef(a)
		if err != nil {
			return nil, nil, err
		}
		switch ref.Kind {
		case source.RefDir:
			return nil, nil, fmt.Errorf("%w: %s: installing a local directory is not supported yet; publish it (skillpm publish %s) and install it by name", ErrUnsupportedRef, a, a)
		case source.RefGit:
			return nil, nil, fmt.Errorf("%w: %s: a git reference; name a skill in a registry", ErrUnsupportedRef, a)
		}
		rng := resolve.AnyRange
		switch ref.Selector.Kind {
		case source.SelectVersion, source.SelectRange:
			rng = ref.Selector.Raw
		case source.SelectDigest:
			return nil, nil, fmt.Errorf("%w: %s: install by digest is not supported; name a version", ErrUnsupportedRef, a)
		}
		ref.Selector = source.Selector{}
		m.Skills = append(m.Skills, resolve.Requirement{Name: ref.String(), Range: rng})
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
