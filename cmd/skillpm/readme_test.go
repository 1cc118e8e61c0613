package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestReadmeTourInSync: the README's short tour is what
// testdata/script/readme_tour.txtar runs. Every command of its sh blocks
// (skillpm, mkdir, cd; "~" read as $HOME) is a line of the script, in the
// same order (the script may check more between them), and its policy.yaml block is the script's policy.yaml, so
// the tour cannot drift from what is tested.
func TestReadmeTourInSync(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	tour := string(readme)
	i := strings.Index(tour, "## A short tour")
	if i < 0 {
		t.Fatal("README.md has no \"## A short tour\"")
	}
	tour = tour[i:]
	if j := strings.Index(tour[3:], "\n## "); j >= 0 {
		tour = tour[:j+3]
	}
	var want []string
	var policy string
	block := regexp.MustCompile("(?s)```(sh|yaml)\n(.*?)```")
	comment := regexp.MustCompile(`\s+#.*$`)
	for _, m := range block.FindAllStringSubmatch(tour, -1) {
		if m[1] == "yaml" {
			policy = m[2]
			continue
		}
		for _, line := range strings.Split(m[2], "\n") {
			cmd := strings.TrimSpace(comment.ReplaceAllString(line, ""))
			if cmd == "" || strings.HasPrefix(cmd, "$EDITOR") {
				continue
			}
			cmd = strings.ReplaceAll(cmd, "~/", "$HOME/")
			if strings.HasPrefix(cmd, "skillpm ") {
				cmd = "exec " + cmd
			}
			want = append(want, cmd)
		}
	}
	if len(want) < 10 || policy == "" {
		t.Fatalf("found %d commands and policy %q in the tour", len(want), policy)
	}
	ar, err := txtar.ParseFile(filepath.Join("testdata", "script", "readme_tour.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if strings.HasPrefix(line, "exec skillpm ") || strings.HasPrefix(line, "mkdir ") || strings.HasPrefix(line, "cd ") {
			got = append(got, line)
		}
	}
	// The script may check more (extra exec lines), but runs every tour
	// command, in the tour's order.
	i = 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("the script does not run the README's %q (or not in the tour's order); the script's commands:\n%s", want[i], strings.Join(got, "\n"))
	}
	for _, f := range ar.Files {
		if f.Name == "policy.yaml" && string(f.Data) != policy {
			t.Errorf("policy.yaml differs from the README's:\n%s", f.Data)
		}
	}
}
