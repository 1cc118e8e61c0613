package install

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/skillpm/skillpm/pkg/archive"
)

// RemoveOptions controls Remove.
type RemoveOptions struct {
	// Prune also removes dependencies that no remaining skill needs and
	// that were not asked for by name.
	Prune bool
	// Force removes a skill even though other installed skills need it,
	// or its files were edited by hand since it was installed.
	Force bool
	// DryRun computes the plan and changes nothing.
	DryRun bool
	// LockWait bounds the wait for another skillpm; 0 means DefaultLockWait.
	LockWait time.Duration
	// AgentsRoots are where the copies of removed links may be
	// (AgentsRoots); a link record naming a copy elsewhere is refused
	// before anything is removed.
	AgentsRoots []string
	// hook is passed to the transaction (crash-safety tests; not API).
	hook func(step string) error
}

// RemoveResult says what was (or would be) removed.
type RemoveResult struct {
	Removed []string `json:"removed"`
	// Broken lists skills left with a missing dependency by --force.
	Broken []string `json:"broken,omitempty"`
	// Notes say what became of the copies removed links pointed to.
	Notes []string `json:"notes,omitempty"`
}

// Removal is what one root lost: the root and its removal's result.
type Removal struct {
	Root Root
	*RemoveResult
}

// DependedUponError lists who still needs a skill.
type DependedUponError struct {
	Name       string
	Dependents []string
}

func (e *DependedUponError) Error() string {
	return fmt.Sprintf("cannot remove %s: needed by %s; remove those first",
		e.Name, strings.Join(e.Dependents, ", "))
}

// Unwrap makes errors.Is(err, ErrDependedUpon) true.
func (e *DependedUponError) Unwrap() error { return ErrDependedUpon }

// Remove uninstalls skills from root as one transaction: all of them, or
// none when any is refused. A link (install --link) is removed as a link;
// then, in its own transaction under the copy's root lock, the copy it
// pointed to forgets it and goes too when it was there only for links and
// none is left (RemoveResult.Notes says so). A copy that links still
// point to is refused unless opts.Force, which leaves them dangling.
func Remove(ctx context.Context, root string, names []string, opts RemoveOptions) (*RemoveResult, error) {
	res, links, err := removeIn(ctx, root, names, opts)
	if err != nil || opts.DryRun {
		return res, err
	}
	// The link's root is unlocked by now: the copy's root is locked alone.
	for _, n := range slices.Sorted(maps.Keys(links)) {
		what, err := unlinked(ctx, filepath.Join(root, n), links[n], opts.Force, opts.LockWait, opts.hook)
		if err != nil {
			return res, fmt.Errorf("%s: the link is removed, but updating the copy it pointed to failed: %w", filepath.Join(root, n), err)
		}
		if what != "" {
			res.Notes = append(res.Notes, what)
		}
	}
	return res, nil
}

// removeIn is Remove in root alone; it returns, per removed link, the
// copy it pointed to.
func removeIn(ctx context.Context, root string, names []string, opts RemoveOptions) (*RemoveResult, map[string]string, error) {
	lock, rec, err := lockAndRead(ctx, root, opts.LockWait)
	if err != nil {
		return nil, nil, err
	}
	defer lock.Unlock()
	if err := rec.checkLinks(filepath.Join(root, stateDir, receiptsFile), opts.AgentsRoots); err != nil {
		return nil, nil, err
	}
	gone := map[string]bool{}
	for _, n := range names {
		if _, ok := rec.Get(n); !ok {
			if _, err := os.Stat(filepath.Join(root, n)); err == nil {
				return nil, nil, fmt.Errorf("%s in %s was not installed by skillpm (no receipt); delete the directory by hand if you mean it: %w", n, root, ErrNotInstalled)
			}
			return nil, nil, fmt.Errorf("%s is not installed in %s: %w", n, root, ErrNotInstalled)
		}
		gone[n] = true
	}
	if opts.Prune {
		// Remove dependencies transitively once nobody left needs them.
		for changed := true; changed; {
			changed = false
			for _, r := range rec.Skills {
				if gone[r.Name] || r.Explicit() {
					continue
				}
				needed := false
				for _, o := range rec.Skills {
					if _, dep := o.Dependencies[r.Name]; dep && !gone[o.Name] {
						needed = true
						break
					}
				}
				if !needed {
					gone[r.Name], changed = true, true
				}
			}
		}
	}
	res := &RemoveResult{}
	for _, n := range slices.Sorted(maps.Keys(gone)) {
		r, _ := rec.Get(n)
		if live := liveLinks(r, filepath.Join(root, n)); len(live) > 0 && !opts.Force {
			return nil, nil, fmt.Errorf("%w: %s in %s is the copy that %s link to; remove those links first", ErrLinked, n, root, strings.Join(live, ", "))
		}
		// Hand edits are not thrown away without --force; a link holds
		// none (its copy is checked when the copy goes).
		if !opts.Force && !r.IsLink() && exists(filepath.Join(root, n)) {
			if sum, err := archive.TreeHashInstalled(ctx, filepath.Join(root, n)); err != nil || (r.Tree != "" && sum.TreeHash != r.Tree) {
				return nil, nil, fmt.Errorf("%w: %s in %s differs from what skillpm installed; keep your changes elsewhere before removing it", ErrEdited, n, root)
			}
		}
		var left []string
		for _, d := range rec.Dependents(n) {
			if !gone[d] {
				left = append(left, d)
			}
		}
		if len(left) > 0 {
			if !opts.Force {
				return nil, nil, &DependedUponError{Name: n, Dependents: left}
			}
			res.Broken = append(res.Broken, left...)
		}
		res.Removed = append(res.Removed, n)
	}
	sort.Strings(res.Broken)
	if opts.DryRun {
		return res, nil, nil
	}
	tx, err := beginTxn(root)
	if err != nil {
		return nil, nil, err
	}
	tx.hook = opts.hook
	links := map[string]string{}
	for _, n := range res.Removed {
		if r, _ := rec.Get(n); r.IsLink() {
			links[n] = r.Link
		}
		tx.Remove(n)
		rec.Delete(n)
	}
	if err := tx.Commit(ctx, rec); err != nil {
		return nil, nil, err
	}
	return res, links, nil
}

// liveLinks are the links r records that still point to its folder dir.
func liveLinks(r Record, dir string) []string {
	var out []string
	for _, l := range r.LinkedFrom {
		if isLinkTo(l, dir) {
			out = append(out, l)
		}
	}
	return out
}
