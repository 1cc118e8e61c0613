package registry

import (
	"errors"
	"testing"
)

func TestParseRef(t *testing.T) {
	const dg = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		in     string
		kind   Kind
		source string
		name   string
		sel    SelectorKind
		selStr string
	}{
		{"web-research", KindName, "", "web-research", SelectLatest, ""},
		{"web-research@^1", KindName, "", "web-research", SelectRange, "^1"},
		{"web-research@1.2.3", KindName, "", "web-research", SelectVersion, "1.2.3"},
		{"web-research@1.2.3+b.1", KindName, "", "web-research", SelectVersion, "1.2.3+b.1"},
		{"web-research@1.2.3_b.1", KindName, "", "web-research", SelectVersion, "1.2.3+b.1"},
		{"web-research@1.0.0-rc.1", KindName, "", "web-research", SelectVersion, "1.0.0-rc.1"},
		{"web-research@" + dg, KindName, "", "web-research", SelectDigest, dg},
		{"web-research@>=1.0, <2.0", KindName, "", "web-research", SelectRange, ">=1.0, <2.0"},
		{"web-research@1.x", KindName, "", "web-research", SelectRange, "1.x"},
		{"web-research@*", KindName, "", "web-research", SelectRange, "*"},
		{"ghcr.io/acme/skills/web-research@~1.4", KindRemote, "ghcr.io/acme/skills", "web-research", SelectRange, "~1.4"},
		{"ghcr.io/web-research", KindRemote, "ghcr.io", "web-research", SelectLatest, ""},
		{"localhost:5000/skills/x", KindRemote, "localhost:5000/skills", "x", SelectLatest, ""},
		{"localhost/x@1.0.0", KindRemote, "localhost", "x", SelectVersion, "1.0.0"},
		{"127.0.0.1:5000/a/b/c-d@" + dg, KindRemote, "127.0.0.1:5000/a/b", "c-d", SelectDigest, dg},
		{"[::1]:5000/skills/x", KindRemote, "[::1]:5000/skills", "x", SelectLatest, ""},
		{"oci-layout:/srv/bundle/web-research@1.2.3", KindLayout, "/srv/bundle", "web-research", SelectVersion, "1.2.3"},
		{"oci-layout:bundle/web-research", KindLayout, "bundle", "web-research", SelectLatest, ""},
		{"oci-layout:./a@b/web-research@^2", KindLayout, "./a@b", "web-research", SelectRange, "^2"},
		{"./my-skill", KindDir, "./my-skill", "", SelectLatest, ""},
		{"../x", KindDir, "../x", "", SelectLatest, ""},
		{"/abs/my-skill", KindDir, "/abs/my-skill", "", SelectLatest, ""},
		{".", KindDir, ".", "", SelectLatest, ""},
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

func TestParseSource(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind Kind
		loc  string
		host string
	}{
		{"", KindName, "", ""},
		{"ghcr.io/acme/skills", KindRemote, "ghcr.io/acme/skills", "ghcr.io"},
		{"ghcr.io/acme/skills/", KindRemote, "ghcr.io/acme/skills", "ghcr.io"},
		{"localhost:5000", KindRemote, "localhost:5000", "localhost:5000"},
		{"oci-layout:/srv/x", KindLayout, "/srv/x", ""},
	} {
		s, err := ParseSource(tc.in)
		if err != nil || s.Kind != tc.kind || s.Location != tc.loc || s.Host() != tc.host {
			t.Errorf("ParseSource(%q) = %+v (host %q), %v", tc.in, s, s.Host(), err)
		}
	}
	for _, in := range []string{"skills", "oci-layout:", "ghcr.io/Acme"} {
		if _, err := ParseSource(in); !errors.Is(err, ErrInvalidRef) {
			t.Errorf("ParseSource(%q): %v, want ErrInvalidRef", in, err)
		}
	}
}

func TestTags(t *testing.T) {
	if got := Tag("1.2.3+build.1"); got != "1.2.3_build.1" {
		t.Errorf("Tag = %q", got)
	}
	for tag, want := range map[string]string{"1.2.3_build.1": "1.2.3+build.1", "1.0.0-rc.1": "1.0.0-rc.1", "latest": "", "v1.0.0": "", "1.0": ""} {
		v := VersionFromTag(tag)
		got := ""
		if v != nil {
			got = v.String()
		}
		if got != want {
			t.Errorf("VersionFromTag(%q) = %q, want %q", tag, got, want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost:5000": true, "127.0.0.1:5000": true, "127.1.2.3": true, "[::1]:5000": true, "LOCALHOST": true,
		"ghcr.io": false, "10.0.0.1:5000": false, "localhost.evil.com": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v", host, got)
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
		if r.Kind == KindDir {
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
