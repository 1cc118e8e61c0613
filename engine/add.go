package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
)

// AddRequest is `skillpm add`: skills written into a project's manifest
// (created when there is none), resolved with the versions already
// locked kept, installed into the project's roots, and only then the
// manifest and lock written together.
type AddRequest struct {
	// NoInstall resolves and writes the manifest and lock only.
	NoInstall bool
	// InstallRequest carries the requirements to add and the consent,
	// checks and DryRun; its Frozen, NoVCS and Skills are not read. Its
	// Refs are the requirements, in order, each NAME[@RANGE]: NAME a bare
	// name or a registry repository; without a range, a skill the
	// manifest has keeps its range, and a new one gets ^ the version it
	// resolves to (as cargo add and uv add do).
	InstallRequest
}

// AddResult is what Add did (or, with DryRun, would do).
type AddResult struct {
	// Manifest is the project's manifest as it was read (its File the
	// path it is written to).
	Manifest *resolve.Manifest
	// Added are the requirements added, in the request's order, as the
	// manifest writes them (the version each locked is Lock's).
	Added []resolve.Requirement
	// Result is the install into the project's roots (none with
	// NoInstall), its Lock the lock written, as Update's is.
	*install.Result
}

// Add adds r.Refs to the project. A new manifest records the source
// of bare names (Source, else FallbackSource), the scope (the target's,
// else project) and, unless custom roots are the target, the hosts of
// the project roots it installs into. Nothing is written when anything
// fails or is refused, or with DryRun. Failures to parse, resolve or
// install are *InstallError; a manifest edit that does not apply is
// ErrInvalidRequest.
func (e *Engine) Add(ctx context.Context, r AddRequest) (*AddResult, error) {
	set := map[string]string{}
	var names []string
	var open []string // names whose range comes from the version resolved
	for _, ref := range r.Refs {
		name, rng, err := addArg(ref)
		if err != nil {
			return nil, invalid(err)
		}
		if rng == "" {
			rng = resolve.AnyRange
			open = append(open, name)
		}
		set[name] = rng
		names = append(names, name)
	}
	p, err := openProject(ctx, e.opts.Manifest, e.opts.Lock)
	if err != nil {
		return nil, err
	}
	for _, n := range open {
		if rng := p.manifest.Range(n); rng != "" {
			set[n] = rng // already in the manifest: keep its range
		}
	}
	edit := resolve.ManifestEdit{Set: set}
	if p.data == nil {
		if edit, err = e.newManifestEdit(p, set); err != nil {
			return nil, err
		}
	}
	data, err := resolve.EditManifest(p.manifest.File, p.data, edit)
	if err != nil {
		return nil, invalid(err)
	}
	apply := applyRequest{Manifest: p.manifest.File, Lock: p.lockFile, OldData: p.data, Prev: p.prev}
	if len(open) > 0 {
		if data, err = e.pinOpen(ctx, apply, data, open, set, r.InstallRequest); err != nil {
			return nil, err
		}
	}
	apply.Data, apply.NoInstall, apply.InstallRequest = data, r.NoInstall, r.InstallRequest
	out := &AddResult{Manifest: p.manifest}
	res, lock, err := e.apply(ctx, apply)
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &install.Result{Lock: lock}
	}
	out.Result = res
	written, err := parseProjectManifest(p, data)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		a := resolve.Requirement{Name: name}
		if i := slices.IndexFunc(written.Skills, func(r resolve.Requirement) bool { return r.Name == name }); i >= 0 {
			a = written.Skills[i]
		}
		out.Added = append(out.Added, a)
	}
	return out, nil
}

