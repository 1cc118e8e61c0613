package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/source"
)

// CopyLockOptions controls [Client.CopyPinned].
type CopyLockOptions struct {
	// OnVersion, when set, is called once per skill copied.
	OnVersion func(MirroredVersion)
}

// Pinned is one skill at the version and digest a lock pins it to.
type Pinned struct {
	// Repository is the canonical repository ("embedded/x",
	// "oci-layout:/abs/x", "host/ns/x").
	Repository string
	// Name, Version and Digest identify the version.
	Name, Version, Digest string
}

// CopyPinned copies exactly the pinned skills (each at its version and
// digest, with every referrer: signatures, countersignatures, the signed
// status a yank or a deprecation attaches, and its status tag) from their
// sources into dst, a directory of OCI layouts, for air-gapped installs
// and OEM images (the CLI's `skillpm bundle`, through the resolver's lock):
// `skillpm install --from oci-layout:DIR` reads it with no network. (A
// [Bundle] is a Sigstore bundle attached to a manifest; this is not one.)
// A tag whose digest is no longer the pinned one is an error
// (ErrImmutable); so is a destination already holding other skills, or two
// pinned skills with one name, since a bundle is one namespace.
func (c *Client) CopyPinned(ctx context.Context, pins []Pinned, dst Source, opts CopyLockOptions) (*MirrorResult, error) {
	want := map[string]bool{}
	for _, s := range pins {
		if want[s.Name] {
			return nil, fmt.Errorf("%w: two locked skills are named %s; a bundle holds one per name", ErrInvalidOptions, s.Name)
		}
		want[s.Name] = true
	}
	if n, ok := dst.(Names); ok {
		have, err := n.Names(ctx)
		if err != nil {
			return nil, err
		}
		var other []string
		for _, h := range have {
			if !want[h] {
				other = append(other, h)
			}
		}
		if len(other) > 0 {
			return nil, fmt.Errorf("%w: %s already holds other skills (%s): bundle into an empty directory", ErrInvalidOptions, dst, strings.Join(other, ", "))
		}
	}
	res := &MirrorResult{To: dst}
	for _, s := range pins {
		src, err := c.lockSource(s.Repository, s.Name)
		if err != nil {
			return nil, err
		}
		repo, err := c.Repository(src, s.Name)
		if err != nil {
			return nil, err
		}
		cp, err := c.openCopy(ctx, repo, dst)
		if err != nil {
			return nil, err
		}
		mv := cp.version(ctx, s.Version, s.Digest, MirrorOptions{})
		if mv.Status == MirrorCopied || mv.Status == MirrorPresent {
			// The version's status (yanked, deprecated) travels with it,
			// as a mirror carries it: an image installed from the bundle
			// offline is checked against it.
			if err := cp.statusTag(ctx, s.Version); err != nil {
				mv.Status, mv.Err = MirrorFailed, err
			}
		}
		cp.release()
		if opts.OnVersion != nil {
			opts.OnVersion(mv)
		}
		res.Versions = append(res.Versions, mv)
		if mv.Status == MirrorFailed {
			return res, fmt.Errorf("bundling %s@%s: %w", s.Name, s.Version, mv.Err)
		}
	}
	return res, nil
}

// lockSource opens the source of a lock entry's canonical repository
// ("embedded/x", "oci-layout:/abs/x", "host/ns/x").
func (c *Client) lockSource(repository, name string) (Source, error) {
	src, ok := strings.CutSuffix(repository, "/"+name)
	if !ok {
		return nil, fmt.Errorf("%w: lock source %q does not end in /%s", ErrInvalidRef, repository, name)
	}
	if src == source.Embedded {
		return c.Embedded(), nil
	}
	spec, err := source.Parse(src)
	if err != nil {
		return nil, err
	}
	return c.OpenSource(spec)
}
