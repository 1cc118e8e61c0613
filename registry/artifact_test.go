package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	goldenfile "github.com/skillpm/skillpm/internal/golden"
	"github.com/skillpm/skillpm/pkg/archive"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestManifestGolden pins the exact manifest bytes of the example skills:
// media types, annotations and their encoding are the contract with every
// other OCI tool (artifact.md).
func TestManifestGolden(t *testing.T) {
	for _, dir := range []string{"../testdata/skills/web-research", "../testdata/asf/fix"} {
		a := build(t, dir)
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, a.ManifestBytes, "", "  "); err != nil {
			t.Fatal(err)
		}
		pretty.WriteString("\n")
		goldenfile.Check(t, filepath.Join("testdata", a.Skill.Name+".manifest.json"), pretty.Bytes(), *update)
	}
}

func TestBuildArtifact(t *testing.T) {
	ctx := context.Background()
	dir := writeSkill(t, t.TempDir(), skillSpec{name: "art", version: "1.2.3+meta", permissions: []string{"network:read", "filesystem:read"},
		requires: map[string]string{"zeta": "<2.0", "alpha": "^1"}, files: map[string]string{"a.txt": "a"}})
	a := build(t, dir)
	m := a.Manifest
	if m.MediaType != ocispec.MediaTypeImageManifest || m.ArtifactType != ArtifactType || m.SchemaVersion != 2 {
		t.Errorf("manifest header %q %q %d", m.MediaType, m.ArtifactType, m.SchemaVersion)
	}
	if m.Config.MediaType != ConfigMediaType || m.Config.Size != int64(len(a.Config)) {
		t.Errorf("config %+v", m.Config)
	}
	if len(m.Layers) != 1 || m.Layers[0].MediaType != LayerMediaType || m.Layers[0].Annotations[ocispec.AnnotationTitle] != "art-1.2.3+meta.tar.gz" {
		t.Errorf("layers %+v", m.Layers)
	}
	want := map[string]string{
		ocispec.AnnotationTitle:       "art",
		ocispec.AnnotationVersion:     "1.2.3+meta",
		ocispec.AnnotationDescription: "Test skill art for registry tests. Use when testing.",
		ocispec.AnnotationLicenses:    "MIT",
		AnnotationRequires:            `{"alpha":"^1","zeta":"<2.0"}`,
		AnnotationTier:                "community",
		AnnotationPermissions:         `["network:read","filesystem:read"]`,
		AnnotationTree:                a.Pack.TreeHash,
	}
	if len(m.Annotations) != len(want) {
		t.Errorf("annotations %v, want %v", m.Annotations, want)
	}
	for k, v := range want {
		if m.Annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, m.Annotations[k], v)
		}
	}
	if !bytes.Contains(a.ManifestBytes, []byte(`<2.0`)) || bytes.Contains(a.ManifestBytes, []byte(`\u003c`)) {
		t.Errorf("manifest escapes HTML: %s", a.ManifestBytes)
	}
	if a.Tag() != "1.2.3_meta" {
		t.Errorf("Tag() = %q", a.Tag())
	}
	tree, err := archive.TreeHashDir(ctx, dir, archive.PackOptions{})
	if err != nil || tree.TreeHash != a.Pack.TreeHash {
		t.Errorf("tree %s, TreeHashDir %s (%v)", a.Pack.TreeHash, tree.TreeHash, err)
	}
	// Deterministic: the same skill twice gives the same bytes, even with
	// other mtimes.
	os.Chtimes(filepath.Join(dir, "a.txt"), time.Now(), time.Unix(12345, 0))
	b := build(t, dir)
	if a.Descriptor.Digest != b.Descriptor.Digest {
		t.Errorf("two builds: %s and %s", a.Descriptor.Digest, b.Descriptor.Digest)
	}
	// created only with SOURCE_DATE_EPOCH.
	epoch, err := SourceDateEpoch(func(string) string { return "1700000000" })
	if err != nil {
		t.Fatal(err)
	}
	c, err := Build(ctx, dir, BuildOptions{NoVCS: true, Created: epoch})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Manifest.Annotations[ocispec.AnnotationCreated]; got != "2023-11-14T22:13:20Z" {
		t.Errorf("created = %q", got)
	}
	if _, ok := a.Manifest.Annotations[ocispec.AnnotationCreated]; ok {
		t.Error("created set without SOURCE_DATE_EPOCH")
	}
	if _, err := SourceDateEpoch(func(string) string { return "soon" }); err == nil {
		t.Error("SourceDateEpoch accepted garbage")
	}
}

func TestBuildGitMetadata(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git not installed: the provenance annotations come from it")
	}
	root := t.TempDir()
	dir := writeSkill(t, root, skillSpec{name: "gitty", version: "1.0.0"})
	repo := filepath.Dir(dir)
	run := func(args ...string) {
		cmd := exec.Command(git, append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	run("remote", "add", "origin", "https://user:s3cret@example.com/acme/skills.git")
	run("add", ".")
	run("commit", "-q", "-m", "init")
	a, err := Build(context.Background(), dir, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Manifest.Annotations[ocispec.AnnotationSource]; got != "https://example.com/acme/skills.git" {
		t.Errorf("source = %q (credentials must be stripped)", got)
	}
	if rev := a.Manifest.Annotations[ocispec.AnnotationRevision]; len(rev) != 40 {
		t.Errorf("revision = %q", rev)
	}
	b, _ := Build(context.Background(), dir, BuildOptions{NoVCS: true})
	if _, ok := b.Manifest.Annotations[ocispec.AnnotationRevision]; ok {
		t.Error("NoVCS still wrote a revision")
	}
	// Outside a checkout: nothing.
	plain := writeSkill(t, t.TempDir(), skillSpec{name: "plain", version: "1.0.0"})
	c, _ := Build(context.Background(), plain, BuildOptions{})
	if _, ok := c.Manifest.Annotations[ocispec.AnnotationSource]; ok {
		t.Error("source annotation outside a git checkout")
	}
}

func TestStripUserinfo(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:tok@github.com/a/b.git": "https://github.com/a/b.git",
		"git@github.com:a/b.git":              "git@github.com:a/b.git",
		"user:TOKEN@github.com:a/b.git":       "github.com:a/b.git",
		"ssh://git@host/x":                    "ssh://host/x",
		"":                                    "",
		// Every form a token can hide in.
		"alice:TOKEN@github.com:acme/x.git":      "github.com:acme/x.git",
		"ghp_SECRET123@github.com:acme/x.git":    "github.com:acme/x.git",
		"ssh://user:token@github.com/acme/x.git": "ssh://github.com/acme/x.git",
		"https://x-access-token:t@h/a%zz":        "https://h/a%zz",
		"https://TOKEN@github.com/acme/x.git":    "https://github.com/acme/x.git",
		"git+ssh://bob:pw@host:22/acme/x.git":    "git+ssh://host:22/acme/x.git",
	} {
		if got := stripUserinfo(in); got != want {
			t.Errorf("stripUserinfo(%q) = %q, want %q", in, got, want)
		}
	}
}
