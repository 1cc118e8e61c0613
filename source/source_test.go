package source

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/errdef"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in        string
		kind      Kind
		loc, back string
	}{
		{"", KindEmbedded, "", ""},
		{"embedded", KindEmbedded, "", ""},
		{"oci-layout:./out", KindLayout, "./out", "oci-layout:./out"},
		{"ghcr.io/acme/skills/", KindRemote, "ghcr.io/acme/skills", "ghcr.io/acme/skills"},
		{"localhost:5000", KindRemote, "localhost:5000", "localhost:5000"},
	} {
		s, err := Parse(tc.in)
		if err != nil || s.Kind != tc.kind || s.Location != tc.loc || s.String() != tc.back {
			t.Errorf("Parse(%q) = %+v (%q), %v", tc.in, s, s.String(), err)
		}
	}
	for _, bad := range []string{"embeded", "skills", "not a host", "oci-layout:", "ghcr.io//acme", "ghcr.io/a@b", "ghcr.io/ACME", strings.Repeat("a.", MaxLen)} {
		_, err := Parse(bad)
		var se *Error
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &se) || errdef.ClassOf(err) != errdef.Usage {
			t.Errorf("Parse(%.40q) = %v, want a usage *Error", bad, err)
		}
	}
}

func TestCanonical(t *testing.T) {
	dir := t.TempDir()
	for in, want := range map[string]string{
		"":                    Embedded,
		"embedded":            Embedded,
		"ghcr.io/acme/skills": "ghcr.io/acme/skills",
		"oci-layout:store":    LayoutPrefix + filepath.ToSlash(filepath.Join(dir, "store")),
		"oci-layout:/a/../b/": LayoutPrefix + "/b",
	} {
		if got, err := Canonical(in, dir); err != nil || got != want {
			t.Errorf("Canonical(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
}

func TestRepository(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "embedded/x",
		"embedded":                   "embedded/x",
		"ghcr.io/acme/skills/":       "ghcr.io/acme/skills/x",
		"oci-layout:/srv/b/../bund/": "oci-layout:/srv/bund/x",
	} {
		if got, err := Repository(in, "x"); err != nil || got != want {
			t.Errorf("Repository(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
	if _, err := Repository("nohost", "x"); !errors.Is(err, ErrInvalid) {
		t.Errorf("Repository(nohost) = %v", err)
	}
}
