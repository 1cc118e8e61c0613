package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/resolve"
)

// UpdateRequest is one update of installed skills within the ranges they
// were installed with.
type UpdateRequest struct {
	// Names are the skills to update (with what they need); none means
	// all.
	Names []string
	// InstallRequest carries the consent, checks and target; its Refs,
	// Manifest, Lock, Origin, Frozen, NoVCS and Skills are not
	// used.
	InstallRequest
}

// UpdateResult is what an update did.
type UpdateResult struct {
	*install.Result
	// SearchedAll says the roots were every host's roots that hold the
	// skills (no target was named).
	SearchedAll bool
	// NoneInstalled says no target was named and no host's roots hold
	// any skill skillpm installed: there was nothing to update.
	NoneInstalled bool
}

// Update re-resolves the skills installed in each target root (without a
// target: every host's roots that hold them) within the ranges recorded
// when they were asked for, as `skillpm update` does outside a project.
// Skills installed from git move to the newest commit of the reference
// they were installed from; skills installed from a folder are built
// again from it and move when its files changed.
func (e *Engine) Update(ctx context.Context, r UpdateRequest) (*UpdateResult, error) {
	t := e.target(r.Target)
	roots := r.Roots
	all := false
	if len(roots) == 0 {
		def := e.opts.Host
		if def == "" {
			def = install.DefaultHost
		}
		var err error
		// An update keeps how each root holds its skills (copies or
		// links) unless told otherwise.
		t.Placement = placement(t, nil, e.opts.Link)
		if roots, all, err = rootsHolding(e.env, t, def, r.Names); err != nil {
			return nil, err
		}
		if all && len(roots) == 0 {
			if len(r.Names) > 0 {
				return nil, e.notInstalled(r.Names)
			}
			return &UpdateResult{Result: &install.Result{Roots: []install.RootResult{}, Changes: []install.Change{}}, SearchedAll: true, NoneInstalled: true}, nil
		}
	}
	m := &resolve.Manifest{File: "the receipts"}
	graph, err := e.graph(m)
	if err != nil {
		return nil, err
	}
	opts, err := e.options(ctx, roots, &r.InstallRequest)
	if err != nil {
		return nil, err
	}
	opts.Hide = e.hideYanked(graph)
	opts.Check = e.checkAdvisories
	gitDone, gitRoots := map[string]bool{}, []install.RootResult(nil)
	if !r.RegistryOnly {
		if gitDone, gitRoots, err = e.updateGit(ctx, graph, r.Names, opts); err != nil {
			return nil, &InstallError{Manifest: m, Graph: graph, Err: err}
		}
		folderDone, folderRoots, err := e.updateFolders(ctx, graph, r.Names, opts)
		if err != nil {
			return nil, &InstallError{Manifest: m, Graph: graph, Err: err}
		}
		maps.Copy(gitDone, folderDone)
		gitRoots = append(gitRoots, folderRoots...)
	}
	rest := slices.DeleteFunc(slices.Clone(r.Names), func(n string) bool { return gitDone[n] })
	res := &install.Result{}
	if len(r.Names) == 0 || len(rest) > 0 {
		if res, err = install.Update(ctx, e.client, graph, rest, opts); err != nil {
			return nil, &InstallError{Manifest: m, Graph: graph, Err: err}
		}
	}
	e.statusWarnings(ctx, res)
	res.Roots = append(gitRoots, res.Roots...)
	return &UpdateResult{Result: res, SearchedAll: all}, nil
}

// updateFolders builds again, in each root of opts, the skills installed
// there from a folder (those named, or all) whose folder still holds
// them, and installs those whose files changed. It returns the names it
// handled and the roots' results.
func (e *Engine) updateFolders(ctx context.Context, graph resolve.Catalog, names []string, opts install.Options) (map[string]bool, []install.RootResult, error) {
	handled := map[string]bool{}
	var results []install.RootResult
	for _, root := range opts.Roots {
		rec, err := install.ReadReceipts(root.Dir)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", root.Dir, err)
		}
		var locals []install.Local
		for _, r := range rec.Skills {
			if !r.Explicit() || r.IsLink() || r.Source != "" || r.Git != "" || r.LocalPath == "" || len(names) > 0 && !slices.Contains(names, r.Name) {
				continue
			}
			handled[r.Name] = true
			l, ok, err := e.rebuildFolder(ctx, r)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				e.warn(fmt.Sprintf("%s in %s was installed from %s, which no longer holds it: left as it is", r.Name, root.Dir, r.LocalPath))
				continue
			}
			if l.Artifact.Pack.TreeHash != r.Tree {
				locals = append(locals, l)
			}
		}
		if len(locals) == 0 {
			continue
		}
		o := opts
		o.Roots, o.Local = []install.Root{root}, locals
		res, err := install.Install(ctx, e.client, graph, &resolve.Manifest{File: "the receipts of " + root.Dir}, nil, o)
		if err != nil {
			return nil, nil, err
		}
		results = append(results, res.Roots...)
	}
	return handled, results, nil
}
