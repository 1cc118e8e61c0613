package registry

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/pkg/skill"
)

func TestPseudoVersionOrder(t *testing.T) {
	early := PseudoVersion(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "ffffffffffffffffffffffffffffffffffffffff")
	late := PseudoVersion(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), "0000000000000000000000000000000000000000")
	if early != "0.0.0-20260101000000-ffffffffffff" {
		t.Errorf("PseudoVersion = %q", early)
	}
	a, b := semver.MustParse(early), semver.MustParse(late)
	if !b.GreaterThan(a) {
		t.Errorf("%s does not sort after %s", late, early)
	}
	if !semver.MustParse("0.0.1").GreaterThan(b) {
		t.Errorf("0.0.1 does not sort after %s", late)
	}
	for v, want := range map[string]bool{early: true, TreeVersion("sha256:abcdef0123456789"): true, "0.0.0": false, "1.0.0-rc.1": false, "0.0.1+x": false, "bad": false} {
		if got := IsPseudoVersion(v); got != want {
			t.Errorf("IsPseudoVersion(%q) = %v, want %v", v, got, want)
		}
	}
	if tv := TreeVersion("sha256:abcdef0123456789"); tv != "0.0.0+tree.abcdef012345" {
		t.Errorf("TreeVersion = %q", tv)
	}
}

func TestBuildUnversioned(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "plain")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: plain\ndescription: A skill with no version. Use in tests.\n---\n\n# Plain\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	// Publishing refuses it.
	if _, err := Build(ctx, dir, BuildOptions{NoVCS: true}); !errors.Is(err, skill.ErrInvalid) {
		t.Fatalf("Build without Unversioned: %v, want a validation error", err)
	}
	a, err := Build(ctx, dir, BuildOptions{NoVCS: true, Unversioned: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := TreeVersion(a.Pack.TreeHash); a.Skill.Version != want || a.Manifest.Annotations["org.opencontainers.image.version"] != want {
		t.Errorf("version %q, annotation %q, want %q", a.Skill.Version, a.Manifest.Annotations["org.opencontainers.image.version"], want)
	}
	// The layer's SKILL.md declares none, which a pseudo-version agrees with.
	if err := checkArtifact(a); err != nil {
		t.Errorf("checkArtifact: %v", err)
	}
	when := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	g, err := Build(ctx, dir, BuildOptions{NoVCS: true, Unversioned: true, Revision: "0123456789abcdef0123456789abcdef01234567", CommitTime: when})
	if err != nil {
		t.Fatal(err)
	}
	if g.Skill.Version != "0.0.0-20260304050607-0123456789ab" {
		t.Errorf("git build version %q", g.Skill.Version)
	}
	tagged, err := Build(ctx, dir, BuildOptions{NoVCS: true, Unversioned: true, Revision: "0123456789abcdef0123456789abcdef01234567", CommitTime: when, TagVersion: "1.2.0"})
	if err != nil {
		t.Fatal(err)
	}
	if tagged.Skill.Version != "1.2.0" {
		t.Errorf("tagged build version %q", tagged.Skill.Version)
	}
	// A real version in the index disagrees with a SKILL.md that has none.
	s, _ := skill.Load(ctx, dir, skill.Options{Mode: skill.Lenient})
	if err := CheckContent(Metadata{Name: "plain", Version: "1.0.0", Tier: skill.TierExperimental, Requires: map[string]string{}}, s); err == nil {
		t.Error("CheckContent accepts a real version for a SKILL.md that declares none")
	}
	if err := CheckContent(Metadata{Name: "plain", Version: a.Skill.Version, Tier: skill.TierExperimental, Requires: map[string]string{}}, s); err != nil {
		t.Errorf("CheckContent refuses a pseudo-version for a SKILL.md that declares none: %v", err)
	}
}
