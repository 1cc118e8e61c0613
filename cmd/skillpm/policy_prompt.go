package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/tiers"
	"golang.org/x/term"
)

// termPrompter asks for consent, one question per skill the user named
// (its tier and why, its permissions): the question on stderr, the answer
// read from stdin. It is the tiers.Prompter the install commands pass
// when both are terminals, or with --ask.
type termPrompter struct {
	in  *bufio.Reader
	out io.Writer
}

// newTermPrompter returns a prompter when stdin and stderr are terminals
// or ask (--ask) says a script answers on stdin, and nil otherwise, so
// that tiers refuses with the flag to use instead of waiting for an
// answer nobody can give.
func newTermPrompter(g *globals, ask bool) tiers.Prompter {
	if !ask && (!isTerminal(g.stdin) || !isTerminal(g.stderr)) {
		return nil
	}
	return &termPrompter{in: bufio.NewReader(g.stdin), out: g.stderr}
}

// consentFlags names the flags that answer c in a script.
func consentFlags(c tiers.Consent) string {
	perms := c.Permissions
	if len(perms) == 0 && c.Permission.Domain != "" {
		perms = []skill.Permission{c.Permission}
	}
	var fl []string
	if c.Experimental {
		fl = append(fl, "--allow-experimental")
	}
	for _, p := range perms {
		fl = append(fl, "--grant "+p.Key())
	}
	switch {
	case len(fl) == 0:
		fl = append(fl, "--yes")
	case len(perms) > 0:
		fl = append(fl, "or --yes")
	}
	return "use " + strings.Join(fl, " ")
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Confirm asks until it gets yes or no (an empty answer is no). Reading
// happens in a goroutine so that Ctrl-C, which cancels ctx, is not stuck
// behind a blocked read.
func (p *termPrompter) Confirm(ctx context.Context, c tiers.Consent) (bool, error) {
	for range 3 {
		fmt.Fprintf(p.out, "%s [y/N] ", termLines(c.Question))
		type answer struct {
			line string
			err  error
		}
		ch := make(chan answer, 1)
		go func() {
			line, err := p.in.ReadString('\n')
			ch <- answer{line, err}
		}()
		var a answer
		select {
		case <-ctx.Done():
			fmt.Fprintln(p.out)
			return false, ctx.Err()
		case a = <-ch:
		}
		switch strings.ToLower(strings.TrimSpace(a.line)) {
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		case "":
			if a.err != nil {
				if errors.Is(a.err, io.EOF) {
					return false, fmt.Errorf("no answer (end of input); %s instead", consentFlags(c))
				}
				return false, a.err
			}
			return false, nil
		}
		if a.err != nil {
			return false, a.err
		}
		fmt.Fprintln(p.out, "please answer y or n")
	}
	return false, nil
}
