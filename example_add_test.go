package skillpm_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm"
	"github.com/skillpm/skillpm/sign"
)

// Add writes a skill into a project's skills.yaml at ^ the version it
// resolves to, installs it into the project's roots and writes the lock,
// as `skillpm add notes` does.
func ExampleEngine_Add() {
	e, key, dir, _, done := exampleSetup()
	defer done()
	ctx := context.Background()
	if _, err := e.Publish(ctx, skillpm.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		log.Fatal(err)
	}
	proj, err := os.MkdirTemp("", "skillpm-project-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(proj)

	res, err := e.Add(ctx, skillpm.AddRequest{
		Manifest: filepath.Join(proj, "skills.yaml"),
		Skills:   []skillpm.AddSkill{{Name: "notes"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range res.Added {
		fmt.Println("added", a.Name, a.Range, a.Version)
	}
	for _, r := range res.Result.Roots {
		rel, _ := filepath.Rel(proj, r.Root.Dir)
		fmt.Println(r.Root.Host, rel, r.Installed)
	}
	// Output:
	// added notes ^1.0.0 1.0.0
	// agents .agents/skills [notes]
}