// newManifestEdit is the edit that creates a project's manifest: the
// source of bare names, the scope and the hosts installed into.
func (e *Engine) newManifestEdit(p *projectFiles, set map[string]string) (resolve.ManifestEdit, error) {
	t := e.opts.Target
	edit := resolve.ManifestEdit{Set: set, Registry: e.opts.Source, Scope: string(roots.ProjectScope(p.manifest))}
	if edit.Registry == "" {
		edit.Registry = e.opts.FallbackSource
	}
	if t.Scope != "" {
		edit.Scope = t.Scope
	}
	if len(t.Roots) > 0 {
		return edit, nil
	}
	m := &resolve.Manifest{File: p.manifest.File, Dir: p.manifest.Dir}
	t.Placement = roots.Placement(t, m)
	placed, err := roots.Project(e.env, t, m)
	if err != nil {
		return edit, targetErr(err)
	}
	// The agents root that holds a copy for links only is no host asked
	// for.
	for _, root := range placed.Roots {
		if !root.LinkOnly {
			edit.Hosts = append(edit.Hosts, string(root.Host))
		}
	}
	return edit, nil
}

// pinOpen resolves data without installing or writing and returns it
// with each name in open still at any range set to ^ the version locked.
func (e *Engine) pinOpen(ctx context.Context, apply applyRequest, data []byte, open []string, set map[string]string, ir InstallRequest) ([]byte, error) {
	ir.DryRun = true
	apply.Data, apply.NoInstall, apply.InstallRequest = data, true, ir
	_, lock, err := e.apply(ctx, apply)
	if err != nil {
		return nil, err
	}
	pinned := map[string]string{}
	for _, n := range open {
		if set[n] != resolve.AnyRange {
			continue
		}
		if ls := lock.Get(resolve.ShortName(n)); ls != nil {
			pinned[n] = "^" + ls.Version
		}
	}
	data, err = resolve.EditManifest(apply.Manifest, data, resolve.ManifestEdit{Set: pinned})
	if err != nil {
		return nil, invalid(err)
	}
	return data, nil
}

// parseProjectManifest parses data as p's manifest, in p's directory.
func parseProjectManifest(p *projectFiles, data []byte) (*resolve.Manifest, error) {
	m, err := resolve.ParseManifest(p.manifest.File, data)
	if err != nil {
		return nil, installError(&resolve.Manifest{File: p.manifest.File}, nil, p.lockFile, err)
	}
	m.Dir = p.manifest.Dir
	return m, nil
}

// addArg reads one argument of add (source.ParseRef, the one
// grammar): a published skill's name with an optional range, or a git
// shorthand with an optional revision; the range is "" when none is
// given. The refusals say what add takes instead.
func addArg(arg string) (name, rng string, err error) {
	ref, err := source.ParseRef(arg)
	var se *source.SelectorError
	switch {
	case errors.As(err, &se) && se.Digest, err == nil && ref.Selector.Kind == source.SelectDigest:
		return "", "", fmt.Errorf("%q: skills.yaml holds version ranges, not digests; write NAME@RANGE (the lock records the digest)", arg)
	case errors.As(err, &se):
		return "", "", fmt.Errorf("%q: the range %q does not parse: use ^1.2, ~1.4, \">=1.0, <2.0\", 1.x or \"*\"", arg, se.Selector)
	case err != nil:
		return "", "", err
	case ref.Kind == source.RefDir:
		return "", "", fmt.Errorf("%q is a directory: add takes published skill names; install a local skill with skillpm install %s", arg, arg)
	case ref.Kind == source.RefGit && strings.Contains(arg, "://"):
		return "", "", fmt.Errorf("%q is a URL: add takes published skill names (web-research@^1, ghcr.io/acme/skills/NAME@^1); git sources are written git+https://HOST/OWNER/REPO or github:OWNER/REPO", arg)
	case ref.Kind == source.RefGit:
		// skills.yaml writes a shorthand's revision as its range.
		name, rng = arg, ""
		if i := strings.LastIndexByte(arg, '@'); i >= 0 {
			name, rng = arg[:i], arg[i+1:]
		}
	default:
		rng = ref.Selector.Raw
		ref.Selector = source.Selector{}
		name = ref.String()
	}
	if rng != "" {
		if _, err := resolve.ParseRange(rng, true); err != nil {
			return "", "", fmt.Errorf("%q: the range %q does not parse: use ^1.2, ~1.4, \">=1.0, <2.0\", 1.x or \"*\"", arg, rng)
		}
	}
	return name, rng, nil
}
