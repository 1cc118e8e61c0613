package migrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/skillpm/skillpm/internal/corpustest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/skill"
)

// corpusDir finds the real-world corpus beside the repository.
func corpusDir(t testing.TB) string { return corpustest.Dir(t) }

// corpusSets are the corpus folders holding Hermes and OpenClaw skills.
var corpusSets = []string{"NousResearch__hermes-agent", "openclaw__skills", "openclaw__clawhub"}

// TestCorpus migrates every Hermes and OpenClaw skill of the corpus. Each
// either migrates to a skill that validates strictly, or the migration
// says exactly why not: a typed reason, or the strict diagnostics of the
// result. Migrating the output again must give the same SKILL.md.
func TestCorpus(t *testing.T) {
	root := corpusDir(t)
	ctx := context.Background()
	tmp := t.TempDir()
	cat := skill.DefaultKnownTools()
	type tally struct{ skills, migrated, valid, idempotent int }
	reasons := map[string]int{}
	invalid := map[string]int{}
	total := tally{}
	for _, set := range corpusSets {
		dirs, err := skill.FindSkills(ctx, filepath.Join(root, set))
		if err != nil {
			t.Fatal(err)
		}
		var n tally
		for i, dir := range dirs {
			n.skills++
			out := filepath.Join(tmp, set, fmt.Sprint(i))
			r, err := Run(ctx, dir, Options{OutDir: out, KnownTools: cat})
			if err != nil {
				var nm *NotMigratableError
				if !errors.As(err, &nm) {
					t.Errorf("%s: %v", dir, err)
					continue
				}
				if nm.Detail == "" || nm.Hint == "" {
					t.Errorf("%s: not migratable without detail and hint: %v", dir, err)
				}
				reasons[string(nm.Reason)]++
				continue
			}
			n.migrated++
			if data, err := os.ReadFile(r.Report.File); err != nil {
				t.Error(err)
			} else if raw, ok := skill.SplitFrontmatter(data); !ok || !bytes.HasSuffix(r.SkillFile(), raw.Body) {
				t.Errorf("%s: the body was not kept byte for byte", dir)
			}
			if r.Report.Valid {
				n.valid++
			} else {
				seen := map[string]bool{}
				for _, d := range r.Report.Diagnostics.Errors() {
					if !seen[d.Code] {
						seen[d.Code] = true
						invalid[d.Code]++
					}
				}
				if testing.Verbose() {
					t.Logf("%s: migrated but invalid: %v", dir, r.Report.Diagnostics.Errors())
				}
			}
			// Migrating the output again gives the same SKILL.md and changes nothing.
			r2, err := Migrate(ctx, filepath.Join(out, r.Name), Options{KnownTools: cat})
			if err != nil {
				t.Errorf("%s: migrating the output again: %v", dir, err)
				continue
			}
			if r2.Name != r.Name || !bytes.Equal(r.SkillFile(), r2.SkillFile()) {
				t.Errorf("%s: migration is not idempotent:\n--- first\n%s\n--- second\n%s", dir, r.SkillFile(), r2.SkillFile())
				continue
			}
			if len(r2.Report.Changes) > 0 {
				t.Errorf("%s: second migration still changes things: %+v", dir, r2.Report.Changes)
			}
			n.idempotent++
		}
		t.Logf("%-28s %4d skills: %4d migrated, %4d valid (strict), %4d idempotent, %4d not migratable",
			set, n.skills, n.migrated, n.valid, n.idempotent, n.skills-n.migrated)
		total.skills += n.skills
		total.migrated += n.migrated
		total.valid += n.valid
	}
	t.Logf("total %d skills: %d migrated, %d valid (strict)", total.skills, total.migrated, total.valid)
	logCounts(t, "not migratable", reasons)
	logCounts(t, "migrated, invalid", invalid)
	if total.skills < 800 {
		t.Errorf("found only %d Hermes and OpenClaw skills in %s", total.skills, root)
	}
}

func logCounts(t *testing.T, what string, m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, m[k])
	}
	t.Logf("%s:%s", what, b.String())
}
