package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/engine"
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
	res, err := e.PublishAll(ctx, engine.PublishAllRequest{Source: tree, Sign: opts})
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

	again, err := e.PublishAll(ctx, engine.PublishAllRequest{Source: filepath.Join(tree, "notes"), Sign: opts})
	if err != nil || len(again.Items) != 1 {
		t.Fatalf("again: %+v, %v", again, err)
	}
	if it := again.Items[0]; it.Err != nil || !it.Unchanged || it.Signed != nil || it.Path != "." {
		t.Errorf("again: %+v; want unchanged, not signed again, at path .", it)
	}

	if _, err := e.PublishAll(ctx, engine.PublishAllRequest{Source: filepath.Join(tree, "missing")}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("a missing directory: %v, want ErrInvalidRequest", err)
	}
	if _, err := e.PublishAll(ctx, engine.PublishAllRequest{Source: t.TempDir()}); !errors.Is(err, engine.ErrNoSuchSkill) {
		t.Errorf("a directory without skills: %v, want ErrNoSuchSkill", err)
	}
}

// TestPublishRefreshesSparse: once the source has a sparse index, a
// publish that changes a version re-describes it there and signs the
// index with the publish's key; an unchanged publish leaves it alone.
func TestPublishRefreshesSparse(t *testing.T) {
	e, key, dir, _, done := exampleSetup()
	t.Cleanup(done)
	ctx := context.Background()
	opts := &sign.SignOptions{Key: key.Key}
	first, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: opts})
	if err != nil {
		t.Fatal(err)
	}
	if first.Sparse != nil {
		t.Errorf("no sparse index yet, but the publish refreshed one: %+v", first.Sparse)
	}
	if _, err := e.BuildIndex(ctx, engine.IndexRequest{Sign: opts}); err != nil {
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
	res, err := e.Publish(ctx, engine.PublishRequest{Dir: v2, Sign: opts})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Sparse; s == nil || s.Err != nil || s.SignErr != nil || !s.Signed || len(s.Result.Changed) != 1 || s.Result.Changed[0] != "notes" {
		t.Errorf("sparse refresh = %+v; want notes re-described and the index signed", s)
	}
	again, err := e.Publish(ctx, engine.PublishRequest{Dir: v2, Sign: opts})
	if err != nil || again.Sparse != nil {
		t.Errorf("an unchanged publish: sparse %+v, %v; want no refresh", again.Sparse, err)
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
