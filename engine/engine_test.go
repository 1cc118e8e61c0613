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
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
)

// TestDefaultHostSeveral: with skills installed for two hosts and none
// named, Install installs for each of them (where those hosts' agents
// read skills).
func TestDefaultHostSeveral(t *testing.T) {
	opts, key, dir, _, done := exampleOptions()
	t.Cleanup(done)
	ctx := context.Background()
	e, err := engine.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"claude", "agents"} {
		hopts := opts
		hopts.Target = roots.Target{Hosts: []string{h}}
		he, err := engine.Open(ctx, hopts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := he.Install(ctx, engine.InstallRequest{Refs: []string{"notes"}}); err != nil {
			t.Fatalf("--host %s: %v", h, err)
		}
	}
	res, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes"}})
	if err != nil {
		t.Fatalf("install without a host: %v", err)
	}
	if len(res.Roots) != 2 || res.Roots[0].Root.Host != "agents" || res.Roots[1].Root.Host != "claude" {
		t.Errorf("install without a host went to %+v, want the roots of agents and claude", res.Roots)
	}
}

// TestLockWritesOnlyWhenChanged: Lock writes the lock the first time and
// leaves the file alone when resolving again gives the same bytes;
// Frozen writes nothing.
func TestLockWritesOnlyWhenChanged(t *testing.T) {
	opts, key, dir, _, done := exampleOptions()
	t.Cleanup(done)
	ctx := context.Background()
	manifest := notesProject(t, inProject(t, opts, ""), key, dir)
	proj := filepath.Dir(manifest)
	e := inProject(t, opts, manifest)
	first, err := e.Lock(ctx, engine.LockRequest{})
	if err != nil || !first.Changed || first.Lock.File != filepath.Join(proj, "skills.lock") {
		t.Fatalf("first lock: %+v, %v", first, err)
	}
	file := first.Lock.File
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	// An old mtime: a rewrite, even of the same bytes, would move it.
	old := fi.ModTime().Add(-3600e9)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	again, err := e.Lock(ctx, engine.LockRequest{})
	if err != nil || again.Changed {
		t.Fatalf("second lock: %+v, %v", again, err)
	}
	if fi, err := os.Stat(file); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("an unchanged lock was rewritten: %v %v", fi.ModTime(), err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	frozen, err := e.Lock(ctx, engine.LockRequest{Frozen: true})
	if err == nil || frozen != nil {
		t.Fatalf("frozen without a lock: %+v, %v", frozen, err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a frozen lock wrote the file: %v", err)
	}
}

// TestRegistryOnly: a request from another program names registry
// references only; git references and directories are refused without
// any I/O, and accepted otherwise.
func TestRegistryOnly(t *testing.T) {
	e, _, _, _, done := exampleSetup()
	t.Cleanup(done)
	ctx := context.Background()
	for _, ref := range []string{"github:acme/skills", "git+file:///nonexistent/repo", "./notes"} {
		err := e.CheckRefs(ctx, engine.InstallRequest{Refs: []string{ref}, RegistryOnly: true})
		if !errors.Is(err, install.ErrUnsupportedRef) {
			t.Errorf("%s, registry only: %v, want ErrUnsupportedRef", ref, err)
		}
		if err := e.CheckRefs(ctx, engine.InstallRequest{Refs: []string{ref}}); err != nil {
			t.Errorf("%s: %v", ref, err)
		}
	}
	if err := e.CheckRefs(ctx, engine.InstallRequest{Refs: []string{"notes@^^1"}}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("a malformed range: %v, want ErrInvalidRequest", err)
	}
}

// TestMirrorVerifies: a mirror with a minimum tier verifies each version
// under the engine's policy: the signed one is copied, the one signed by
// nobody the policy trusts is refused and not copied.
func TestMirrorVerifies(t *testing.T) {
	e, key, dir, _, done := exampleSetup()
	t.Cleanup(done)
	ctx := context.Background()
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		t.Fatal(err)
	}
	other, err := sign.GenerateKey("", nil)
	if err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(filepath.Dir(dir), "draft")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: draft\ndescription: A draft for tests. Use in tests.\nversion: 0.1.0\nmetadata:\n  gaia:\n    security_tier: community\n---\n# Draft\n"
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: skill, Sign: &sign.SignOptions{Key: other.Key}}); err != nil {
		t.Fatal(err)
	}
	dst := "oci-layout:" + filepath.Join(t.TempDir(), "mirror")
	res, err := e.Mirror(ctx, engine.MirrorRequest{To: dst,
		Options: registry.MirrorOptions{Names: []string{"notes", "draft"}, Jobs: 2, MinTier: "community"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count(registry.MirrorCopied) != 1 || res.Count(registry.MirrorRefused) != 1 {
		t.Fatalf("copied %d, refused %d; want 1 and 1: %+v", res.Count(registry.MirrorCopied), res.Count(registry.MirrorRefused), res.Versions)
	}
	bad, _, _, _, badDone := exampleOptions()
	t.Cleanup(badDone)
	bad.Source = "notes"
	be, err := engine.Open(ctx, bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := be.Mirror(ctx, engine.MirrorRequest{To: dst}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("a bare name as the source: %v, want ErrInvalidRequest", err)
	}
}

// TestSearchBuildsLocalIndex: the embedded registry has no index until
// the first search builds it (and says so, a note to Options.Log); hits
// are verified under the policy.
func TestSearchBuildsLocalIndex(t *testing.T) {
	opts, key, dir, _, done := exampleOptions()
	t.Cleanup(done)
	notes := &recorder{level: slog.LevelInfo}
	opts.Log = slog.New(notes)
	ctx := context.Background()
	e, err := engine.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, engine.SearchRequest{Query: "notes remember", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	built := 0
	for _, m := range notes.messages() {
		if strings.HasPrefix(m, "built the search index of ") && strings.Contains(m, "(1 skill)") {
			built++
		}
	}
	if built != 1 || len(res.Hits) != 1 || res.Hits[0].Skill.Name != "notes" || res.Hits[0].Effective != "community" {
		t.Fatalf("built %d (notes %q), hits %+v", built, notes.messages(), res.Hits)
	}
	if _, err := e.Search(ctx, engine.SearchRequest{Query: "notes", NoVerify: true, RequireSignedIndex: true}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("a signed index without verification: %v, want ErrInvalidRequest", err)
	}
}

// TestList: what Install wrote, List reads back from the same roots, and
// project scope for a host without project roots is a bad request.
func TestList(t *testing.T) {
	opts, key, dir, _, done := exampleOptions()
	t.Cleanup(done)
	ctx := context.Background()
	e, err := engine.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.List(ctx, engine.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Skills) != 1 || got.Skills[0].Name != "notes" || !got.Skills[0].Managed || got.Skills[0].Root.Dir != res.Roots[0].Root.Dir {
		t.Fatalf("listed %+v, installed into %s", got.Skills, res.Roots[0].Root.Dir)
	}
	opts.Target = roots.Target{Scope: "galaxy"}
	galaxy, err := engine.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := galaxy.List(ctx, engine.ListRequest{}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("an unknown scope: %v, want ErrInvalidRequest", err)
	}
}

// TestSignAndInfo: Sign by reference signs once per key (the second
// call attaches nothing) and Describe lists the repository's versions.
func TestSignAndInfo(t *testing.T) {
	e, key, dir, _, done := exampleSetup()
	t.Cleanup(done)
	ctx := context.Background()
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	first, err := e.Sign(ctx, engine.SignRequest{Ref: "notes@1.0.0", Sign: sign.SignOptions{Key: key.Key}})
	if err != nil || first.Unchanged {
		t.Fatalf("first signature: %+v, %v", first, err)
	}
	again, err := e.Sign(ctx, engine.SignRequest{Ref: "notes@^1", Sign: sign.SignOptions{Key: key.Key}})
	if err != nil || !again.Unchanged || again.Referrer != first.Referrer {
		t.Fatalf("signing again: %+v, %v; want unchanged, referrer %s", again, err, first.Referrer)
	}
	d, err := e.Describe(ctx, engine.DescribeRequest{Arg: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	if info := d.Published; info.Manifest.Metadata.Version != "1.0.0" || len(info.Versions) != 1 || info.Versions[0].String() != "1.0.0" {
		t.Fatalf("info: %s, versions %v", info.Manifest.Metadata.Version, info.Versions)
	}
	if _, err := e.Describe(ctx, engine.DescribeRequest{Arg: "./notes"}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("info of a directory: %v, want ErrInvalidRequest", err)
	}
}
