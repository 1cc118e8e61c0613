package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/migrate"
)

// TestMigrate: a Hermes directory migrates into OutDir; a directory that
// is not a skill is that skill's failure, not the request's; options
// that contradict each other are ErrInvalidRequest.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	e, err := engine.Open(ctx, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Migrate(ctx, engine.MigrateRequest{Source: filepath.Join("..", "testdata", "migrate", "hermes", "pdf-extract"), Options: migrate.Options{OutDir: out}})
	if err != nil {
		t.Fatal(err)
	}
	done := res.Skills
	if err != nil || len(done) != 1 || done[0].Err != nil || !done[0].Result.Report.Valid {
		t.Fatalf("Migrate = %+v, %v; want one valid migration", done, err)
	}
	if _, err := os.Stat(filepath.Join(out, "pdf-extract", "SKILL.md")); err != nil {
		t.Errorf("the migrated skill was not written: %v", err)
	}
	res, err = e.Migrate(ctx, engine.MigrateRequest{Source: t.TempDir(), Options: migrate.Options{DryRun: true}})
	if err != nil {
		t.Fatal(err)
	}
	done = res.Skills
	if err != nil || len(done) != 1 || done[0].Err == nil || done[0].Result != nil {
		t.Errorf("an empty directory: %+v, %v; want its Migrated to carry the failure", done, err)
	}
	_, err = e.Migrate(ctx, engine.MigrateRequest{Source: out, Options: migrate.Options{DryRun: true, OverwriteUnsafe: true}})
	if !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("dry run with overwrite: %v, want ErrInvalidRequest", err)
	}
}
