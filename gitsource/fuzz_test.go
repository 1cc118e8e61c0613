package gitsource

import (
	"strings"
	"testing"
)

// FuzzParse: Parse never panics; what it accepts writes back to a
// reference that parses to the same thing, and never shows a password.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"git+https://example.com/acme/skills@v1.2.0#skills/pdf",
		"git+https://user:s3cret@example.com/a/b@main",
		"git+ssh://git@github.com/acme/skills#a",
		"git+file:///srv/repo@0123456789abcdef0123456789abcdef01234567",
		"github:anthropics/skills/document-skills/pdf@main",
		"https://github.com/anthropics/skills/tree/main/skills/pdf",
		"git+https://example.com/a/b#subdirectory=x",
		"git+https://example.com/a/b@^1 <2#x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			return
		}
		out := r.String()
		if r.secret != nil {
			if pw, ok := r.secret.Password(); ok && pw != "" && strings.Contains(out, ":"+pw+"@") {
				t.Fatalf("%q: String %q shows the password", s, out)
			}
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("%q: String %q does not parse: %v", s, out, err)
		}
		if back.String() != out {
			t.Fatalf("%q: %q reparses as %q", s, out, back.String())
		}
	})
}
