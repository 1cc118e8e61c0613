package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/tiers"
)

func TestTermPrompter(t *testing.T) {
	consent := tiers.Consent{Tier: "community", Permission: skill.Permission{Domain: "shell", Level: "execute"}, Question: "web@1.0.0 asks for shell:execute. Allow it?"}
	tests := []struct {
		input   string
		want    bool
		wantErr string
		asked   int
	}{
		{"y\n", true, "", 1},
		{"YES\n", true, "", 1},
		{"n\n", false, "", 1},
		{"\n", false, "", 1},
		{"maybe\ny\n", true, "", 2},
		{"a\nb\nc\ny\n", false, "", 3},
		{"y", true, "", 1},
		{"", false, "use --grant shell:execute or --yes", 1},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		p := &termPrompter{in: bufio.NewReader(strings.NewReader(tt.input)), out: &out}
		got, err := p.Confirm(context.Background(), consent)
		if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%q: got %v, %v", tt.input, got, err)
		}
		if n := strings.Count(out.String(), "Allow it? [y/N] "); n != tt.asked {
			t.Errorf("%q: asked %d times: %q", tt.input, n, out.String())
		}
	}
}

// TestTermPrompterCancel: Ctrl-C (a cancelled ctx) is not stuck behind a
// read that never returns.
func TestTermPrompterCancel(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &termPrompter{in: bufio.NewReader(r), out: io.Discard}
	if _, err := p.Confirm(ctx, tiers.Consent{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

// TestNoTerminalNoPrompter: without a terminal there is no prompter, so
// tiers refuses and names the flag; --ask asks on stdin anyway.
func TestNoTerminalNoPrompter(t *testing.T) {
	g := &globals{stdin: strings.NewReader("y\n"), stdout: io.Discard, stderr: io.Discard}
	if p := newTermPrompter(g, false); p != nil {
		t.Errorf("prompter = %v on a non-terminal", p)
	}
	p := newTermPrompter(g, true)
	if p == nil {
		t.Fatal("no prompter with --ask")
	}
	if ok, err := p.Confirm(context.Background(), tiers.Consent{Question: "install?"}); !ok || err != nil {
		t.Errorf("--ask answered y: %v, %v", ok, err)
	}
}
