package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/auditor"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/internal/corpustest"
	"github.com/skillpm/skillpm/internal/gaiarules"
	"github.com/skillpm/skillpm/pkg/migrate"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/tiers"
)

// TestGaiaCorpusInstall installs every corpus skill, and every skill
// migrate makes of one, for GAIA (each with every permission it declares
// granted and its audit findings allowed, so that only GAIA's rules and
// the format stand in the way) and runs what lands through GAIA's own
// rules table: a skill installed for GAIA is one GAIA loads, and every
// refusal of GAIA's rules was predicted by skillpm refusing the install.
func TestGaiaCorpusInstall(t *testing.T) {
	rules, err := gaiarules.Load()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	work := t.TempDir()
	// One registry client and one auditor (with the findings cache an
	// Engine's own would use); an Engine for each root (its Target).
	client, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	aud, err := auditor.New(auditor.Options{CacheDir: filepath.Join(client.CacheDir(), "audit")})
	if err != nil {
		t.Fatal(err)
	}
	env := hosts.Env{Home: filepath.Join(work, "home"), Cwd: work}
	dirs := corpustest.Skills(t)
	var migrated []string
	for i, d := range dirs {
		res, err := migrate.Run(ctx, d, migrate.Options{OutDir: filepath.Join(work, "migrated", fmt.Sprint(i))})
		if err == nil {
			migrated = append(migrated, res.Report.Output)
		}
	}
	// The installs are independent (one root each, one Engine each, on
	// one client, which is safe for concurrent use), so they run side by
	// side; the counts are summed at the end.
	all := append(dirs, migrated...)
	outcome := make([]int, len(all)) // 0 installed, 1 refused by GAIA, 2 by skillpm's other rules
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, d := range all {
		g.Go(func() error {
			root := filepath.Join(work, "roots", fmt.Sprint(i))
			var grants []string
			if s, _ := skill.Load(ctx, d, skill.Options{Mode: skill.Lenient}); s != nil {
				for _, p := range s.EffectivePermissions() {
					grants = append(grants, p.String())
				}
			}
			e, err := engine.Open(ctx, engine.Options{Client: client, Auditor: aud, Policy: tiers.Default(), Env: env,
				Target: roots.Target{Given: []install.Root{{Host: install.HostGaia, Dir: root}}}})
			if err != nil {
				return err
			}
			_, err = e.Install(ctx, engine.InstallRequest{
				Refs:    []string{d},
				Consent: engine.Consent{AllowExperimental: true, Grants: grants}, Checks: engine.Checks{AllowAuditFindings: true}, NoVCS: true,
			})
			switch {
			case errors.Is(err, install.ErrGaiaRefused):
				outcome[i] = 1
				return nil
			case err != nil:
				outcome[i] = 2 // the format and publishing rules (most corpus skills have no version), checked against GAIA's in internal/gaiarules
				return nil
			}
			entries, err := os.ReadDir(root)
			if err != nil {
				return err
			}
			for _, en := range entries {
				if en.IsDir() && en.Name() != ".skillpm" {
					if err := rules.Check(filepath.Join(root, en.Name())); err != nil {
						t.Errorf("%s: installed for GAIA as %s, but GAIA (%s) refuses it: %v", d, en.Name(), rules.Source, err)
					}
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	installed, gaiaRefused, ownRefused := 0, 0, 0
	for _, o := range outcome {
		switch o {
		case 0:
			installed++
		case 1:
			gaiaRefused++
		default:
			ownRefused++
		}
	}
	t.Logf("%d corpus skills and %d migrated: %d installed for GAIA and load there; %d refused by GAIA's loader rules, %d by skillpm's other rules",
		len(dirs), len(migrated), installed, gaiaRefused, ownRefused)
	if installed < 500 || gaiaRefused == 0 {
		t.Errorf("too few installed (%d) or GAIA-refused (%d) for the corpus: the test is not exercising the rules", installed, gaiaRefused)
	}
}
