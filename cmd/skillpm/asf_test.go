package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestAsfExitCodes checks the exit codes the asf commands and run document:
// 0 ok, 1 failure, 2 usage, 3 a workflow that does not expand.
func TestAsfExitCodes(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata", "asf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ASF_SKILLS_ROOT", filepath.Join(testdata, "invalid")+string(filepath.ListSeparator)+testdata)
	t.Setenv("ASF_STATE", "")
	t.Setenv("ASF_SESSION", "")
	cases := []struct {
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		{[]string{"asf", "inspect", "fix"}, "", exitOK, ""},
		{[]string{"asf", "inspect", "nope"}, "", exitOK, ""},
		{[]string{"asf", "inspect", "code"}, "", exitOK, ""},
		{[]string{"asf", "inspect", "cycle-a"}, "", exitValidation, "ERROR: cycle-a > cycle-b > cycle-a: call cycle"},
		{[]string{"asf", "init", "broken-fix", "t", "--session", "x"}, "", exitValidation, "ERROR: broken-fix > broken-diagnosis > 009-missing.md"},
		{[]string{"asf", "init", "orphan", "t", "--session", "x"}, "", exitValidation, "ERROR: orphan > nowhere"},
		{[]string{"asf", "init", "nope", "t", "--session", "x"}, "", exitFailure, "ERROR: skill not found: nope"},
		{[]string{"asf", "init", "code", "t", "--session", "x"}, "", exitFailure, "ERROR: code: not an ASF workflow"},
		{[]string{"asf", "init", "../x", "t", "--session", "x"}, "", exitUsage, "ERROR: invalid skill name"},
		{[]string{"asf", "init", "fix", "t", "--session", "a/b"}, "", exitUsage, "ERROR: invalid session id"},
		{[]string{"asf", "init", "fix", "t", "--session", "x", "--host", "vim"}, "", exitUsage, "ERROR: unknown host"},
		{[]string{"asf", "init", "fix"}, "", exitUsage, "skillpm: requires at least 2 arg(s)"},
		{[]string{"asf", "validate"}, "", exitValidation, "ERROR: ASF validation failed"},
		{[]string{"asf", "validate", "fix"}, "", exitOK, ""},
		{[]string{"asf", "complete", "X", "--session", "none"}, "", exitFailure, "ERROR: no ASF workflow"},
		{[]string{"asf", "hook", "stop"}, "nope", exitFailure, "ERROR: invalid hook payload"},
		{[]string{"asf", "hook", "stop"}, `{"hook_event_name":"Stop","session_id":"x"}`, exitOK, ""},
		{[]string{"asf", "hook", "nope"}, "", exitUsage, "skillpm: want one of"},
		{[]string{"run", "fix", "t", "--session", "r"}, "", exitOK, ""},
		{[]string{"run", "code", "t", "--session", "r2"}, "", exitFailure, "skillpm: cannot run code"},
		{[]string{"run", "cycle-a", "t", "--session", "r2"}, "", exitValidation, "skillpm: cannot run cycle-a"},
		{[]string{"run", "nope", "t", "--session", "r2"}, "", exitFailure, "skillpm: cannot run nope"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), c.stderr)
			}
			if c.code != exitOK && strings.Contains(stderr.String(), "ERROR:") && strings.Contains(stderr.String(), "skillpm:") {
				t.Errorf("an error printed twice: %s", stderr.String())
			}
		})
	}
}

func TestAsfHelpHasExamples(t *testing.T) {
	root := newRootCmd(&globals{})
	for _, name := range []string{"run", "asf"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		cmds := append(c.Commands(), c)
		for len(cmds) > 0 {
			cmd := cmds[0]
			cmds = append(cmds[1:], cmd.Commands()...)
			if cmd.Example == "" || cmd.Short == "" {
				t.Errorf("%s has no example or short help", cmd.CommandPath())
			}
		}
	}
}
