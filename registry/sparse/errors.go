package sparse

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// Sentinel errors. Errors returned by this package wrap one of these (or
// one of package registry's), so callers classify them with errors.Is.
var (
	// ErrNoIndex reports a source that holds no sparse index.
	ErrNoIndex = errdef.New(errdef.NotFound, "the source has no sparse index")

	// ErrUntrusted reports an index no signature verifies for, or one
	// whose signers no rule of the trust policy names.
	ErrUntrusted = errdef.New(errdef.Trust, "the sparse index is not signed by a trusted identity")

	// ErrUnsigned reports an index with no signature attached at all; it
	// wraps ErrUntrusted too. It is what index build writes without
	// --sign: installs ignore it, and need not say so each time.
	ErrUnsigned = errdef.New(errdef.Trust, "the sparse index is unsigned")

	// ErrStale reports an index that does not list a version the registry
	// holds (published after the index was written), or lists one the
	// registry no longer tags.
	ErrStale = errdef.New(errdef.Registry, "the sparse index is stale")

	// ErrLies reports an index entry that disagrees with the manifest it
	// names: another skill or version, another layer, other requirements.
	// See [*LieError].
	ErrLies = errdef.New(errdef.Trust, "the sparse index disagrees with the registry")

	// ErrInvalidIndex reports an index artifact or document that breaks
	// the format (docs/sparse-index.md).
	ErrInvalidIndex = errdef.New(errdef.Validation, "invalid sparse index")
)

// LieError names an index entry that the bytes it points at contradict:
// the skill and version, what the index states and what landed.
type LieError struct {
	// Skill and Version are the entry's.
	Skill, Version string
	// What is the field that differs ("manifest", "layer", "requires", …).
	What string
	// Index is what the index states; Registry what the registry holds.
	Index, Registry string
}

func (e *LieError) Error() string {
	return fmt.Sprintf("%s@%s: %v: the index states %s %s, the registry holds %s; the namespace's maintainer rebuilds the index",
		e.Skill, e.Version, ErrLies, e.What, e.Index, e.Registry)
}

// Unwrap returns ErrLies.
func (e *LieError) Unwrap() error { return ErrLies }
