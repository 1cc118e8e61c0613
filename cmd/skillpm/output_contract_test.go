package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// contractArgs are the arguments each command runs with in
// TestOutputContract, $W standing for the test's folder (which holds
// publisher.key and web-research, published signed to the embedded
// registry and installed in $W/r). Every command of the tree must be
// listed: a new command joins the contract by being added here.
// Commands that mutate run with arguments that make a second run the
// same (a no-op, or the same refusal); what loads or makes a key (scrypt)
// runs once or twice, not five times, to keep the test short.
var contractArgs = map[string][]string{
	"add":                 {"web-research", "--manifest", "$W/proj/skills.yaml", "--root", "$W/proj-root", "--grant", "network:read"},
	"adopt":               {"web-research", "--root", "$W/r"},
	"advisory publish":    {"$W/missing-advisory.yaml", "--key", "$W/missing.key"},
	"asf abort":           {},
	"asf complete":        {"step-1"},
	"asf current":         {},
	"asf hook":            {"read"},
	"asf hooks install":   {"--host", "nosuchhost"},
	"asf hooks uninstall": {"--host", "nosuchhost"},
	"asf init":            {"$W/web-research", "a task"},
	"asf inspect":         {"$W/web-research"},
	"asf interrupt":       {"why"},
	"asf resume":          {},
	"asf rewind":          {"step-1"},
	"asf status":          {},
	"asf validate":        {"$W/web-research"},
	"audit":               {"$W/web-research"},
	"bundle":              {"web-research", "--output-dir", "$W/bundle"},
	"cache clean":         {},
	"cache dir":           {},
	"cache prune":         {},
	"deprecate":           {"web-research@1.0.0", "old", "--key", "$W/missing.key"},
	"doctor":              {},
	"hosts":               {},
	"index build":         {},
	"info":                {"web-research"},
	"init":                {"$W/web-research"},
	"install":             {"web-research", "--root", "$W/r"},
	"keygen":              {"--output-prefix", "$W/second"},
	"list":                {"--root", "$W/r"},
	"lock":                {"--manifest", "$W/proj/skills.yaml"},
	"login":               {"127.0.0.1:1", "--username", "u", "--password-stdin"},
	"logout":              {"127.0.0.1:1"},
	"migrate":             {"$W/web-research", "--dry-run", "--output-dir", "$W/migrated"},
	"mirror":              {"--registry", "embedded", "--to-registry", "oci-layout:$W/mirror"},
	"outdated":            {"--root", "$W/r"},
	"pack":                {"$W/web-research", "--no-vcs", "--output-file", "$W/web-research.tar.gz"},
	"policy approve":      {"$W/missing-policy.yaml", "--yes"},
	"policy check":        {"$W/missing-policy.yaml"},
	"policy show":         {},
	"promote":             {"web-research@1.0.0", "--key", "$W/missing.key"},
	"publish":             {"$W/web-research", "--no-vcs"},
	"pull":                {"web-research", "--output-dir", "$W/pulled"},
	"quarantine":          {"--root", "$W/r"},
	"remove":              {"no-such-skill", "--root", "$W/r"},
	"restore":             {"no-such-skill", "--root", "$W/r"},
	"run":                 {"$W/web-research", "a task"},
	"search":              {"research"},
	"sign":                {"web-research@1.0.0", "--key", "$W/publisher.key"},
	"sign-blob":           {"$W/web-research/SKILL.md", "--key", "$W/publisher.key"},
	"tree":                {"--root", "$W/r"},
	"trust add":           {"$W/publisher.pub", "--policy", "$W/policy.yaml"},
	"trust remove":        {"$W/missing.pub", "--policy", "$W/policy.yaml"},
	"update":              {"--root", "$W/r"},
	"validate":            {"$W/web-research"},
	"verify":              {"web-research@1.0.0", "--key", "$W/publisher.pub"},
	"verify-blob":         {"$W/web-research/SKILL.md", "--key", "$W/publisher.pub", "--bundle", "$W/missing.sigstore.json"},
	"version":             {},
	"why":                 {"web-research", "--root", "$W/r"},
	"yank":                {"web-research@9.9.9", "--key", "$W/missing.key"},
}

// contractVarying are commands whose two runs print different results by
// design (an ECDSA signature is randomized), so -q's result cannot be
// found in the default's.
var contractVarying = map[string]bool{"sign-blob": true}

// contractDated are commands whose output names digests of artifacts that
// carry the time they were made, to the second (the sparse index's
// issued-at time, its freshness bound): two runs a second apart print
// other digests, so their lines are compared with digests masked.
var contractDated = map[string]bool{"index build": true}

// digestRE matches a digest in output, for contractDated.
var digestRE = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

