package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/resolve"
)

// UpdateRequest is one update of installed skills within the ranges they
// were installed with: in a project (the Engine's project manifest is
// found, and neither its Target nor the request names roots), within its
// manifest's ranges; otherwise within the ranges recorded in the roots'
// receipts.
type UpdateRequest struct {
	// Names are the skills to update (with what they need); none means
	// all. In a project, they are as the manifest names the skills or
	// their short names.
	Names []string
	// InstallRequest carries the consent, checks and DryRun (and, outside
	// a project, RegistryOnly); its Refs, Origin, Frozen, NoVCS
	// and Skills are not used.
	InstallRequest
	// Breaking raises the project manifest's ranges the newest release is
	// outside of, Latest every range, each to ^NEWEST, before resolving;
	// outside a project either is ErrInvalidRequest.
	Breaking, Latest bool
}

// UpdateResult is what an update did.
type UpdateResult struct {
	// Result is the install, root by root; in a project, its Lock the
	// lock written. It has no roots when, outside a project, no target
	// was named and no host's roots hold any skill skillpm installed:
	// there was nothing to update.
	*install.Result
	// Manifest is the project's manifest as it was read (its File the
	// path it is written to), nil outside a project.
	Manifest *resolve.Manifest
	// Ranges are the project manifest's range changes (Breaking,
	// Latest).
	Ranges map[string]string
}

// Update moves installed skills to the newest versions their ranges
// allow, as `skillpm update` does; Outdated lists what it moves.
//
// In a project (the Engine's project manifest is found and no roots are
// named: as Outdated and Install decide), the skills named (or all) go
// to the newest versions the manifest's ranges allow (with Breaking or
// Latest the ranges move first), the others keep their locked versions,
// the result is installed into the project's roots, and the manifest and
// lock are written together once it is (updateProject).
//
// Otherwise it re-resolves the skills installed in each target root
// (without a target: every host's roots that hold them) within the
// ranges recorded when they were asked for. Skills installed from git
// move to the newest commit of the reference they were installed from;
// skills installed from a folder are built again from it and move when
// its files changed; what either needs from registries is resolved
// afresh (updateLocal).
func (e *Engine) Update(ctx context.Context, r UpdateRequest) (*UpdateResult, error) {
	t := e.opts.Target
	if e.inProject() {
		return e.updateProject(ctx, r)
	}
	if r.Breaking || r.Latest {
		return nil, fmt.Errorf("%w: Breaking and Latest move a project manifest's ranges, and there is no project here", ErrInvalidRequest)
	}
	// An update keeps how each root holds its skills (copies or links)
	// unless told otherwise.
	t.Placement = roots.Placement(t, nil)
	into, all, err := roots.Holding(e.env, t, r.Names)
	if err != nil {
		return nil, targetErr(err)
	}
	if all && len(into) == 0 {
		if len(r.Names) > 0 {
			return nil, install.NotInstalledAnywhere(e.env, r.Names)
		}
		return &UpdateResult{Result: &install.Result{Roots: []install.RootResult{}, Changes: []install.Change{}}}, nil
	}
	m := &resolve.Manifest{File: "the receipts"}
	graph, err := e.graph(m)
	if err != nil {
		return nil, err
	}
	opts, err := e.options(ctx, into, &r.InstallRequest)
	if err != nil {
		return nil, err
	}
	opts.Hide = e.hideYanked(graph)
	opts.Check = e.checkAdvisories
	// The skills from git and folders and those from registries are
	// planned apart; an empty plan is shown once, when both are.
	planned, show := false, opts.OnPlan
	if show != nil {
		opts.OnPlan = func(ctx context.Context, changes []install.Change) error {
			if len(changes) == 0 {
				return nil
			}
			planned = true
			return show(ctx, changes)
		}
	}
	localDone, localRoots := map[string]bool{}, []install.RootResult(nil)
	if !r.RegistryOnly {
		if localDone, localRoots, err = e.updateLocal(ctx, graph, r.Names, opts); err != nil {
			return nil, installError(m, graph, "", err)
		}
	}
	rest := slices.DeleteFunc(slices.Clone(r.Names), func(n string) bool { return localDone[n] })
	res := &install.Result{}
	if len(r.Names) == 0 || len(rest) > 0 {
		if res, err = install.Update(ctx, e.client, graph, rest, opts); err != nil {
			return nil, installError(m, graph, "", err)
		}
	}
	if show != nil && !planned {
		if err := show(ctx, nil); err != nil {
			return nil, err
		}
	}
	e.statusWarnings(ctx, res)
	e.decideInstall(res)
	res.Roots = append(localRoots, res.Roots...)
	return &UpdateResult{Result: res}, nil
}

