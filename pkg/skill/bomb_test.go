package skill

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pyBombs are tools.py files a few KB compressed that used to cost
// seconds and gigabytes to read: 2M '(' then 2M ')', deep mixed brackets,
// and one logical line of millions of tokens.
var pyBombs = map[string]struct {
	src  string
	want string
}{
	"paren-bomb":    {strings.Repeat("(", 2<<20) + strings.Repeat(")", 2<<20), "nested more than 200"},
	"deep-mixed":    {"x = " + strings.Repeat("[{(", 1<<20), "nested more than 200"},
	"long-line":     {"def f(" + strings.Repeat("a, ", 1<<20) + "): pass\n", "more than 65536 tokens"},
	"semicolons":    {strings.Repeat("a;", 2<<20) + "\n", "more than 65536 tokens"},
	"within-bounds": {strings.Repeat("(", 200) + strings.Repeat(")", 200) + "\n@tool\ndef ok(a: int): pass\n", ""},
}

// TestPythonBombsBounded: each bomb is refused naming the bound, through
// the path validate and install take (Load), allocating less than 100 MB
// (measured as total bytes allocated, not time).
func TestPythonBombsBounded(t *testing.T) {
	for name, b := range pyBombs {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "bomb")
			md := "---\nname: bomb\ndescription: A bomb. Use in tests.\nversion: 1.0.0\n---\n# bomb\n"
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, SkillFile), []byte(md), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ToolsFile), []byte(b.src), 0o644); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, ds := Load(context.Background(), dir, Options{Mode: Lenient})
			runtime.ReadMemStats(&after)
			if used := after.TotalAlloc - before.TotalAlloc; used > 100<<20 {
				t.Errorf("allocated %d MB reading a %d-byte tools.py", used>>20, len(b.src))
			}
			var got string
			for _, d := range ds {
				if d.Code == CodeToolsPySyntax {
					got = d.Message
				}
			}
			switch {
			case b.want == "" && got != "":
				t.Errorf("a tools.py within the bounds was refused: %s", got)
			case b.want != "" && !strings.Contains(got, b.want):
				t.Errorf("diagnostic %q, want one naming %q", got, b.want)
			}
		})
	}
}

// BenchmarkPythonParenBomb is the paren bomb through ParsePythonFuncs.
func BenchmarkPythonParenBomb(b *testing.B) {
	src := []byte(pyBombs["paren-bomb"].src)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParsePythonFuncs(src); err == nil {
			b.Fatal("the bomb parsed")
		}
	}
}
