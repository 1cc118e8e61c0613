package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
)

func waitFor(t *testing.T, out *registrytest.SyncBuffer, want string) {
	t.Helper()
	// mpb draws on its own ticker, so the test polls; the bound is the
	// test binary's own (-timeout), less a margin to say what was drawn,
	// never a figure a loaded machine can miss.
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Hour)
	}
	deadline = deadline.Add(-30 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("progress never drew %q; drew:\n%q", want, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProgressOneLinePerRun: a run over many skills is one line counting
// them ("[2/3] publishing web-notes 0.3.0"), not a line per blob; the
// bytes of one publish add up on one line; Stop takes the line away and
// later events draw nothing.
func TestProgressOneLinePerRun(t *testing.T) {
	out := &registrytest.SyncBuffer{}
	v := &progressView{out: out, sizes: map[string]int64{}, moved: map[string]int64{}}
	v.Item("publishing", 1, 3, "web-research", "1.0.0")
	v.Blob(registry.Progress{Op: "push", Title: "config", State: registry.ProgressDone, Descriptor: ocispec.Descriptor{Digest: digest.FromString("c"), Size: 10}})
	v.Item("publishing", 2, 3, "web-notes", "0.3.0")
	waitFor(t, out, "[2/3] publishing web-notes 0.3.0")
	if strings.Contains(out.String(), "config") {
		t.Errorf("a blob's title reached the line of a run over skills:\n%q", out.String())
	}
	v.Stop()
	v.Stop() // idempotent
	n := len(out.String())
	v.Item("publishing", 3, 3, "late", "1.0.0")
	if len(out.String()) != n {
		t.Errorf("the view drew after Stop")
	}

	out = &registrytest.SyncBuffer{}
	v = &progressView{out: out, sizes: map[string]int64{}, moved: map[string]int64{}}
	layer := ocispec.Descriptor{Digest: digest.FromString("l"), Size: 3 << 20}
	v.Blob(registry.Progress{Op: "push", Location: registry.Location{Registry: "r", Repository: "skills/web-notes"}, State: registry.ProgressRunning, Bytes: 1 << 20, Descriptor: layer})
	waitFor(t, out, "publishing web-notes")
	waitFor(t, out, "1.0 MiB / 3.0 MiB")
	v.Stop()
}

// TestProgressOffAPipe: no view (and so nothing drawn) when stderr is not
// a terminal, with -q, or in JSON mode.
func TestProgressOffAPipe(t *testing.T) {
	for _, g := range []*globals{
		{stderr: &bytes.Buffer{}, stdout: &bytes.Buffer{}},
		{stderr: &bytes.Buffer{}, stdout: &bytes.Buffer{}, quiet: true},
		{stderr: &bytes.Buffer{}, stdout: &bytes.Buffer{}, output: "json"},
	} {
		if g.output == "" {
			g.output = "text"
		}
		if err := g.setupOutput(func(string) string { return "" }); err != nil {
			t.Fatal(err)
		}
		if g.progress != nil || regProgress(g) != nil {
			t.Errorf("progress on a pipe (quiet %v, output %s)", g.quiet, g.output)
		}
		var nilView *progressView
		nilView.Item("publishing", 1, 2, "x", "1") // a nil view does nothing
		nilView.Stop()
	}
}
