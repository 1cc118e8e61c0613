package source

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/reftable"
)

func TestParseRef(t *testing.T) {
	const dg = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		in     string
		kind   RefKind
		source string
		name   string
		sel    SelectorKind
		selStr string
	}{
		{"web-research", RefName, "", "web-research", SelectLatest, ""},
		{"web-research@^1", RefName, "", "web-research", SelectRange, "^1"},
		{"web-research@1.2.3", RefName, "", "web-research", SelectVersion, "1.2.3"},
		{"web-research@1.2.3+b.1", RefName, "", "web-research", SelectVersion, "1.2.3+b.1"},
		{"web-research@1.2.3_b.1", RefName, "", "web-research", SelectVersion, "1.2.3+b.1"},
		{"web-research@1.0.0-rc.1", RefName, "", "web-research", SelectVersion, "1.0.0-rc.1"},
		{"web-research@" + dg, RefName, "", "web-research", SelectDigest, dg},
		{"web-research@>=1.0, <2.0", RefName, "", "web-research", SelectRange, ">=1.0, <2.0"},
		{"web-research@1.x", RefName, "", "web-research", SelectRange, "1.x"},
		{"web-research@*", RefName, "", "web-research", SelectRange, "*"},
		{"ghcr.io/acme/skills/web-research@~1.4", RefRemote, "ghcr.io/acme/skills", "web-research", SelectRange, "~1.4"},
		{"ghcr.io/web-research", RefRemote, "ghcr.io", "web-research", SelectLatest, ""},
		{"localhost:5000/skills/x", RefRemote, "localhost:5000/skills", "x", SelectLatest, ""},
		{"localhost/x@1.0.0", RefRemote, "localhost", "x", SelectVersion, "1.0.0"},
		{"127.0.0.1:5000/a/b/c-d@" + dg, RefRemote, "127.0.0.1:5000/a/b", "c-d", SelectDigest, dg},
		{"[::1]:5000/skills/x", RefRemote, "[::1]:5000/skills", "x", SelectLatest, ""},
		{"oci-layout:/srv/bundle/web-research@1.2.3", RefLayout, "/srv/bundle", "web-research", SelectVersion, "1.2.3"},
		{"oci-layout:bundle/web-research", RefLayout, "bundle", "web-research", SelectLatest, ""},
		{"oci-layout:./a@b/web-research@^2", RefLayout, "./a@b", "web-research", SelectRange, "^2"},
		{"./my-skill", RefDir, "./my-skill", "", SelectLatest, ""},
		{"../x", RefDir, "../x", "", SelectLatest, ""},
		{"/abs/my-skill", RefDir, "/abs/my-skill", "", SelectLatest, ""},
		{".", RefDir, ".", "", SelectLatest, ""},
	} {
		r, err := ParseRef(tc.in)
		if err != nil {
			t.Errorf("ParseRef(%q): %v", tc.in, err)
			continue
		}
		if r.Kind != tc.kind || r.Source != tc.source || r.Name != tc.name || r.Selector.Kind != tc.sel || r.Selector.String() != tc.selStr {
			t.Errorf("ParseRef(%q) = %s %q %q %d %q, want %s %q %q %d %q", tc.in,
				r.Kind, r.Source, r.Name, r.Selector.Kind, r.Selector.String(), tc.kind, tc.source, tc.name, tc.sel, tc.selStr)
		}
		back, err := ParseRef(r.String())
		if err != nil || back.String() != r.String() {
			t.Errorf("ParseRef(%q).String() = %q does not read back: %v", tc.in, r.String(), err)
		}
	}
}

func TestParseRefErrors(t *testing.T) {
	for _, in := range []string{
		"", "Web-Research", "web_research", "skills/web-research", "web-research@", "web-research@latest",
		"web-research@sha256:abc", "web-research:1.0.0", "ghcr.io/acme/Skills/x", "ghcr.io/acme/skills/",
		"oci-layout:web-research", "oci-layout:dir/", "@1.2.3", "a@1@2", "ghcr.io//x",
	} {
		if r, err := ParseRef(in); err == nil {
			t.Errorf("ParseRef(%q) = %+v, want an error", in, r)
		} else if !errors.Is(err, ErrInvalidRef) {
			t.Errorf("ParseRef(%q): %v does not wrap ErrInvalidRef", in, err)
		}
	}
}

// FuzzParseRef checks that ParseRef never panics, that what it accepts
// has a valid name and reads back to itself.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"web-research", "web-research@^1", "a@1.2.3", "ghcr.io/acme/skills/x@~1.4",
		"localhost:5000/x", "oci-layout:/d/x@1.0.0", "./x", "x@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidRef) {
				t.Fatalf("ParseRef(%q): error %v does not wrap ErrInvalidRef", s, err)
			}
			return
		}
		if r.Kind == RefDir || r.Kind == RefGit {
			return
		}
		if r.Name == "" {
			t.Fatalf("ParseRef(%q) accepted an empty name", s)
		}
		back, err := ParseRef(r.String())
		if err != nil {
			t.Fatalf("ParseRef(%q).String() = %q does not parse: %v", s, r.String(), err)
		}
		if back.Kind != r.Kind || back.Source != r.Source || back.Name != r.Name || back.Selector.Kind != r.Selector.Kind || back.Selector.String() != r.Selector.String() {
			t.Fatalf("ParseRef(%q) = %+v, reads back as %+v", s, r, back)
		}
	})
}

func TestLooksGit(t *testing.T) {
	for s, want := range map[string]bool{
		"git+https://x/y/z": true, "github:a/b": true, "https://github.com/a/b": true, "bitbucket:a/b": true,
		"web-research@^1": false, "ghcr.io/acme/skills/fix": false, "localhost:5000/skills/fix": false,
		"oci-layout:./bundle/fix": false, "./my-skill": false,
	} {
		if got := LooksGit(s); got != want {
			t.Errorf("LooksGit(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestRefTable reads every form of testdata/refs.tsv with ParseRef and
// checks the ref column (resolve and the engine check theirs from the same
// file, so the grammar answers one way for every reader).
func TestRefTable(t *testing.T) {
	for _, row := range reftable.Read(t, filepath.Join("testdata", "refs.tsv")) {
		got := "err"
		if r, err := ParseRef(row.Form); err == nil {
			got = strings.Join([]string{r.Kind.String(), r.Source, r.Name, r.Selector.String()}, "|")
			if back, err := ParseRef(r.String()); err != nil || back != r && r.Selector.Kind == SelectLatest {
				t.Errorf("ParseRef(%q).String() = %q reads back as %+v, %v", row.Form, r.String(), back, err)
			}
		} else if !errors.Is(err, ErrInvalidRef) {
			t.Errorf("ParseRef(%q): %v does not wrap ErrInvalidRef", row.Form, err)
		}
		if got != row.Ref {
			t.Errorf("ParseRef(%q) = %s, the table says %s", row.Form, got, row.Ref)
		}
	}
}
