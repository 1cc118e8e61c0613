package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/sign"
)

// Add writes a skill into a project's skills.yaml at ^ the version it
// resolves to, installs it into the project's roots and writes the lock,
// as `skillpm add notes` does.
func ExampleEngine_Add() {
	opts, key, dir, _, done := exampleOptions()
	defer done()
	ctx := context.Background()
	proj, err := os.MkdirTemp("", "skillpm-project-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(proj)
	// The project is the Engine's: a skills.yaml (here a new one) and the
	// lock beside it.
	opts.Manifest = filepath.Join(proj, "skills.yaml")
	e, err := engine.Open(ctx, opts)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		log.Fatal(err)
	}

	res, err := e.Add(ctx, engine.AddRequest{InstallRequest: engine.InstallRequest{Refs: []string{"notes"}}})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range res.Added {
		fmt.Println("added", a.Name, a.Range, res.Lock.Get(a.Name).Version)
	}
	for _, r := range res.Result.Roots {
		rel, _ := filepath.Rel(proj, r.Root.Dir)
		fmt.Println(r.Root.Host, rel, r.Installed)
	}
	// Output:
	// added notes ^1.0.0 1.0.0
	// agents .agents/skills [notes]
}

// Audit scans skill directories (or one published version) without
// running anything and judges each at the tier it claims, as `skillpm
// audit` does.
func ExampleEngine_Audit() {
	e, _, _, _, done := exampleSetup()
	defer done()
	res, err := e.Audit(context.Background(), engine.AuditRequest{Paths: []string{
		filepath.Join("..", "testdata", "audit", "clean", "web-fetch"),
		filepath.Join("..", "testdata", "audit", "hostile", "instr-exfil"),
	}})
	if err != nil {
		log.Fatal(err)
	}
	sum := audit.NewSummary()
	for _, s := range res.Skills {
		fmt.Println(s.Report.Skill, s.Verdict.Decision, "at", s.Verdict.Tier)
		sum.Add(s.Path, s.Verdict, s.Err != nil)
	}
	fmt.Println("blocked:", len(sum.Blocks))
	// Output:
	// web-fetch pass at verified
	// instr-exfil block at community
	// blocked: 1
}

// Outdated lists the installed skills that have newer versions: the
// newest their range allows (wanted) and the newest release (latest).
func ExampleEngine_Outdated() {
	opts, key, dir, _, done := exampleOptions()
	defer done()
	ctx := context.Background()
	// The Engine's manifest names no project: the installed skills are
	// checked.
	opts.Manifest = filepath.Join(dir, "no-project.yaml")
	e, err := engine.Open(ctx, opts)
	if err != nil {
		log.Fatal(err)
	}
	md := filepath.Join(dir, "SKILL.md")
	src, err := os.ReadFile(md)
	if err != nil {
		log.Fatal(err)
	}
	publish := func(version string) {
		if err := os.WriteFile(md, []byte(strings.Replace(string(src), "version: 1.0.0", "version: "+version, 1)), 0o644); err != nil {
			log.Fatal(err)
		}
		if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
			log.Fatal(err)
		}
	}
	publish("1.0.0")
	if _, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes@^1"}}); err != nil {
		log.Fatal(err)
	}
	publish("1.2.0")
	publish("2.0.0")

	res, err := e.Outdated(ctx, engine.OutdatedRequest{})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range res.Skills {
		if s.Outdated() {
			fmt.Println(s.Name, s.Installed, "wanted", s.Wanted, "latest", s.Latest)
		}
	}
	// Output:
	// notes 1.0.0 wanted 1.2.0 latest 2.0.0
}
