package gitsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// gitCmd runs git in a repository with an environment that never prompts
// and gives messages in English, so failures can be told apart.
type gitCmd struct {
	git  string
	dir  string
	env  []string
	ref  *Ref // for redacting fetch URLs out of messages
	args []string
}

func (c *Cache) cmd(dir string, r *Ref, args ...string) *gitCmd {
	return &gitCmd{git: c.git, dir: dir, env: c.opts.Env, ref: r, args: args}
}

func (g *gitCmd) exec(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	args := g.args
	if g.dir != "" {
		args = append([]string{"--git-dir", g.dir}, args...)
	}
	cmd := exec.CommandContext(ctx, g.git, args...)
	cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	cmd.Env = append(cmd.Env, g.env...)
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if g.ref != nil {
			msg = strings.ReplaceAll(msg, g.ref.fetchURL(), g.ref.Remote())
		}
		// git's first fatal or error line says what failed; the rest is
		// advice about its own command line.
		for _, line := range strings.Split(msg, "\n") {
			if strings.HasPrefix(line, "fatal: ") || strings.HasPrefix(line, "error: ") {
				msg = strings.TrimPrefix(strings.TrimPrefix(line, "fatal: "), "error: ")
				break
			}
		}
		var ee *exec.ExitError
		if msg == "" || !errors.As(err, &ee) {
			msg = err.Error()
		}
		return &gitError{op: g.args[0], msg: msg}
	}
	return nil
}

func (g *gitCmd) output(ctx context.Context) (string, error) {
	var out bytes.Buffer
	err := g.exec(ctx, nil, &out)
	return out.String(), err
}

// gitError is git's own message for a failed command.
type gitError struct {
	op, msg string
}

func (e *gitError) Error() string { return "git " + e.op + ": " + e.msg }

// hint says what a user can do about a failed fetch, from git's message.
func hint(msg string) string {
	switch {
	case strings.Contains(msg, "Could not resolve host"):
		return " (unknown host: check the reference's host name and your network)"
	case strings.Contains(msg, "not found"), strings.Contains(msg, "does not appear to be a git repository"), strings.Contains(msg, "not a git repository"):
		return " (no repository there: check the reference's path, or your access to it)"
	case strings.Contains(msg, "Authentication failed"), strings.Contains(msg, "Permission denied"), strings.Contains(msg, "could not read Username"):
		return " (access refused: configure git credentials for this host, e.g. a credential helper or an SSH key)"
	case strings.Contains(msg, "Connection refused"), strings.Contains(msg, "timed out"), strings.Contains(msg, "Could not connect"), strings.Contains(msg, "Failed to connect"):
		return " (remote unreachable)"
	}
	return ""
}

func fetchErr(err error) error {
	var ge *gitError
	if errors.As(err, &ge) {
		return fmt.Errorf("%w: %s%s", ErrFetch, ge.msg, hint(ge.msg))
	}
	return fmt.Errorf("%w: %v", ErrFetch, err)
}
