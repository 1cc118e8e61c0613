//go:build conformance

package hosts

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformanceCatchesBrokenEntries runs scripts/conformance.sh against
// the real Codex CLI with the built-in table as it is (it must pass) and
// with one entry broken at a time (each run must fail, and on the check
// that reads the broken fact): a conformance run that passes whatever the
// table says would prove nothing. Only Codex is installed, to keep it
// cheap; the symlink rule is Claude Code's, whose link is checked on disk
// without its CLI. It runs under make conformance (the conformance tag).
func TestConformanceCatchesBrokenEntries(t *testing.T) {
	for _, tool := range []string{"bash", "npm", "node", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH: conformance needs it", tool)
		}
	}
	table, err := os.ReadFile("hosts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// One npm prefix for every run: the CLI is installed once.
	npmDir := t.TempDir()
	conform := func(t *testing.T, yaml []byte) (string, error) {
		t.Helper()
		env := append(os.Environ(), "CONFORMANCE_HOSTS=codex", "CONFORMANCE_NPM_PREFIX="+npmDir,
			// The scenarios that read the mutated facts (and those the
			// others need); the variables' relative and "~" forms and the
			// hooks are left out.
			"CONFORMANCE_SCENARIOS=default moved project link default4 moved4 lifecycle")
		if yaml != nil {
			p := filepath.Join(t.TempDir(), "hosts.yaml")
			if err := os.WriteFile(p, yaml, 0o644); err != nil {
				t.Fatal(err)
			}
			env = append(env, "CONFORMANCE_HOSTS_YAML="+p)
		}
		cmd := exec.CommandContext(context.Background(), "bash", filepath.Join("..", "scripts", "conformance.sh"))
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}

	t.Run("unbroken", func(t *testing.T) {
		out, err := conform(t, nil)
		if err != nil || !strings.Contains(out, "conformance: ok") {
			t.Fatalf("conformance of the built-in table with Codex failed (%v):\n%s", err, out)
		}
	})

	// Each mutation replaces one line of one entry; want is a FAIL line
	// the broken fact must cause.
	mutations := []struct {
		name, host, old, new string
		want                 []string
	}{{
		name: "root",
		host: "codex",
		old:  "    user: [{env: CODEX_HOME, dir: ~/.codex, join: skills}]\n",
		new:  "    user: [{env: CODEX_HOME, dir: ~/.codex-broken, join: skills}]\n",
		want: []string{"FAIL  codex does not list conf-codex from ", "/default/home/.codex/skills"},
	}, {
		name: "variable",
		host: "codex",
		old:  "    user: [{env: CODEX_HOME, dir: ~/.codex, join: skills}]\n",
		new:  "    user: [{env: CODEX_HOME_BROKEN, dir: ~/.codex, join: skills}]\n",
		want: []string{"FAIL  codex does not list conf-codex from ", "/moved/codex-home/skills"},
	}, {
		name: "project-root",
		host: "codex",
		old:  "    project: [{dir: .codex/skills}]\n",
		new:  "    project: [{dir: .codex/skill}]\n",
		want: []string{"FAIL  codex does not list conf-codex from ", "/project/proj/.codex/skills"},
	}, {
		// Claude Code follows a linked skill folder; an entry that says it
		// ignores links makes install --link copy instead (or refuse).
		name: "symlinks",
		host: "claude",
		old:  "    symlinks: followed\n",
		new:  "    symlinks: ignored\n",
		want: []string{"FAIL  ", "/.claude/skills/conf-link"},
	}}
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			broken := mutate(t, table, m.host, m.old, m.new)
			out, err := conform(t, broken)
			if err == nil || !strings.Contains(out, "conformance: FAIL") {
				t.Fatalf("conformance passed with the %s mutation (%q -> %q):\n%s", m.name, m.old, m.new, out)
			}
			if !hasLine(out, m.want) {
				t.Fatalf("conformance failed, but not on the broken %s (want a line with %q):\n%s", m.name, m.want, out)
			}
		})
	}
}

// mutate replaces the one occurrence of old in the entry of host.
func mutate(t *testing.T, table []byte, host, old, new string) []byte {
	t.Helper()
	s := string(table)
	start := strings.Index(s, "\n  - id: "+host+"\n")
	if start < 0 {
		t.Fatalf("hosts.yaml has no entry %s: update the mutation", host)
	}
	end := strings.Index(s[start+1:], "\n  - id: ")
	if end < 0 {
		end = len(s)
	} else {
		end += start + 1
	}
	entry := s[start:end]
	if n := strings.Count(entry, old); n != 1 {
		t.Fatalf("the %s entry holds %q %d times, want once: update the mutation", host, old, n)
	}
	return []byte(s[:start] + strings.Replace(entry, old, new, 1) + s[end:])
}

// hasLine says whether one line of out holds every part.
func hasLine(out string, parts []string) bool {
	for _, l := range strings.Split(out, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}
