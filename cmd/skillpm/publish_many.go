package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillpm/skillpm/gitsource"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
)

// publishJobs bounds the skills publish -r builds and pushes at once.
const publishJobs = 4

// publishManyJSON is publish -r's JSON report.
type publishManyJSON struct {
	Source    string        `json:"source"`
	Commit    string        `json:"commit,omitempty"`
	Published []publishJSON `json:"published"`
	Failed    []failedJSON  `json:"failed"`
}

type failedJSON struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// runPublishMany publishes every skill under dir, or every skill of a git
// reference, going on past a skill that fails and exiting with the first
// failure's code at the end.
func runPublishMany(c *cobra.Command, g *globals, f *publishFlags, arg string) error {
	type item struct{ path, dir, source, revision string }
	var items []item
	report := publishManyJSON{Source: arg, Published: []publishJSON{}, Failed: []failedJSON{}}
	if gitsource.Looks(arg) {
		cache, err := gitCache(false)
		if err != nil {
			return err
		}
		gs, err := gitExport(c, g, cache, arg)
		if err != nil {
			return err
		}
		defer gs.done()
		report.Source, report.Commit = gs.res.Ref.String(), gs.res.Commit
		for _, s := range gs.skills {
			items = append(items, item{path: s.Ref(gs.res).String(), dir: s.Dir, source: gs.res.Ref.Remote(), revision: gs.res.Commit})
		}
	} else {
		if fi, err := os.Stat(arg); err != nil || !fi.IsDir() {
			return withCode(exitUsage, fmt.Errorf("%s: no such directory", arg))
		}
		dirs, err := skill.FindSkills(c.Context(), arg)
		if err != nil {
			return err
		}
		if len(dirs) == 0 {
			return withCode(exitResolution, fmt.Errorf("%s: no SKILL.md under it", arg))
		}
		for _, d := range dirs {
			items = append(items, item{path: d, dir: d})
		}
	}
	client, src, signOpts, err := f.target(c, g)
	if err != nil {
		return err
	}
	created, err := registry.SourceDateEpoch(os.Getenv)
	if err != nil {
		return withCode(exitUsage, err)
	}
	// Skills are built, audited and pushed a few at a time (each one's
	// messages held back and printed in order); signing, which may use
	// one key or one keyless identity token, goes one by one afterwards.
	type outcome struct {
		a   *registry.Artifact
		res *registry.PublishResult
		err error
		log bytes.Buffer
	}
	outs := make([]outcome, len(items))
	var eg errgroup.Group
	eg.SetLimit(publishJobs)
	for i, it := range items {
		eg.Go(func() error {
			o := &outs[i]
			gi := *g
			gi.stderr = &o.log
			opts := registry.BuildOptions{Created: created, NoVCS: f.noVCS, Source: it.source, Revision: it.revision}
			if it.revision != "" && f.noVCS {
				opts.Source, opts.Revision = "", ""
			}
			a, err := registry.Build(c.Context(), it.dir, opts)
			if err != nil {
				var ve *skill.ValidationError
				if errors.As(err, &ve) {
					printDiagnostics(&o.log, ve.Diagnostics)
					o.err = withCode(exitValidation, fmt.Errorf("%s, not published", plural(len(ve.Diagnostics.Errors()), "error")))
				} else {
					o.err = regExit(err)
				}
				return nil
			}
			o.a = a
			if o.err = publishAudit(c, &gi, a, f.allowAudit); o.err != nil {
				return nil
			}
			o.res, err = client.Publish(c.Context(), src, a, registry.PublishOptions{Force: f.force})
			o.err = regExit(err)
			return nil
		})
	}
	_ = eg.Wait()
	var first error
	unchanged := 0
	var changed []string
	defer func() { refreshSparse(c.Context(), g, client, src, changed, false, signOpts) }()
	for i, it := range items {
		o := &outs[i]
		g.stderr.Write(o.log.Bytes())
		err := o.err
		if err == nil {
			a, res := o.a, o.res
			j := publishJSON{Name: a.Skill.Name, Version: a.Skill.Version, Repository: res.Location.String(), Tag: res.Tag,
				Digest: res.Descriptor.Digest.String(), Tree: a.Pack.TreeHash, Unchanged: res.Unchanged}
			if res.Replaced != nil {
				j.Replaced = res.Replaced.Digest.String()
			}
			if !res.Unchanged {
				j.Signature, err = publishSign(c.Context(), client, src, a, res, signOpts)
				if !slices.Contains(changed, a.Skill.Name) {
					changed = append(changed, a.Skill.Name)
				}
			}
			report.Published = append(report.Published, j)
			if err == nil {
				if j.Unchanged {
					unchanged++
				}
				if !g.json() && !(g.quiet && j.Unchanged) {
					switch {
					case j.Unchanged:
						fmt.Fprintf(g.stdout, "%s@%s is already published with the same content; skipped\n", j.Name, j.Version)
					case j.Replaced != "":
						fmt.Fprintf(g.stdout, "published %s@%s to %s as %s, replacing %s (--force)\n", j.Name, j.Version, j.Repository, j.Digest, j.Replaced)
					default:
						fmt.Fprintf(g.stdout, "published %s@%s to %s as %s\n", j.Name, j.Version, j.Repository, j.Digest)
					}
				}
				continue
			}
		}
		if first == nil {
			first = err
		}
		rel := it.path
		if r, rerr := filepath.Rel(arg, it.path); rerr == nil && it.revision == "" {
			rel = r
		}
		report.Failed = append(report.Failed, failedJSON{Path: rel, Error: err.Error()})
		if !g.json() {
			fmt.Fprintf(g.stderr, "%s: not published: %v\n", rel, err)
		}
	}
	if g.json() {
		if err := writeJSON(g.stdout, report); err != nil {
			return err
		}
	} else if !g.quiet {
		fmt.Fprintf(g.stdout, "%s: %d published, %d already there, %d failed\n", report.Source, len(report.Published)-unchanged, unchanged, len(report.Failed))
	}
	if first != nil {
		return fmt.Errorf("%d of %d skills not published; first: %w", len(report.Failed), len(items), first)
	}
	return nil
}
