package engine_test

import (
	"context"
	"fmt"
	"log"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/sign"
)

// The README's program ("As a Go library") against an embedded registry
// holding notes 1.0.0, signed by a key the policy gives the community
// tier: the README's Options literal is opts here (the embedded
// registry's client, the policy file, a home of its own); the rest is the
// README's main, line for line (TestReadmeProgramIsExample).
func Example_readme() {
	opts, key, dir, _, done := exampleOptions()
	defer done()
	publisher, err := engine.Open(context.Background(), opts)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := publisher.Publish(context.Background(), engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		log.Fatal(err)
	}

	// The README's program.
	ctx := context.Background()
	// policy.yaml decides each skill's tier from its signatures; the
	// default host's user root receives the install.
	e, err := engine.Open(ctx, opts)
	if err != nil {
		log.Fatal(err)
	}
	res, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes@^1"}, Checks: engine.Checks{MinTier: "community"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Plan {
		fmt.Println(p.Lock.Name, p.Lock.Version, p.Lock.Tier)
	}
	// Output:
	// notes 1.0.0 community
}
