package skill

import (
	"strings"
	"testing"
)

// FuzzFrontmatter: any SKILL.md content is parsed without panicking, every
// diagnostic has a code and a position inside the file, and a parsed
// skill's canonical JSON round-trips.
func FuzzFrontmatter(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: b\n---\nbody\n"))
	f.Add([]byte("---\nname: a\ndescription: &x [*x, *x]\n---\n"))
	f.Add([]byte("\xEF\xBB\xBF---\r\nname: a\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, ds := Parse("SKILL.md", data, Options{Mode: Lenient})
		lines := strings.Count(string(data), "\n") + 1
		for _, d := range ds {
			if d.Code == "" || d.Severity == 0 {
				t.Fatalf("diagnostic without code or severity: %+v", d)
			}
			if d.Line < 0 || d.Line > lines+1 {
				t.Fatalf("diagnostic line %d outside a %d-line file: %+v", d.Line, lines, d)
			}
		}
		if s != nil {
			roundTrip(t, s)
		}
	})
}

// FuzzPermission: parsing never panics, and what parses renders back to
// the same string.
func FuzzPermission(f *testing.F) {
	for _, s := range []string{"network:read", "network:read:*.brave.com", "shell:execute:git,npm", "filesystem:write:./**", "x", "a:b:c:d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePermission(s)
		if err != nil {
			return
		}
		if p.String() != s {
			t.Fatalf("ParsePermission(%q).String() = %q", s, p.String())
		}
		if !p.Within(Permission{Domain: p.Domain, Level: p.Level}) {
			t.Fatalf("%s is not within its own unscoped grant", s)
		}
	})
}

// FuzzPythonFuncs: the signature reader never panics and every function it
// reports has a name and a positive line.
func FuzzPythonFuncs(f *testing.F) {
	f.Add([]byte("@tool\ndef f(a: int, b: str = 'x', *args, **kw) -> dict:\n    pass\n"))
	f.Add([]byte("@tool(atomic=True)\nasync def g(\n    a: Optional[int] = None,\n    /,\n    *,\n    c=[1, (2, 3)],\n):\n    '''def h(x): pass'''\n"))
	f.Add([]byte("x = f\"{a!r:>10}\" + rb'\\x00'\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		funcs, err := ParsePythonFuncs(src)
		if err != nil {
			return
		}
		for _, fn := range funcs {
			if fn.Name == "" || fn.Line < 1 {
				t.Fatalf("bad function %+v", fn)
			}
			for _, p := range fn.Params {
				if p.Name == "" {
					t.Fatalf("parameter without name in %+v", fn)
				}
			}
		}
	})
}
