package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/advisory"
)

// DescribeRequest asks what `skillpm info` shows about one argument: a
// skill directory, the name of an installed skill, or a published
// reference.
type DescribeRequest struct {
	// Arg is what to describe.
	Arg string
	// ManifestOnly reads the published manifest without listing the
	// repository's versions; Arg is then never an installed name.
	ManifestOnly bool
}

// DescribeResult is what Describe found: exactly one of Local, Installed
// and Published is set.
type DescribeResult struct {
	// Local is the skill in the directory Arg names, read leniently; its
	// Skill is nil when nothing could be read (Describe then returns
	// an error of class errdef.Validation beside it).
	Local *skill.Result
	// Installed are the copies of the skill Arg names that skillpm
	// installed in the searched roots, in their order.
	Installed []install.Installed
	// Published is the version the reference Arg selects (its Versions
	// are nil with ManifestOnly).
	Published *registry.Published
	// Advisories are the obeyed advisories naming Published's version
	// (none are read with ManifestOnly).
	Advisories []advisory.Advised
}

// Describe describes r.Arg as `skillpm info` does. A path (./web-notes,
// skills/web-notes) naming a directory is a local skill; a bare name is
// the skill installed under it in the searched roots, else the published
// skill of that name, even beside a directory of that name; a directory
// is the fallback when nothing of that name is published. A name is
// never an installed one when the Engine names a source of its own
// (Options.Source) or r.ManifestOnly asks for a manifest. A local
// directory with no readable skill returns its description (with the
// diagnostics) and an error of class errdef.Validation.
func (e *Engine) Describe(ctx context.Context, r DescribeRequest) (*DescribeResult, error) {
	fi, statErr := os.Stat(r.Arg)
	isDir := statErr == nil && fi.IsDir()
	if isDir && strings.ContainsAny(r.Arg, `/\.`) {
		return describeDir(ctx, r.Arg)
	}
	published := r.ManifestOnly || e.opts.Source != ""
	if !published && !strings.ContainsAny(r.Arg, "@/:") {
		searched, err := roots.Searched(e.env, e.opts.Target)
		if err != nil {
			return nil, targetErr(err)
		}
		found, err := install.Describe(ctx, searched, r.Arg)
		if err != nil {
			return nil, err
		}
		if len(found) > 0 {
			install.DescribeAgainstLock(ctx, found, projectLock(ctx))
			return &DescribeResult{Installed: found}, nil
		}
	}
	repo, m, err := e.resolveRef(ctx, r.Arg)
	switch {
	case err != nil && isDir && errors.Is(err, registry.ErrNotFound):
		return describeDir(ctx, r.Arg)
	case err != nil:
		return nil, err
	case r.ManifestOnly:
		return &DescribeResult{Published: &registry.Published{Repository: repo, Manifest: m}}, nil
	}
	info, advised, err := e.infoManifest(ctx, repo, m)
	if err != nil {
		return nil, err
	}
	return &DescribeResult{Published: info, Advisories: advised}, nil
}

// describeDir reads the skill in dir leniently.
func describeDir(ctx context.Context, dir string) (*DescribeResult, error) {
	s, ds := skill.Load(ctx, dir, skill.Options{Mode: skill.Lenient})
	l := &skill.Result{Dir: dir, Skill: s, Diagnostics: ds}
	if s == nil {
		return &DescribeResult{Local: l}, fmt.Errorf("%s: %w", dir, errUnreadableSkill)
	}
	return &DescribeResult{Local: l}, nil
}
