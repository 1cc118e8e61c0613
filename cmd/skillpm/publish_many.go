package main

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
)

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

// printPublishAll renders publish -r skill by skill (each one's
// diagnostics and audit, then what was published or why not), the
// report and the sparse index's refresh, and exits with the first
// failure's code when a skill was not published.
func printPublishAll(g *globals, res *engine.PublishAllResult, allowAudit bool) error {
	report := publishManyJSON{Source: res.Source, Commit: res.Commit, Published: []publishJSON{}, Failed: []failedJSON{}}
	var first error
	unchanged := 0
	for _, o := range res.Items {
		err := publishItemErr(g, o, allowAudit)
		if o.PublishResult != nil && o.PublishResult.PublishResult != nil {
			j := publishOutput(o.PublishResult)
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
		first = cmp.Or(first, err)
		report.Failed = append(report.Failed, failedJSON{Path: o.Path, Error: err.Error()})
		if !g.json() {
			fmt.Fprintf(g.stderr, "%s: not published: %v\n", o.Path, err)
		}
	}
	if g.json() {
		if err := g.writeJSON(report); err != nil {
			return err
		}
	} else if !g.quiet {
		fmt.Fprintf(g.stdout, "%s: %d published, %d already there, %d failed\n", report.Source, len(report.Published)-unchanged, unchanged, len(report.Failed))
	}
	if first != nil {
		return fmt.Errorf("%d of %d skills not published; first: %w", len(report.Failed), len(res.Items), first)
	}
	return nil
}

// publishItemErr renders what one skill of publish -r got to (its
// diagnostics when it did not build, its audit) and maps its failure to
// an exit code: 3 for an invalid skill, 5 for an audit block, 1 for an
// audit that did not run, else its class's.
func publishItemErr(g *globals, o engine.PublishItem, allowAudit bool) error {
	var be *engine.BuildError
	var ve *skill.ValidationError
	switch {
	case errors.As(o.Err, &be) && errors.As(be.Err, &ve):
		printDiagnostics(g.stderr, ve.Diagnostics)
		return classed(errdef.Validation, fmt.Errorf("%s, not published", plural(len(ve.Diagnostics.Errors()), "error")))
	case errors.As(o.Err, &be):
		return be.Err
	case o.PublishResult == nil || o.Audit == nil:
		return classed(errdef.Internal, o.Err)
	}
	if gerr := printAuditGate(g, o.Artifact, o.Audit, allowAudit); gerr != nil {
		return gerr
	}
	return o.Err
}
