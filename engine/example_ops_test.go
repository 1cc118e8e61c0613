package engine_test

import (
	"context"
	"fmt"
	"log"
	"path/filepath"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
)

// Validate checks skill directories strictly, as publish does; invalid
// skills are results, not errors.
func ExampleValidate() {
	v, err := engine.Validate(context.Background(), engine.ValidateRequest{Dirs: []string{
		filepath.Join("..", "testdata", "skills", "web-research"),
		filepath.Join("..", "testdata", "invalid", "description-missing"),
	}})
	if err != nil {
		log.Fatal(err)
	}
	sum := skill.Summarize(v.Results)
	fmt.Println("skills:", sum.Skills, "valid:", sum.Valid)
	// Output:
	// skills: 2 valid: 1
}

// PublishAll publishes every skill under a directory, as
// `skillpm publish -r DIR` does; each skill has its own outcome.
func ExampleEngine_PublishAll() {
	e, key, dir, _, done := exampleSetup()
	defer done()
	ctx := context.Background()

	res, err := e.PublishAll(ctx, engine.PublishRequest{Dir: filepath.Dir(dir), Sign: &sign.SignOptions{Key: key.Key}})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range res.Items {
		fmt.Println(it.Path, it.Err, it.Artifact.Skill.Version, "signed:", it.Signed != nil)
	}
	// Output:
	// notes <nil> 1.0.0 signed: true
}

// DependencyGraphs' graphs explain why a skill is installed: the chains
// from the skills asked for by name, as `skillpm why NAME` prints them.
func ExampleEngine_DependencyGraphs() {
	e, key, dir, _, done := exampleSetup()
	defer done()
	ctx := context.Background()
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		log.Fatal(err)
	}
	if _, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes@^1"}}); err != nil {
		log.Fatal(err)
	}

	res, err := e.DependencyGraphs(ctx, engine.GraphRequest{})
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range res.Graphs {
		for _, ch := range g.Chains("notes") {
			fmt.Println(filepath.Base(ch.From), ch.Steps)
		}
	}
	// Output:
	// skills [{notes 1.0.0 ^1}]
}
