package migrate_test

import (
	"context"
	"fmt"

	"github.com/skillpm/skillpm/pkg/migrate"
)

// Migrate computes the GAIA form of an OpenClaw skill without writing it.
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
	// valid: true
}
