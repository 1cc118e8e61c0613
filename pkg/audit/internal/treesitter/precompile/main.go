// Command precompile writes the compiled code of the audit's parsers for
// the platform it runs on into pkg/audit/internal/treesitter/precompiled,
// which the binary embeds (see the treesitter package's precompiled.go).
// Run it from the repository's root after changing a module or wazero's
// version; with -check it compiles into a temporary directory and fails
// when the committed files differ, as make reproducible does.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/skillpm/skillpm/pkg/audit/internal/treesitter"
)

func main() {
	check := flag.Bool("check", false, "compare with the committed files instead of writing them")
	flag.Parse()
	if err := run(*check); err != nil {
		fmt.Fprintln(os.Stderr, "precompile:", err)
		os.Exit(1)
	}
}

func run(check bool) error {
	platform := runtime.GOOS + "_" + runtime.GOARCH
	dir := filepath.Join("pkg", "audit", "internal", "treesitter", "precompiled", platform)
	if _, err := os.Stat(filepath.Dir(dir)); err != nil {
		return fmt.Errorf("run it from the repository's root: %w", err)
	}
	if !check {
		if err := treesitter.WritePrecompiled(context.Background(), dir); err != nil {
			return err
		}
		fmt.Println("wrote", dir)
		return nil
	}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		fmt.Printf("no precompiled parsers for %s: nothing to check\n", platform)
		return nil
	}
	tmp, err := os.MkdirTemp("", "precompile-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := treesitter.WritePrecompiled(context.Background(), tmp); err != nil {
		return err
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	committed, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(ents) != len(committed) {
		return fmt.Errorf("%s holds %d files, a fresh compile %d: run go run ./pkg/audit/internal/treesitter/precompile", dir, len(committed), len(ents))
	}
	for _, e := range ents {
		want, err := os.ReadFile(filepath.Join(tmp, e.Name()))
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !bytes.Equal(got, want) {
			return fmt.Errorf("%s differs from a fresh compile (a module or wazero changed?): run go run ./pkg/audit/internal/treesitter/precompile", filepath.Join(dir, e.Name()))
		}
	}
	fmt.Printf("precompiled parsers for %s reproduced\n", platform)
	return nil
}
