package gaiarules

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/internal/corpustest"
	"github.com/skillpm/skillpm/pkg/migrate"
	"github.com/skillpm/skillpm/pkg/skill"
)

// agree checks one skill: when GAIA's rules refuse it, skillpm's strict
// validation with GAIA's loader rules (validate for GAIA) refuses it too (so whatever passes strict validation loads in
// GAIA). It returns whether skillpm refused a skill GAIA loads, which is
// allowed: skillpm has rules of its own (execution, tools.py, tiers).
func agree(t *testing.T, r *Rules, dir string) (stricter bool) {
	t.Helper()
	gaiaErr := r.Check(dir)
	_, ds := skill.Load(context.Background(), dir, skill.Options{Mode: skill.Strict, GaiaLoader: true})
	if gaiaErr != nil && !ds.HasErrors() {
		t.Errorf("%s: GAIA (%s) refuses it (%v), skillpm strict accepts it", dir, r.Source, gaiaErr)
	}
	return gaiaErr == nil && ds.HasErrors()
}

func TestFixtures(t *testing.T) {
	r, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := skill.FindSkills(context.Background(), filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 50 {
		t.Fatalf("only %d fixtures found", len(dirs))
	}
	stricter := 0
	for _, d := range dirs {
		if agree(t, r, d) {
			stricter++
			if testing.Verbose() {
				t.Logf("skillpm's own rule: %s", d)
			}
		}
	}
	t.Logf("%d fixtures; skillpm strict refuses %d that GAIA's rules load", len(dirs), stricter)
}

// TestMigratedCorpus: every corpus skill migrate turns into a GAIA skill
// gets the same answer from GAIA's rules as from skillpm strict with
// GAIA's loader rules, and migrate's report predicts every refusal.
func TestMigratedCorpus(t *testing.T) {
	r, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	root := corpustest.Dir(t)
	ctx := context.Background()
	tmp := t.TempDir()
	migrated, gaiaOK, stricter := 0, 0, 0
	for _, set := range []string{"NousResearch__hermes-agent", "openclaw__skills", "openclaw__clawhub"} {
		dirs, err := skill.FindSkills(ctx, filepath.Join(root, set))
		if err != nil {
			t.Fatal(err)
		}
		for i, dir := range dirs {
			res, err := migrate.Run(ctx, dir, migrate.Options{OutDir: filepath.Join(tmp, set, fmt.Sprint(i))})
			if errors.Is(err, migrate.ErrNotMigratable) {
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", dir, err)
				continue
			}
			migrated++
			out := res.Report.Output // the directory migrate wrote
			gaiaErr := r.Check(out)
			if gaiaErr == nil {
				gaiaOK++
			} else if res.Report.Valid {
				t.Errorf("%s: migrate called %s valid, GAIA (%s) refuses it: %v", dir, out, r.Source, gaiaErr)
			}
			if agree(t, r, out) {
				stricter++
			}
		}
	}
	if migrated < 500 {
		t.Fatalf("only %d corpus skills migrated", migrated)
	}
	t.Logf("%d migrated corpus skills: GAIA's rules load %d; skillpm strict refuses %d of those", migrated, gaiaOK, stricter)
	// On the corpus the verdicts are the same both ways.
	if stricter > 0 {
		t.Errorf("skillpm strict refuses %d migrated corpus skills that GAIA loads (run with -v)", stricter)
	}
}
