package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
)

// notesProject publishes the example skill signed and writes a project
// manifest, in a directory of its own, that asks for notes ^1.
func notesProject(t *testing.T, e *engine.Engine, key *sign.KeyPair, dir string) (manifest string) {
	t.Helper()
	if _, err := e.Publish(context.Background(), engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		t.Fatal(err)
	}
	manifest = filepath.Join(t.TempDir(), "skills.yaml")
	if err := os.WriteFile(manifest, []byte("skills:\n  notes: ^1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return manifest
}

// publishVersions publishes the example skill at each version, signed.
func publishVersions(t *testing.T, e *engine.Engine, key *sign.KeyPair, dir string, versions ...string) {
	t.Helper()
	md := filepath.Join(dir, "SKILL.md")
	src, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if err := os.WriteFile(md, []byte(strings.Replace(string(src), "version: 1.0.0", "version: "+v, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Publish(context.Background(), engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
			t.Fatalf("publish %s: %v", v, err)
		}
	}
}

// TestOutdated: an installed skill is behind once newer versions are
// published (wanted within its range, latest beyond it); in a project
// the lock's version is reported; up-to-date skills are reported too,
// saying they are not behind.
func TestOutdated(t *testing.T) {
	opts, key, dir, _, done := exampleOptions()
	t.Cleanup(done)
	e := inProject(t, opts, "")
	ctx := context.Background()
	publishVersions(t, e, key, dir, "1.0.0")
	if _, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes@^1"}}); err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	none := filepath.Join(proj, "none.yaml")
	outside := inProject(t, opts, none)
	res, err := outside.Outdated(ctx, engine.OutdatedRequest{})
	if err != nil || len(res.Skills) != 1 || res.Skills[0].Outdated() || res.Skills[0].Locked != "" {
		t.Fatalf("nothing newer: %+v, %v", res, err)
	}
	publishVersions(t, e, key, dir, "1.1.0", "2.0.0")
	res, err = outside.Outdated(ctx, engine.OutdatedRequest{})
	if err != nil || len(res.Skills) != 1 || !res.Skills[0].Outdated() {
		t.Fatalf("after 1.1.0 and 2.0.0: %+v, %v", res, err)
	}
	if s := res.Skills[0]; s.Name != "notes" || s.Installed != "1.0.0" || s.Wanted != "1.1.0" || s.Latest != "2.0.0" || s.Locked != "" || s.Root == "" {
		t.Errorf("installed notes: %+v", s)
	}

	manifest := filepath.Join(proj, "skills.yaml")
	if err := os.WriteFile(manifest, []byte("skills:\n  notes: ~1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := inProject(t, opts, manifest)
	if _, err := project.Lock(ctx, engine.LockRequest{}); err != nil {
		t.Fatal(err)
	}
	res, err = project.Outdated(ctx, engine.OutdatedRequest{})
	if err != nil || len(res.Skills) != 1 || !res.Skills[0].Outdated() {
		t.Fatalf("project: %+v, %v", res, err)
	}
	if s := res.Skills[0]; s.Locked != "1.0.0" || s.Range != "~1.0" || s.Wanted != "1.0.0" || s.Latest != "2.0.0" {
		t.Errorf("project notes: %+v", s)
	}
	if err := os.WriteFile(manifest, []byte("skills:\n  notes: ^^1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := project.Outdated(ctx, engine.OutdatedRequest{}); err == nil {
		t.Error("a manifest with a malformed range: no error")
	}
}

// TestDescribe: a path is the local skill, a bare name the installed
// copies once installed (the published version before, or when a
// manifest or a source is asked for), and a directory with no SKILL.md is
// a validation error with the diagnostics.
func TestDescribe(t *testing.T) {
	opts, key, dir, _, done := exampleOptions()
	t.Cleanup(done)
	e := inProject(t, opts, "")
	ctx := context.Background()
	publishVersions(t, e, key, dir, "1.0.0")
	d, err := e.Describe(ctx, engine.DescribeRequest{Arg: dir})
	if err != nil || d.Local == nil || d.Local.Skill.Name != "notes" || d.Published != nil {
		t.Fatalf("a directory: %+v, %v", d, err)
	}
	d, err = e.Describe(ctx, engine.DescribeRequest{Arg: "notes"})
	if err != nil || d.Published == nil || len(d.Published.Versions) != 1 || d.Installed != nil {
		t.Fatalf("published, not installed: %+v, %v", d, err)
	}
	if _, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"notes"}}); err != nil {
		t.Fatal(err)
	}
	d, err = e.Describe(ctx, engine.DescribeRequest{Arg: "notes"})
	if err != nil || len(d.Installed) != 1 || d.Installed[0].Version != "1.0.0" {
		t.Fatalf("installed: %+v, %v", d, err)
	}
	d, err = e.Describe(ctx, engine.DescribeRequest{Arg: "notes", ManifestOnly: true})
	if err != nil || d.Published == nil || d.Published.Versions != nil || len(d.Published.Manifest.Raw) == 0 {
		t.Fatalf("the published manifest only: %+v, %v", d, err)
	}
	opts.Source = resolve.EmbeddedSource
	d, err = inProject(t, opts, "").Describe(ctx, engine.DescribeRequest{Arg: "notes"})
	if err != nil || d.Published == nil || len(d.Published.Versions) != 1 || d.Installed != nil {
		t.Fatalf("installed, from a source named: %+v, %v; want the published version", d, err)
	}
	empty := t.TempDir()
	d, err = e.Describe(ctx, engine.DescribeRequest{Arg: empty})
	if errdef.ClassOf(err) != errdef.Validation || d == nil || d.Local == nil || len(d.Local.Diagnostics) == 0 {
		t.Fatalf("a directory without a skill: %+v, %v", d, err)
	}
	if _, err := e.Describe(ctx, engine.DescribeRequest{Arg: "nosuchskill"}); err == nil {
		t.Error("a name neither installed nor published: no error")
	}
}

// TestDoctor: a healthy setup has no problems; a policy that does not
// load and a project whose locked skill is not installed are reported
// (the drift as an *install.LockDrift), and a password is never shown.
func TestDoctor(t *testing.T) {
	opts, key, dir, _, done := exampleOptions()
	t.Cleanup(done)
	e := inProject(t, opts, "")
	ctx := context.Background()
	publishVersions(t, e, key, dir, "1.0.0")
	proj := t.TempDir()
	opts.Env.Getenv = func(k string) string {
		if k == "SKILLPM_PASSWORD" {
			return "hunter2"
		}
		return ""
	}
	rep, err := inProject(t, opts, filepath.Join(proj, "none.yaml")).Doctor(ctx, engine.DoctorRequest{})
	if err != nil || len(rep.Problems) != 0 || rep.Manifest != nil || rep.Host == "" {
		t.Fatalf("a healthy setup: %+v, %v", rep, err)
	}
	if len(rep.Registries) != 1 || rep.Registries[0].Source != "embedded" || rep.Registries[0].Err != nil {
		t.Errorf("registries: %+v", rep.Registries)
	}
	if rep.Env["SKILLPM_PASSWORD"] != "(set)" || len(rep.Env) != 1 {
		t.Errorf("env: %v", rep.Env)
	}
	if len(rep.Roots) == 0 {
		t.Error("no roots")
	}

	badPolicy := filepath.Join(proj, "policy.yaml")
	if err := os.WriteFile(badPolicy, []byte("version: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(proj, "skills.yaml")
	if err := os.WriteFile(manifest, []byte("skills:\n  notes: ^1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := inProject(t, opts, manifest)
	if _, err := project.Lock(ctx, engine.LockRequest{}); err != nil {
		t.Fatal(err)
	}
	opts.PolicyFile = badPolicy
	rep, err = inProject(t, opts, manifest).Doctor(ctx, engine.DoctorRequest{})
	if err != nil || rep.Policy != badPolicy || rep.Manifest == nil {
		t.Fatalf("a broken setup: %+v, %v", rep, err)
	}
	if len(rep.Problems) < 2 || !strings.HasPrefix(rep.Problems[0].Error(), "policy "+badPolicy+": ") {
		t.Fatalf("problems: %v", rep.Problems)
	}
	var drift *install.LockDrift
	if len(rep.Drift) == 0 || !errors.As(rep.Drift[0], &drift) || drift.Kind != install.DriftNotInstalled || drift.Name != "notes" || drift.Locked != "1.0.0" {
		t.Errorf("drift: %v", rep.Drift)
	}
}

// TestAdd: a dry run writes nothing; a name without a range is written
// at ^ the version resolved, a range given is written as given, a name
// already in the manifest keeps its range, and a new manifest records
// the scope and host; NoInstall writes the files without installing.
func TestAdd(t *testing.T) {
	opts, key, dir, _, done := exampleOptions()
	t.Cleanup(done)
	ctx := context.Background()
	proj := t.TempDir()
	manifest := filepath.Join(proj, "skills.yaml")
	e := inProject(t, opts, manifest)
	publishVersions(t, e, key, dir, "1.0.0", "1.1.0")
	dry, err := e.Add(ctx, engine.AddRequest{InstallRequest: engine.InstallRequest{Refs: []string{"notes"}, DryRun: true}})
	if err != nil || len(dry.Added) != 1 || dry.Added[0].Range != "^1.1.0" || dry.Lock.Get("notes").Version != "1.1.0" {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	for _, f := range []string{"skills.yaml", "skills.lock", ".agents"} {
		if _, err := os.Stat(filepath.Join(proj, f)); !os.IsNotExist(err) {
			t.Fatalf("a dry run wrote %s: %v", f, err)
		}
	}
	res, err := e.Add(ctx, engine.AddRequest{NoInstall: true, InstallRequest: engine.InstallRequest{Refs: []string{"notes@~1.0"}}})
	if err != nil || len(res.Roots) != 0 || res.Added[0].Range != "~1.0" || res.Lock.Get("notes").Version != "1.0.0" {
		t.Fatalf("no install, ~1.0: %+v, %v", res, err)
	}
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"notes: ~1.0", "scope: project", "agents"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the new manifest lacks %q:\n%s", want, data)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, "skills.lock")); err != nil {
		t.Errorf("no lock written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(proj, ".agents", "skills", "notes")); !os.IsNotExist(err) {
		t.Errorf("NoInstall installed: %v", err)
	}
	again, err := e.Add(ctx, engine.AddRequest{InstallRequest: engine.InstallRequest{Refs: []string{"notes"}}})
	if err != nil || again.Added[0].Range != "~1.0" || again.Result == nil || len(again.Result.Roots) == 0 {
		t.Fatalf("adding a name the manifest has: %+v, %v", again, err)
	}
	if _, err := e.Add(ctx, engine.AddRequest{InstallRequest: engine.InstallRequest{Refs: []string{"nosuchskill"}}}); err == nil {
		t.Error("adding a name no source has: no error")
	}
	if after, _ := os.ReadFile(manifest); string(after) != string(data) {
		t.Errorf("a failed add changed the manifest:\n%s", after)
	}
	// Update finds the project as Add did: Breaking moves its range.
	up, err := e.Update(ctx, engine.UpdateRequest{Breaking: true})
	if err != nil || up.Manifest == nil || up.Ranges["notes"] != "^1.1.0" || up.Result == nil || up.Lock.Get("notes").Version != "1.1.0" {
		t.Fatalf("update in the project with Breaking: %+v, %v", up, err)
	}
	// Roots named are no project: its ranges cannot move there.
	opts.Target = roots.Target{Roots: []string{t.TempDir()}}
	if _, err := inProject(t, opts, manifest).Update(ctx, engine.UpdateRequest{Breaking: true}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("Breaking with roots named: %v, want ErrInvalidRequest", err)
	}
}

// TestAudit: one directory passes or blocks as a result, not an error;
// several are audited in order with a summary and a missing one
// refused; a published version is pulled and named NAME@VERSION; a
// directory cannot be attested, and one that is not there is
// install.ErrAuditFailed.
func TestAudit(t *testing.T) {
	e, key, dir, _, done := exampleSetup()
	t.Cleanup(done)
	ctx := context.Background()
	clean := filepath.Join("..", "testdata", "audit", "clean", "web-fetch")
	hostile := filepath.Join("..", "testdata", "audit", "hostile", "instr-exfil")
	res, err := e.Audit(ctx, engine.AuditRequest{Paths: []string{hostile}})
	if err != nil || len(res.Skills) != 1 || res.Skills[0].Verdict.Decision != "block" || res.Skills[0].Report == nil {
		t.Fatalf("a hostile skill: %+v, %v", res, err)
	}
	res, err = e.Audit(ctx, engine.AuditRequest{Paths: []string{clean, hostile}})
	if sum := summarize(res); err != nil || sum.Skills != 2 || sum.Block != 1 || len(sum.Blocks) != 1 || sum.Blocks[0] != hostile || res.Skills[0].Path != clean {
		t.Fatalf("two skills: %+v, %v", sum, err)
	}
	res, err = e.Audit(ctx, engine.AuditRequest{Paths: []string{filepath.Join("..", "testdata", "audit", "clean")}, Recursive: true})
	if sum := summarize(res); err != nil || sum.Skills < 5 || sum.Block != 0 || sum.Failed != 0 {
		t.Fatalf("recursive, clean: %+v, %v", sum, err)
	}
	if _, err := e.Audit(ctx, engine.AuditRequest{Paths: []string{t.TempDir()}, Recursive: true}); !errors.Is(err, engine.ErrNoSkillDirs) || errdef.ClassOf(err) != errdef.NotFound {
		t.Errorf("recursive below no skill: %v, want ErrNoSkillDirs of class NotFound", err)
	}
	if _, err := e.Audit(ctx, engine.AuditRequest{Paths: []string{clean, "engine_commands_test.go"}}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("a file among several: %v, want ErrInvalidRequest", err)
	}
	if _, err := e.Audit(ctx, engine.AuditRequest{Paths: []string{"./no-such-dir"}}); !errors.Is(err, install.ErrAuditFailed) {
		t.Errorf("a directory that is not there: %v, want ErrAuditFailed", err)
	}
	signWith := func(context.Context) (sign.SignOptions, error) { return sign.SignOptions{Key: key.Key}, nil }
	if _, err := e.Audit(ctx, engine.AuditRequest{Paths: []string{clean}, Sign: signWith}); !errors.Is(err, engine.ErrAttestVersion) {
		t.Errorf("attesting a directory: %v, want ErrAttestVersion", err)
	}
	publishVersions(t, e, key, dir, "1.0.0")
	res, err = e.Audit(ctx, engine.AuditRequest{Paths: []string{"notes@1.0.0"}, Sign: signWith})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Skills[0]
	if s.Path != "notes@1.0.0" || s.Manifest == nil || s.Attestation == nil || s.Attestation.Digest != s.Manifest.Descriptor.Digest.String() {
		t.Errorf("a published version, attested: %+v", s)
	}
}

// summarize counts an audit's verdicts as skillpm audit does; nil counts
// nothing.
func summarize(res *engine.AuditResult) audit.Summary {
	sum := audit.NewSummary()
	if res != nil {
		for _, s := range res.Skills {
			sum.Add(s.Path, s.Verdict, s.Err != nil)
		}
	}
	return sum
}

// TestPull: Pull unpacks the version a reference selects into the
// directory asked for, checked against the tree hash; a directory that
// exists is refused and left as it was; a local directory as the
// reference is a bad request.
func TestPull(t *testing.T) {
	e, key, dir, _, done := exampleSetup()
	t.Cleanup(done)
	ctx := context.Background()
	publishVersions(t, e, key, dir, "1.0.0", "1.1.0")
	out := filepath.Join(t.TempDir(), "notes")
	res, err := e.Pull(ctx, engine.PullRequest{Ref: "notes@~1.0", Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dir != out || res.Version.Metadata.Version != "1.0.0" || !res.TreeVerified || res.Summary.Files != 1 {
		t.Errorf("pulled %s@%s into %s: verified %v, %d files; want notes@1.0.0 in %s, verified, 1 file", res.Version.Metadata.Name, res.Version.Metadata.Version, res.Dir, res.TreeVerified, res.Summary.Files, out)
	}
	if data, err := os.ReadFile(filepath.Join(out, "SKILL.md")); err != nil || !strings.Contains(string(data), "version: 1.0.0") {
		t.Errorf("SKILL.md pulled: %q, %v", data, err)
	}
	if _, err := e.Pull(ctx, engine.PullRequest{Ref: "notes", Dir: out}); err == nil {
		t.Error("a pull into a directory that exists succeeded")
	}
	if _, err := e.Pull(ctx, engine.PullRequest{Ref: "./notes"}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("a directory as the reference: %v, want ErrInvalidRequest", err)
	}
}

// TestSourceNames: the source of bare names lists what was published in
// it; a bare name is not a source.
func TestSourceNames(t *testing.T) {
	e, key, dir, _, done := exampleSetup()
	t.Cleanup(done)
	ctx := context.Background()
	publishVersions(t, e, key, dir, "1.0.0")
	for _, src := range []string{"", "embedded"} {
		res, err := e.SourceNames(ctx, engine.SourceNamesRequest{Source: src})
		if err != nil || len(res.Names) != 1 || res.Names[0] != "notes" {
			t.Errorf("source %q: %+v, %v; want [notes]", src, res, err)
		}
	}
	if _, err := e.SourceNames(ctx, engine.SourceNamesRequest{Source: "notes"}); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("a bare name as the source: %v, want ErrInvalidRequest", err)
	}
}
