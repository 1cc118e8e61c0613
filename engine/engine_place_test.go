package engine_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
)

// TestInstallLinks: an install with Placement link puts the copy in the
// agents root and a relative link in claude's root, with a note for
// codex, which reads the copy; a later install that says nothing keeps
// the link.
func TestInstallLinks(t *testing.T) {
	opts, key, dir, home, done := exampleOptions()
	t.Cleanup(done)
	ctx := context.Background()
	e, err := engine.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{level: slog.LevelInfo}
	opts.Log = slog.New(rec)
	opts.Target = roots.Target{Hosts: []string{"claude", "codex"}, Placement: install.PlaceLink}
	e, err = engine.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes"}})
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, ".claude", "skills", "notes")
	if got, err := os.Readlink(link); err != nil || got != filepath.Join("..", "..", ".agents", "skills", "notes") {
		t.Fatalf("%s: link to %q (%v), want ../../.agents/skills/notes", link, got, err)
	}
	if fi, err := os.Lstat(filepath.Join(home, ".agents", "skills", "notes")); err != nil || !fi.IsDir() {
		t.Fatalf("the copy in the agents root: %v", err)
	}
	if notes := rec.messages(); len(notes) != 1 || notes[0] != "note: codex reads "+filepath.Join(home, ".agents", "skills")+": the copy there serves it, no link needed" {
		t.Errorf("notes %q, want one saying codex reads the copy", notes)
	}
	if len(res.Roots) != 2 {
		t.Fatalf("installed into %d roots, want the copy's and the link's", len(res.Roots))
	}
	// Nothing said: the root holds links, so the install keeps linking.
	opts.Target = roots.Target{Hosts: []string{"claude"}}
	if e, err = engine.Open(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes"}, Checks: engine.Checks{Force: true}}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s after an install that said nothing: not a link (%v); want the link kept", link, err)
	}
}

// refusingAuditor blocks every skill.
type refusingAuditor struct{ calls int }

func (a *refusingAuditor) Audit(_ context.Context, _ string, tier skill.Tier) (install.AuditVerdict, error) {
	a.calls++
	return install.AuditVerdict{Decision: install.AuditBlock, Tier: tier, Reasons: []string{"refused by the test's auditor"}}, nil
}

// TestOptionsAuditor: the engine's installs run Options.Auditor, not the
// static audit, so its refusal stops the install and nothing lands.
func TestOptionsAuditor(t *testing.T) {
	opts, key, dir, home, done := exampleOptions()
	t.Cleanup(done)
	ctx := context.Background()
	e, err := engine.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		t.Fatal(err)
	}
	aud := &refusingAuditor{}
	opts.Auditor = aud
	e, err = engine.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Install(ctx, engine.InstallRequest{Refs: []string{"notes"}})
	if err == nil || aud.calls == 0 {
		t.Fatalf("install under a refusing auditor: %v after %d audits, want a refusal", err, aud.calls)
	}
	if _, serr := os.Stat(filepath.Join(home, ".claude", "skills", "notes")); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("a refused install left the skill in place: %v", serr)
	}
}

// recorder is a slog.Handler that keeps the messages of the records of
// one level, as a program handling Options.Log would.
type recorder struct {
	level slog.Level
	mu    sync.Mutex
	msgs  []string
}

func (r *recorder) Enabled(_ context.Context, l slog.Level) bool { return l == r.level }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	return nil
}

func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

// messages returns the messages kept so far.
func (r *recorder) messages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}