// contractSkipped are commands the contract cannot run in-process, and why.
var contractSkipped = map[string]string{
	"serve": "serves until interrupted; its JSON is the HTTP API's, checked against the OpenAPI document in serve_test.go",
}

// TestOutputContract runs every command in one prepared folder, each as
// text twice, then with -q, -v and --output json, and checks the output
// layer's contract: in JSON mode stdout is one JSON document with a
// schema key (or nothing) and every stderr line is JSON; the lines -q
// prints are among those the default prints; -v and -q exit as the
// default does.
func TestOutputContract(t *testing.T) {
	work := plainOutputWork(t)
	if err := os.MkdirAll(filepath.Join(work, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "policy.yaml"), []byte("version: 1\npolicies: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	skillpm(t, 0, "keygen", "--output-prefix", filepath.Join(work, "publisher"), "--no-passphrase")
	skillpm(t, 0, "publish", filepath.Join(work, "web-research"), "--no-vcs", "--sign", "--key", filepath.Join(work, "publisher.key"))
	skillpm(t, 0, "install", "web-research", "--root", filepath.Join(work, "r"), "--allow-experimental")

	var paths []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.HasSubCommands() && c.Name() != "help" && c.Name() != "completion" {
			paths = append(paths, strings.TrimPrefix(c.CommandPath(), "skillpm "))
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(&globals{}))
	for _, path := range paths {
		if _, skip := contractSkipped[path]; skip {
			continue
		}
		raw, ok := contractArgs[path]
		if !ok {
			t.Errorf("skillpm %s is not in contractArgs: add the arguments it runs with", path)
			continue
		}
		args := strings.Fields(path)
		for _, a := range raw {
			args = append(args, strings.ReplaceAll(a, "$W", work))
		}
		t.Run(strings.ReplaceAll(path, " ", "_"), func(t *testing.T) {
			runCLI(args...) // the first run may change what the second finds
			def := runCLI(args...)
			quiet := runCLI(append(args, "-q")...)
			verbose := runCLI(append(args, "-v")...)
			js := runCLI(append(args, "--output", "json")...)
			if quiet.code != def.code || verbose.code != def.code {
				t.Errorf("exit codes: default %d, -q %d, -v %d; want the same", def.code, quiet.code, verbose.code)
			}
			if js.code != def.code {
				t.Errorf("exit code with --output json %d, default %d", js.code, def.code)
			}
			// -q keeps only what was asked for, possibly as bare values (a
			// name per line instead of a table): every word it prints is
			// one the default prints.
			if contractDated[path] {
				for _, r := range []*cliResult{&def, &quiet} {
					r.stdout = digestRE.ReplaceAllString(r.stdout, "sha256:…")
					r.stderr = digestRE.ReplaceAllString(r.stderr, "sha256:…")
				}
			}
			if !contractVarying[path] {
				subset(t, "stdout", quiet.stdout, def.stdout)
				subset(t, "stderr", quiet.stderr, def.stderr)
			}
			if s := strings.TrimSpace(js.stdout); s != "" {
				checkJSONDocuments(t, s)
			}
			for _, l := range lines(js.stderr) {
				if !json.Valid([]byte(l)) {
					t.Errorf("--output json: stderr line %q is not JSON", l)
				}
			}
		})
	}
}

// checkJSONDocuments checks that s is JSON: one document (or one per line,
// as asf hook streams), each object with a schema key.
func checkJSONDocuments(t *testing.T, s string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Errorf("--output json: stdout is not JSON (%v):\n%s", err, s)
			return
		}
		if m, ok := v.(map[string]any); ok {
			if _, has := m["schema"]; !has {
				t.Errorf("--output json: document without a schema key:\n%s", s)
			}
		}
	}
}

// subset fails unless every word of quiet is a word of def.
func subset(t *testing.T, stream, quiet, def string) {
	t.Helper()
	words := strings.Fields(def)
	for _, w := range strings.Fields(quiet) {
		if !slices.Contains(words, w) {
			t.Errorf("-q printed %q on %s, which the default does not:\n-q:\n%s\ndefault:\n%s", w, stream, quiet, def)
			return
		}
	}
}

type cliResult struct {
	code           int
	stdout, stderr string
}

// runCLI runs the CLI in-process with an empty stdin.
func runCLI(args ...string) cliResult {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return cliResult{code, out.String(), errb.String()}
}

// lines are the non-empty lines of s.
func lines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// copyTree copies the regular files under from to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// plainOutputWork is a fresh CLI environment with plain output (no
// colour, no SKILLPM_LOG) and a copy of testdata's web-research skill in
// its work folder, which it returns.
func plainOutputWork(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	cliEnv(t, work)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("SKILLPM_LOG", "")
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "skills", "web-research"))
	if err != nil {
		t.Fatal(err)
	}
	copyTree(t, src, filepath.Join(work, "web-research"))
	return work
}
