package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source"
	"golang.org/x/sync/errgroup"
)

// defaultPublishJobs is how many skills PublishAll builds, audits and
// pushes at once.
const defaultPublishJobs = 4

// PublishAllResult is what a PublishAll did, skill by skill.
type PublishAllResult struct {
	// Source is the request's Dir, or the git reference as resolved; Commit
	// the commit of a git reference.
	Source, Commit string
	// Items are the skills found, in order.
	Items []PublishItem
}

// PublishItem is the publish of one skill of a PublishAll.
type PublishItem struct {
	// Path is the skill's directory relative to the request's Dir, or
	// its git reference.
	Path string
	// PublishResult is what was done before Err, nil when the skill did
	// not build.
	*PublishResult
	// Err is why the skill was not published (or, with PublishResult's
	// version pushed, not signed).
	Err error
}

// PublishAll publishes every skill under the directory r.Dir (or of the
// git reference r.Dir: its repository, credentials removed, and commit
// are recorded unless NoVCS) as Publish does, with Publish's request, a few at a time, going on past a
// skill that fails: each item carries its own error. Versions already
// published with the same content are not signed again; those that
// changed are signed one by one (one key, or one keyless identity), and
// the destination's sparse index re-describes them. The error returned
// is for the request: a directory that does not exist
// (ErrInvalidRequest), none with a skill (class errdef.NotFound), a git
// reference that does not resolve.
func (e *Engine) PublishAll(ctx context.Context, r PublishRequest) (*PublishAllResult, error) {
	type item struct{ path, dir, source, revision string }
	var items []item
	out := &PublishAllResult{Source: r.Dir}
	if source.LooksGit(r.Dir) {
		cache, err := gitCache(false)
		if err != nil {
			return nil, err
		}
		gs, err := exportGit(ctx, cache, r.Dir, e.note)
		if err != nil {
			return nil, err
		}
		defer gs.Done()
		res := gs.Resolved
		out.Source, out.Commit = res.Ref.String(), res.Commit
		for _, s := range gs.Skills {
			items = append(items, item{path: s.Ref(res).String(), dir: s.Dir, source: res.Ref.Remote(), revision: res.Commit})
		}
	} else {
		if fi, err := os.Stat(r.Dir); err != nil || !fi.IsDir() {
			return nil, invalid(fmt.Errorf("%s: no such directory", r.Dir))
		}
		dirs, err := skill.FindSkills(ctx, r.Dir)
		if err != nil {
			return nil, err
		}
		if len(dirs) == 0 {
			return nil, errdef.Mark(errNoSuchSkill, fmt.Errorf("%s: no SKILL.md under it", r.Dir))
		}
		for _, d := range dirs {
			rel := d
			if p, err := filepath.Rel(r.Dir, d); err == nil {
				rel = p
			}
			items = append(items, item{path: rel, dir: d})
		}
	}
	src, created, err := e.publishTarget()
	if err != nil {
		return nil, err
	}
	out.Items = make([]PublishItem, len(items))
	var eg errgroup.Group
	eg.SetLimit(defaultPublishJobs)
	var itemMu sync.Mutex
	done := 0
	for i, it := range items {
		eg.Go(func() error {
			bopts := registry.BuildOptions{Created: created, NoVCS: r.NoVCS, Source: it.source, Revision: it.revision}
			if it.revision != "" && r.NoVCS {
				bopts.Source, bopts.Revision = "", ""
			}
			o := &out.Items[i]
			o.Path = it.path
			o.PublishResult, o.Err = e.publishDir(ctx, src, it.dir, bopts, it.path, it.revision == "", r.Force, r.AllowAuditFindings)
			if e.events() {
				// One record per finished skill, in order of finishing, so a
				// front end can draw "[12/50] publishing web-notes 0.3.0".
				itemMu.Lock()
				done++
				e.event("published", o, slog.Int("done", done), slog.Int("total", len(items)))
				itemMu.Unlock()
			}
			return nil
		})
	}
	_ = eg.Wait()
	var changed []string
	for i := range out.Items {
		o := &out.Items[i]
		if o.Err != nil || o.Unchanged {
			continue
		}
		if name := o.Artifact.Skill.Name; !slices.Contains(changed, name) {
			changed = append(changed, name)
		}
		if r.Sign != nil {
			o.Signed, o.Err = e.signPublished(ctx, src, o.PublishResult, *r.Sign)
		}
	}
	e.refreshSparse(ctx, src, changed, false, r.Sign)
	return out, nil
}
