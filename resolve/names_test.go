package resolve

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/internal/reftable"
	"github.com/skillpm/skillpm/tiers"
)

func TestNamespaceKey(t *testing.T) {
	ns := Namespace{Default: "ghcr.io/acme/skills", Dir: "/proj"}
	tests := []struct {
		ref, want string
	}{
		{"fix", "fix"},
		{"ghcr.io/acme/skills/fix", "fix"}, // a reference into the default is the bare name
		{"ghcr.io/acme/skills//fix", ""},   // empty path element
		{"ghcr.io/acme/skills/", ""},       // no name
		{"ghcr.io/other/tools/lint", "ghcr.io/other/tools/lint"},
		{"localhost:5000/lint", "localhost:5000/lint"},
		{"oci-layout:./bundle/fix", "oci-layout:/proj/bundle/fix"},
		{"oci-layout:/srv/b/../bundle/fix", "oci-layout:/srv/bundle/fix"},
		{"embedded/fix", "embedded/fix"},
		{"acme/skills/fix", ""}, // no host: refused, never guessed
		{"fix@^1", ""},
		{"Fix", ""},
		{"oci-layout:fix", ""},
	}
	for _, tt := range tests {
		got, err := ns.Key(tt.ref)
		if tt.want == "" {
			if !errors.Is(err, ErrInvalidName) {
				t.Errorf("Key(%q) = %q, %v; want ErrInvalidName", tt.ref, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Key(%q) = %q, %v; want %q", tt.ref, got, err, tt.want)
		}
	}
	// With the embedded registry as the default, embedded/NAME is bare.
	if got, _ := (Namespace{}).Key("embedded/fix"); got != "fix" {
		t.Errorf("embedded default: Key(embedded/fix) = %q, want fix", got)
	}
}

// TestQualifyNoFallThrough holds a bare dependency to the namespace of the
// skill that declares it, whatever the default source and whatever else
// is published elsewhere.
func TestQualifyNoFallThrough(t *testing.T) {
	ns := Namespace{Default: "ghcr.io/acme/skills"}
	tests := []struct {
		dependent, dep, want string
	}{
		{"fix", "code", "code"},
		{"fix", "ghcr.io/other/tools/lint", "ghcr.io/other/tools/lint"},
		{"ghcr.io/other/tools/lint", "format", "ghcr.io/other/tools/format"}, // not the default's format
		{"ghcr.io/other/tools/lint", "ghcr.io/acme/skills/format", "format"},
		{"oci-layout:/srv/bundle/fix", "code", "oci-layout:/srv/bundle/code"},
		{"embedded/fix", "code", "embedded/code"},
		{"localhost:5000/fix", "code", "localhost:5000/code"},
	}
	for _, tt := range tests {
		got, err := ns.Qualify(tt.dependent, tt.dep)
		if err != nil || got != tt.want {
			t.Errorf("Qualify(%q, %q) = %q, %v; want %q", tt.dependent, tt.dep, got, err, tt.want)
		}
	}
	if _, err := ns.Qualify("fix", "skills/code"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Qualify of a host-less reference: %v, want ErrInvalidName", err)
	}
}

// TestRepositoryMatchesTiers keeps skills.lock's source field the
// repository string trust policies are written against.
func TestRepositoryMatchesTiers(t *testing.T) {
	abs, _ := filepath.Abs("bundle")
	for _, tt := range []struct {
		def, source, key string
	}{
		{"", "", "fix"},
		{EmbeddedSource, "", "fix"},
		{"ghcr.io/acme/skills", "ghcr.io/acme/skills", "fix"},
		{"ghcr.io/acme/skills", "ghcr.io/other/tools", "ghcr.io/other/tools/lint"},
		{"ghcr.io/acme/skills", "", "embedded/fix"},
		{"ghcr.io/acme/skills", "oci-layout:" + abs, "oci-layout:" + filepath.ToSlash(abs) + "/fix"},
	} {
		ns := Namespace{Default: tt.def}
		got := ns.Repository(tt.key)
		want, err := tiers.Repository(tt.source, ShortName(tt.key))
		if err != nil || got != want {
			t.Errorf("Namespace{%q}.Repository(%q) = %q, tiers says %q", tt.def, tt.key, got, want)
		}
		if back := ns.KeyOf(got); back != tt.key {
			t.Errorf("KeyOf(%q) = %q, want %q", got, back, tt.key)
		}
	}
}

func TestCanonicalSource(t *testing.T) {
	for _, tt := range []struct {
		spec, dir, want string
	}{
		{"", "", EmbeddedSource},
		{"ghcr.io/acme/skills/", "", "ghcr.io/acme/skills"},
		{"localhost:5000", "", "localhost:5000"},
		{"oci-layout:vendor", "/proj", "oci-layout:/proj/vendor"},
		{"oci-layout:/a/./b/", "/proj", "oci-layout:/a/b"},
		{"skills", "", ""},
		{"oci-layout:", "", ""},
		{"ghcr.io/a b", "", ""},
	} {
		got, err := CanonicalSource(tt.spec, tt.dir)
		if tt.want == "" {
			if err == nil {
				t.Errorf("CanonicalSource(%q) = %q, want an error", tt.spec, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CanonicalSource(%q, %q) = %q, %v; want %q", tt.spec, tt.dir, got, err, tt.want)
		}
	}
}

// TestRefTableNames checks the name column of the reference grammar's
// table: what a skills.yaml name or a dependency becomes.
func TestRefTableNames(t *testing.T) {
	ns := Namespace{Dir: "/proj"}
	for _, row := range reftable.Read(t, filepath.Join("..", "source", "testdata", "refs.tsv")) {
		got, err := ns.Key(row.Form)
		if err != nil {
			if !errors.Is(err, ErrInvalidName) {
				t.Errorf("Key(%q): %v does not wrap ErrInvalidName", row.Form, err)
			}
			got = "err"
		}
		if got != row.Name {
			t.Errorf("refs.tsv:%d: Key(%q) = %s, the table says %s", row.Line, row.Form, got, row.Name)
		}
	}
}
