package migrate_test

import (
	"context"
	"fmt"

	"github.com/skillpm/skillpm/pkg/migrate"
)

// Migrate computes the GAIA form of an OpenClaw skill without writing it.
// The skill runs git, for which GAIA ships no binary policy, so GAIA's
// loader would refuse it: the report says so.
func ExampleMigrate() {
	r, err := migrate.Migrate(context.Background(), "../../testdata/migrate/openclaw/git-status", migrate.Options{From: migrate.OpenClaw})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(r.SkillFile()))
	for _, m := range r.Report.Mapped {
		fmt.Println("mapped:", m.From, "->", m.To, m.Values)
	}
	fmt.Println("valid:", r.Report.Valid)
	for _, d := range r.Report.Diagnostics.Errors() {
		fmt.Println(d.Code+":", d.Message)
	}
	// Output:
	// ---
	// name: git-status
	// description: Summarize the working tree status.
	// version: 0.3.0
	// metadata:
	//   gaia:
	//     security_tier: experimental
	//     permissions:
	//       - shell:execute:git
	//   openclaw:
	//     requires:
	//       bins: [git]
	// ---
	// # Git Status
	//
	// Run `git status --porcelain=v2` and summarize staged, unstaged and untracked files.
	// mapped: metadata.openclaw.requires.bins -> metadata.gaia.permissions (shell:execute) [git]
	// valid: false
	// gaia-refused: GAIA 0.23.0 refuses shell:execute:git: GAIA ships no policy for git, only for gh, pytest (binaries.py BINARY_POLICIES)
}
