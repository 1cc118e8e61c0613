package archive

import "testing"

// The rules that let a packed skill install on Windows and on
// case-insensitive file systems are enforced on every OS: a layer packed
// on Linux must unpack anywhere.
func TestCheckNameWindows(t *testing.T) {
	refused := []string{
		"CON", "con", "Prn.md", "aux.tar.gz", "nul", "NUL.txt", "docs/com1", "COM9.log", "lpt1", "LPT0.md",
		"com\u00b9", "LPT\u00b3.txt", "conin$", "CONOUT$.x", "con .md",
		"a.", "dir./b", "a ", "sub/b ",
		`a\b`, `..\evil`, `\\server\share`,
		"C:evil", "C:/Windows/evil", "file.md:stream", "a:b",
		"a<b", "a>b", `a"b`, "a|b", "a?b", "a*b", "tab\tname",
	}
	for _, name := range refused {
		if checkName(name) == "" {
			t.Errorf("checkName(%q) accepted a name Windows cannot hold", name)
		}
	}
	accepted := []string{
		"SKILL.md", "console.md", "conf/x", "com10", "lpt", "COMA", "auxiliary.md", "nul-check.md",
		"a.b", ".hidden", "com\u00b9x", "scripts/run.sh", "docs/über.md",
	}
	for _, name := range accepted {
		if why := checkName(name); why != "" {
			t.Errorf("checkName(%q) = %q, want accepted", name, why)
		}
	}
}