// updateLocal moves, in each root of opts, the skills installed there
// from git or from a folder (those named, or all) to what they build now
// (localBuilds.root), with what they need resolved afresh, as installing
// them again would. It returns the names it handled and the roots'
// results.
func (e *Engine) updateLocal(ctx context.Context, graph resolve.Catalog, names []string, opts install.Options) (map[string]bool, []install.RootResult, error) {
	handled := map[string]bool{}
	var results []install.RootResult
	b := e.localBuilds()
	defer b.close()
	for _, root := range opts.Roots {
		rec, err := install.ReadReceipts(root.Dir)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", root.Dir, err)
		}
		built, err := b.root(ctx, rec, names)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range built.handled {
			handled[r.Name] = true
		}
		for _, r := range built.gone {
			e.warn(fmt.Sprintf("%s in %s was installed from %s, which no longer holds it: left as it is", r.Name, root.Dir, r.LocalPath))
		}
		if len(built.locals) == 0 {
			continue
		}
		o := opts
		o.Roots, o.Local = []install.Root{root}, built.locals
		res, err := install.Install(ctx, e.client, graph, &resolve.Manifest{File: "the receipts of " + root.Dir}, nil, o)
		if err != nil {
			return nil, nil, err
		}
		results = append(results, res.Roots...)
	}
	return handled, results, nil
}

// localBuilds builds again what update reinstalls the skills installed
// from git or from a folder from: what the git reference they were asked
// for by gives now, the folder as it is now. Outdated reads the same
// builds, so that it lists what update moves. Each reference is fetched
// and built once per command.
type localBuilds struct {
	e     *Engine
	cache *gitFetches
	refs  map[string][]install.Local
	dones []func()
}

// localBuilds starts the builds of one command; close them when done.
func (e *Engine) localBuilds() *localBuilds {
	return &localBuilds{e: e, refs: map[string][]install.Local{}}
}

// rootBuilds are the builds of one root's skills from git and folders.
type rootBuilds struct {
	// locals are the skills as they build now, one per name.
	locals []install.Local
	// handled are the records built (or gone); gone those whose folder
	// no longer holds their skill.
	handled, gone []install.Record
}

// byName is the build of the skill name, if any.
func (r rootBuilds) byName(name string) (install.Local, bool) {
	for _, l := range r.locals {
		if l.Artifact.Skill.Name == name {
			return l, true
		}
	}
	return install.Local{}, false
}

// fromFolder reports whether r was installed by name from a folder
// (not from git, not a link to a copy).
func fromFolder(r install.Record) bool {
	return r.Explicit() && !r.IsLink() && r.Source == "" && r.Git == "" && r.LocalPath != ""
}

// root builds the skills of rec (those named, or all) installed from git
// or from a folder.
func (b *localBuilds) root(ctx context.Context, rec *install.Receipts, names []string) (rootBuilds, error) {
	var out rootBuilds
	seen := map[string]bool{}
	add := func(ls ...install.Local) {
		for _, l := range ls {
			if !seen[l.Artifact.Skill.Name] {
				seen[l.Artifact.Skill.Name] = true
				out.locals = append(out.locals, l)
			}
		}
	}
	for _, r := range rec.Skills {
		if len(names) > 0 && !slices.Contains(names, r.Name) {
			continue
		}
		switch {
		case r.Git != "":
			out.handled = append(out.handled, r)
			ls, err := b.git(ctx, r.Git)
			if err != nil {
				return out, err
			}
			add(ls...)
		case fromFolder(r):
			out.handled = append(out.handled, r)
			l, ok, err := b.e.rebuildFolder(ctx, r)
			if err != nil {
				return out, err
			}
			if !ok {
				out.gone = append(out.gone, r)
				continue
			}
			add(l)
		}
	}
	return out, nil
}

// git is what the git reference ref gives now, built.
func (b *localBuilds) git(ctx context.Context, ref string) ([]install.Local, error) {
	if ls, ok := b.refs[ref]; ok {
		return ls, nil
	}
	if b.cache == nil {
		c, err := openGitFetches(false)
		if err != nil {
			return nil, err
		}
		b.cache = c
	}
	ls, _, done, err := b.e.gitLocals(ctx, b.cache, ref, nil)
	b.dones = append(b.dones, done)
	if err != nil {
		return nil, err
	}
	b.refs[ref] = ls
	return ls, nil
}

// close removes the trees the references were exported into.
func (b *localBuilds) close() {
	for _, d := range b.dones {
		d()
	}
}
