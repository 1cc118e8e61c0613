package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSuggestedCommandsExist reads the product's sources (the CLI, the
// engine and the installer, where hints and doctor's advice are worded)
// for "skillpm CMD SUB" and fails when CMD is a command with subcommands
// and SUB is none of them: a hint must never name a command that does
// not exist (doctor's "skillpm policy init" did).
func TestSuggestedCommandsExist(t *testing.T) {
	root := newRootCmd(&globals{})
	re := regexp.MustCompile(`skillpm ([a-z][a-z-]+) ([a-z][a-z-]+)`)
	var files []string
	for _, dir := range []string{".", "../../engine", "../../install"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	// prose is sentences about a command, not suggestions of one.
	prose := map[string]bool{"skillpm asf needs": true}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			if prose[m[0]] {
				continue
			}
			cmd, _, err := root.Find([]string{m[1]})
			if err != nil || cmd == root || !cmd.HasSubCommands() {
				continue // prose ("skillpm writes the"), or a leaf command and its argument
			}
			checked++
			if sub, _, err := cmd.Find([]string{m[2]}); err != nil || sub == cmd {
				t.Errorf("%s: %q: %s has no subcommand %s", f, m[0], m[1], m[2])
			}
		}
	}
	if checked == 0 {
		t.Fatal("no suggestion of a subcommand found: the pattern no longer matches the sources")
	}
}
