package engine_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
)

// TestPublishAll: every skill under a directory is published and signed,
// one that does not build is its own item's failure; publishing again
// changes and signs nothing; a missing or skill-less directory is the
// request's error.
func TestPublishAll(t *testing.T) {
	e, key, dir, _, done := exampleSetup()
	t.Cleanup(done)
	ctx := context.Background()
	tree := t.TempDir()
	copyDir(t, dir, filepath.Join(tree, "notes"))
	bad := filepath.Join(tree, "nested", "broken")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "SKILL.md"), []byte("---\nname: broken\n---\nno description\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := &sign.SignOptions{Key: key.Key}
	res, err := e.PublishAll(ctx, engine.PublishRequest{Dir: tree, Sign: opts})
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]engine.PublishItem{}
	for _, it := range res.Items {
		items[it.Path] = it
	}
	ok, broken := items["notes"], items[filepath.Join("nested", "broken")]
	if len(res.Items) != 2 || ok.Err != nil || ok.PublishResult == nil || ok.Unchanged || ok.Signed == nil {
		t.Fatalf("items = %+v; want notes published and signed", res.Items)
	}
	var be *engine.BuildError
	var ve *skill.ValidationError
	if !errors.As(broken.Err, &be) || !errors.As(broken.Err, &ve) || broken.PublishResult != nil {
		t.Errorf("broken: %+v; want a BuildError with the diagnostics", broken)
	}

	again, err := e.PublishAll(ctx, engine.PublishRequest{Dir: filepath.Join(tree, "notes"), Sign: opts})
	if err != nil || len(again.Items) != 1 {
		t.Fatalf("again: %+v, %v", again, err)
	}
	if it := again.Items[0]; it.Err != nil || !it.Unchanged || it.Signed != nil || it.Path != "." {
		t.Errorf("again: %+v; want unchanged, not signed again, at path .", it)
	}

	if _, err := e.PublishAll(ctx, engine.PublishRequest{Dir: filepath.Join(tree, "missing")}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("a missing directory: %v, want ErrInvalidRequest", err)
	}
	if _, err := e.PublishAll(ctx, engine.PublishRequest{Dir: t.TempDir()}); errdef.ClassOf(err) != errdef.NotFound {
		t.Errorf("a directory without skills: %v, want a not-found error", err)
	}
}

// TestPublishRefreshesSparse: once the source has a sparse index, a
// publish that changes a version re-describes it there and signs the
// index with the publish's key, and says so (a note to Options.Log); an
// unchanged publish leaves it alone.
func TestPublishRefreshesSparse(t *testing.T) {
	eopts, key, dir, _, done := exampleOptions()
	t.Cleanup(done)
	notes, warnings := &recorder{level: slog.LevelInfo}, &recorder{level: slog.LevelWarn}
	eopts.Log = slog.New(teeHandler{notes, warnings})
	ctx := context.Background()
	e, err := engine.Open(ctx, eopts)
	if err != nil {
		t.Fatal(err)
	}
	sparseNotes := func() []string {
		var out []string
		for _, m := range notes.messages() {
			if strings.Contains(m, "sparse index") {
				out = append(out, m)
			}
		}
		return out
	}
	opts := &sign.SignOptions{Key: key.Key}
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: opts}); err != nil {
		t.Fatal(err)
	}
	if got := sparseNotes(); len(got) != 0 {
		t.Errorf("no sparse index yet, but the publish refreshed one: %q", got)
	}
	if _, err := e.BuildIndex(ctx, engine.BuildIndexRequest{Sign: opts}); err != nil {
		t.Fatal(err)
	}
	v2 := filepath.Join(t.TempDir(), "notes")
	copyDir(t, dir, v2)
	data, err := os.ReadFile(filepath.Join(v2, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "version: 1.0.0", "version: 1.1.0", 1))
	if err := os.WriteFile(filepath.Join(v2, "SKILL.md"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: v2, Sign: opts}); err != nil {
		t.Fatal(err)
	}
	if got := sparseNotes(); len(got) != 1 || !strings.HasPrefix(got[0], "updated the sparse index ") || !strings.HasSuffix(got[0], ", signed)") {
		t.Errorf("sparse refresh notes = %q; want one saying the index was updated and signed", got)
	}
	if w := warnings.messages(); len(w) != 0 {
		t.Errorf("warnings %q; want none", w)
	}
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: v2, Sign: opts}); err != nil {
		t.Fatal(err)
	}
	if got := sparseNotes(); len(got) != 1 {
		t.Errorf("an unchanged publish refreshed the index: %q", got)
	}
}

// copyDir copies the files of src (one level) into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// teeHandler hands each record to every handler that wants its level.
type teeHandler []slog.Handler

func (t teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range t {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range t {
		if h.Enabled(ctx, r.Level) {
			if err := h.Handle(ctx, r); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t teeHandler) WithAttrs([]slog.Attr) slog.Handler { return t }
func (t teeHandler) WithGroup(string) slog.Handler      { return t }
