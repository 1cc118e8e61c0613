package engine

import (
	"context"

	"github.com/skillpm/skillpm/pkg/migrate"
	"github.com/skillpm/skillpm/source"
)

// MigrateRequest is a migration of Hermes or OpenClaw skills into GAIA
// skills.
type MigrateRequest struct {
	// Source is a skill directory, or a git reference (source.LooksGit)
	// every skill of which is migrated.
	Source string
	// Options are pkg/migrate's, checked before anything is read.
	Options migrate.Options
}

// MigrateResult is what Migrate did, skill by skill.
type MigrateResult struct {
	Skills []Migrated
}

// Migrated is the migration of one skill.
type Migrated struct {
	// Origin is the skill's git reference; "" for a directory.
	Origin string
	// Result is the migration, its report's Source set to Origin for a
	// skill of a git reference; nil when Err is set.
	Result *migrate.Result
	// Err is why the skill was not migrated: a
	// *migrate.NotMigratableError when it cannot be, else the failure.
	Err error
}

// Migrate migrates the skill in r.Source, or every skill of the git
// reference r.Source (fetched as Install fetches one: offline when the
// Engine's client is, its notes to Options.Log), each into
// r.Options.OutDir. A skill that fails does
// not stop the others: its Migrated carries the error. The error returned
// is for the request (bad options, a git reference that does not
// resolve).
func (e *Engine) Migrate(ctx context.Context, r MigrateRequest) (*MigrateResult, error) {
	if err := r.Options.Validate(); err != nil {
		return nil, invalid(err)
	}
	if !source.LooksGit(r.Source) {
		res, err := migrate.Run(ctx, r.Source, r.Options)
		if err != nil {
			return &MigrateResult{Skills: []Migrated{{Err: err}}}, nil
		}
		return &MigrateResult{Skills: []Migrated{{Result: res}}}, nil
	}
	cache, err := gitCache(e.client.Offline())
	if err != nil {
		return nil, err
	}
	gs, err := exportGit(ctx, cache, r.Source, e.note)
	if err != nil {
		return nil, err
	}
	defer gs.Done()
	out := make([]Migrated, 0, len(gs.Skills))
	for _, s := range gs.Skills {
		m := Migrated{Origin: s.Ref(gs.Resolved).String()}
		if m.Result, m.Err = migrate.Run(ctx, s.Dir, r.Options); m.Err == nil {
			m.Result.Report.Source = m.Origin
		} else {
			m.Result = nil
		}
		out = append(out, m)
	}
	return &MigrateResult{Skills: out}, nil
}
