//go:build integration

package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSkillsCLIPackage reads the agents table from the published skills
// package itself (npm pack, then testdata/skills-agents.mjs under node): at
// the pinned version it must equal the checked-in extract, and the table is
// compared with it as TestSkillsCLITable does. SKILLPM_SKILLS_CLI_VERSION
// names another release, to see what it adds or changes.
func TestSkillsCLIPackage(t *testing.T) {
	for _, tool := range []string{"npm", "node", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH: install Node.js (npm and node) to read the skills package", tool)
		}
	}
	version := skillsCLIVersion
	if v := os.Getenv("SKILLPM_SKILLS_CLI_VERSION"); v != "" {
		version = v
	}
	ctx := context.Background()
	dir := t.TempDir()
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
		}
		return out
	}
	tgz := strings.TrimSpace(string(run("npm", "pack", "--silent", "skills@"+version)))
	run("tar", "xzf", tgz)
	script, err := filepath.Abs("testdata/skills-agents.mjs")
	if err != nil {
		t.Fatal(err)
	}
	got := run("node", script, filepath.Join(dir, "package"), version)
	if version == skillsCLIVersion {
		want, err := os.ReadFile(skillsCLIExtractFile)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
			t.Errorf("the agents table of skills@%s is not %s: regenerate it with node testdata/skills-agents.mjs", version, skillsCLIExtractFile)
		}
	}
	var ex skillsCLIExtract
	if err := json.Unmarshal(got, &ex); err != nil {
		t.Fatal(err)
	}
	compareSkillsCLI(t, ex)
}
