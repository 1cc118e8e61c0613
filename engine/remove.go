package engine

import (
	"context"
	"slices"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/resolve"
)

// RemoveRequest is one removal of skills: from a project (the Engine's
// project manifest is found, its Target names no roots, and NoSave is
// not set), else of installed copies.
type RemoveRequest struct {
	// Names are the skills to remove; in a project, as the manifest names
	// them or their short names.
	Names []string
	// Options are install.Remove's (prune, force, dry run); in a project,
	// Prune is always on (what only the removed skills needed goes with
	// them).
	Options install.RemoveOptions
	// NoSave removes installed copies only, leaving a project's manifest
	// and lock as they are.
	NoSave bool
}

// RemoveResult is what Remove did.
type RemoveResult struct {
	// Roots are the roots that held some of the skills, with what each
	// lost.
	Roots []install.Removal
	// Manifest is the project's manifest as it was read (its File the
	// path it is written to), nil outside a project.
	Manifest *resolve.Manifest
	// Removed are the project manifest's requirements removed, as it
	// wrote them; the lock keeps the entries the remaining skills reach.
	Removed []string
}

// Remove removes r.Names, as `skillpm remove` does.
//
// In a project (the Engine's project manifest is found, no roots are
// named and NoSave is not set), it takes them out of the manifest, keeps
// in the lock only what the remaining skills reach, removes them and
// what nothing else needs from the project's roots, and then writes the
// manifest and the lock together (removeProject); a name the manifest
// lacks is a *resolve.NotInProjectError.
//
// Otherwise it uninstalls r.Names, root by root, each root in one
// transaction: from the roots of the Engine's Target, or without one,
// from every host's roots that hold any of them (each root losing those
// it holds); names no root holds are an *install.NotInstalledError. The
// result is never nil then: on a failure it holds the removals done
// before it.
func (e *Engine) Remove(ctx context.Context, r RemoveRequest) (*RemoveResult, error) {
	if !r.NoSave && e.inProject() {
		return e.removeProject(ctx, r)
	}
	out := &RemoveResult{}
	from, all, err := roots.Holding(e.env, e.opts.Target, r.Names)
	if err != nil {
		return out, targetErr(err)
	}
	if all && len(from) == 0 {
		return out, install.NotInstalledAnywhere(e.env, r.Names)
	}
	// Links go before the copies they point to, which go with their last
	// link or are refused while linked.
	from = slices.Clone(from)
	slices.SortStableFunc(from, func(a, b install.Root) int {
		la, lb := install.HoldsLinks(a.Dir), install.HoldsLinks(b.Dir)
		switch {
		case la && !lb:
			return -1
		case lb && !la:
			return 1
		}
		return 0
	})
	opts := r.Options
	if opts.LockWait == 0 {
		opts.LockWait = e.opts.LockWait
	}
	opts.AgentsRoots = install.AgentsRoots(e.env)
	for _, root := range from {
		here := r.Names
		if all {
			// Every root that holds any of them loses what it holds.
			rec, err := install.ReadReceipts(root.Dir)
			if err != nil {
				return out, err
			}
			here = slices.DeleteFunc(slices.Clone(r.Names), func(n string) bool { _, ok := rec.Get(n); return !ok })
			if len(here) == 0 {
				continue // a copy that went with its last link
			}
		}
		res, err := install.Remove(ctx, root.Dir, here, opts)
		if err != nil {
			return out, err
		}
		out.Roots = append(out.Roots, install.Removal{Root: root, RemoveResult: res})
	}
	return out, nil
}
