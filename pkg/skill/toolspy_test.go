package skill

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParsePythonFuncs(t *testing.T) {
	src := `"""Module docstring with a fake
def not_a_function(x): pass
"""
import os

@tool
def simple(query: str, max_results: int = 5) -> dict:
    return {}

@gaia.tool(atomic=True, name="x")
async def multi(
    a: "str",                # comment with (parens
    b: Optional[int] = None,
    c: list[dict[str, int]] = [1, 2],
    *args,
    d: bool = \
        False,
    **kwargs,
) -> dict[str, "int"]:
    s = ')'
    return {}

class Holder:
    @tool
    def method(self, x): ...

def plain(x, /, y, *, z=1): pass
`
	funcs, err := ParsePythonFuncs([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range funcs {
		names = append(names, f.Name)
	}
	if !reflect.DeepEqual(names, []string{"simple", "multi", "plain"}) {
		t.Fatalf("functions = %v", names)
	}
	simple, multi, plain := funcs[0], funcs[1], funcs[2]
	if !simple.IsTool() || !multi.IsTool() || plain.IsTool() {
		t.Errorf("IsTool: %v %v %v", simple.IsTool(), multi.IsTool(), plain.IsTool())
	}
	if simple.Line != 7 || multi.Line != 11 {
		t.Errorf("lines %d %d", simple.Line, multi.Line)
	}
	want := []PyParam{
		{Name: "a", Annotation: `"str"`},
		{Name: "b", Annotation: "Optional[int]", Default: "None", HasDefault: true},
		{Name: "c", Annotation: "list[dict[str, int]]", Default: "[1, 2]", HasDefault: true},
		{Name: "args", Kind: "*"},
		{Name: "d", Annotation: "bool", Default: "False", HasDefault: true},
		{Name: "kwargs", Kind: "**"},
	}
	if !reflect.DeepEqual(multi.Params, want) {
		t.Errorf("multi params:\n got %+v\nwant %+v", multi.Params, want)
	}
	if multi.Returns != `dict[str, "int"]` {
		t.Errorf("returns %q", multi.Returns)
	}
	if len(plain.Params) != 3 || plain.Params[2].Default != "1" {
		t.Errorf("plain params %+v", plain.Params)
	}
}

func TestParsePythonErrors(t *testing.T) {
	for _, src := range []string{
		"def f(a:\n",
		"x = 'unterminated\n",
		"x = )\n",
		"def (a): pass\n",
		`s = """never closed`,
	} {
		if _, err := ParsePythonFuncs([]byte(src)); err == nil {
			t.Errorf("no error for %q", src)
		}
	}
}

func TestPyTypeOf(t *testing.T) {
	for ann, want := range map[string]string{
		"str": "string", "'int'": "integer", "float": "number", "bool": "boolean",
		"list[str]": "array", "List[int]": "array", "dict": "object", "Dict[str, Any]": "object",
		"Optional[int]": "integer", "typing.Optional[str]": "string", "int | None": "integer", "None | str": "string",
		"Annotated[str, Field(max_length=3)]": "string", "str | int": "", "MyType": "", "": "",
	} {
		if got := PyTypeOf(ann); got != want {
			t.Errorf("PyTypeOf(%q) = %q, want %q", ann, got, want)
		}
	}
}

func TestParsePermission(t *testing.T) {
	ok := map[string]Permission{
		"network:read":              {Domain: "network", Level: "read"},
		"network:read:*.brave.com":  {Domain: "network", Level: "read", Scope: "*.brave.com"},
		"shell:execute:git,npm":     {Domain: "shell", Level: "execute", Scope: "git,npm"},
		"network:write:https://x:1": {Domain: "network", Level: "write", Scope: "https://x:1"},
		"desktop:none":              {Domain: "desktop", Level: "none"},
	}
	for s, want := range ok {
		got, err := ParsePermission(s)
		if err != nil || got != want {
			t.Errorf("ParsePermission(%q) = %+v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "network", "network:", "network:read:", "net:read", "shell:read", "env:none:X", " network:read", "Network:read"} {
		if _, err := ParsePermission(s); err == nil {
			t.Errorf("ParsePermission(%q) accepted", s)
		}
	}
	p := Permission{Domain: "filesystem", Level: "write", Scope: "./**"}
	if !p.Within(Permission{Domain: "filesystem", Level: "write"}) || p.Within(Permission{Domain: "filesystem", Level: "read"}) ||
		p.Within(Permission{Domain: "filesystem", Level: "write", Scope: "/tmp"}) {
		t.Error("Within is wrong")
	}
}

// TestParsePythonFuncsNestingLimit: like CPython, more than 200 nested
// brackets is a syntax error, found before the rest of a bracket bomb is
// tokenized.
func TestParsePythonFuncsNestingLimit(t *testing.T) {
	ok := "x = " + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200) + "\n"
	if _, err := ParsePythonFuncs([]byte(ok)); err != nil {
		t.Fatalf("200 levels: %v", err)
	}
	bomb := strings.Repeat("(", 2_000_000) + strings.Repeat(")", 2_000_000)
	_, err := ParsePythonFuncs([]byte(bomb))
	var se *PySyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "nested more than 200 deep") {
		t.Fatalf("bomb: err = %v, want a nesting syntax error", err)
	}
}
