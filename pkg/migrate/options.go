package migrate

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/skill"
)

// Format names a skill format migration reads.
type Format string

// Source formats.
const (
	// Auto detects the format from the keys present; a skill may carry both.
	Auto Format = "auto"
	// Hermes is Nous Research's Hermes Agent format.
	Hermes Format = "hermes"
	// OpenClaw is the OpenClaw / ClawHub format (and its older names).
	OpenClaw Format = "openclaw"
)

// ParseFormat reads a --from value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Auto, Hermes, OpenClaw:
		return f, nil
	case "":
		return Auto, nil
	}
	return "", fmt.Errorf("%w: unknown source format %q (use hermes, openclaw or auto)", ErrOptions, s)
}

// DefaultVersion is the version given to a skill that has none, or one that
// cannot be read as SemVer: the first version of a new package, as
// skillpm init, cargo new and uv init use.
const DefaultVersion = "0.1.0"

// DefaultOutDir is where Run writes when Options.OutDir is empty: the skill
// lands in ./migrated/<name>, never over its input.
const DefaultOutDir = "migrated"

// Options control a migration.
type Options struct {
	// From selects the source format; "" means Auto.
	From Format
	// KnownTools is where tools_required names are looked up; nil means
	// skill.DefaultKnownTools(). Unknown tools are reported, not written.
	KnownTools *skill.KnownTools

	// The fields below are used by Run only.

	// OutDir is the parent directory of the output: the skill is written to
	// OutDir/<name>. Empty means DefaultOutDir.
	OutDir string
	// DryRun makes Run stop after Migrate: nothing is written.
	DryRun bool
	// OverwriteUnsafe replaces an existing output directory.
	OverwriteUnsafe bool
}

// Validate rejects options that cannot work.
func (o Options) Validate() error {
	if _, err := ParseFormat(string(o.From)); err != nil {
		return err
	}
	if o.DryRun && o.OverwriteUnsafe {
		return fmt.Errorf("%w: a dry run writes nothing, so it cannot overwrite", ErrOptions)
	}
	return nil
}

func (o Options) knownTools() *skill.KnownTools {
	if o.KnownTools == nil {
		return skill.DefaultKnownTools()
	}
	return o.KnownTools
}

func (o Options) from() Format {
	if o.From == "" {
		return Auto
	}
	return o.From
}
