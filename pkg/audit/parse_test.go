package audit

import (
	"context"
	"testing"
)

// TestNoFalseSyntaxErrors: code that CPython 3.12 and TypeScript accept
// gets no code-parse finding (PEP 701 f-strings, a bare & in JSX text),
// and the analysis still reads it.
func TestNoFalseSyntaxErrors(t *testing.T) {
	files := map[string]string{
		"SKILL.md": skillMD("", ""),
		"scripts/fstrings.py": "import os\n" +
			"x = 'a'\nd = {\"k\": 1}\n" +
			"a = f\"{f'{x}'}\"\n" +
			"b = f\"{d[\"k\"]}\"\n" +
			"c = f'{f'{f'{x}'}'}'\n" +
			"e = f\"{'\\n'.join([x])}\"\n" +
			"os.system(f\"{x}\")\n",
		"web/page.jsx":  "export const A = () => <p>Tom & Jerry && friends {1} &</p>;\n",
		"web/page.tsx":  "export const B = (): JSX.Element => <p>R&D &amp; more</p>;\n",
		"web/broken.ts": "const x = (;\n",
	}
	rep, err := Scan(context.Background(), writeSkill(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	parseErrs := map[string]bool{}
	shell := false
	for _, f := range rep.Findings {
		if f.Rule == RuleCodeParse {
			parseErrs[f.File] = true
		}
		if f.File == "scripts/fstrings.py" && f.Line == 8 {
			shell = true
		}
	}
	for _, name := range []string{"scripts/fstrings.py", "web/page.jsx", "web/page.tsx"} {
		if parseErrs[name] {
			t.Errorf("%s: false syntax error", name)
		}
	}
	if !parseErrs["web/broken.ts"] {
		t.Error("web/broken.ts: real syntax error not reported")
	}
	if !shell {
		t.Errorf("os.system in the f-string file not analysed: %+v", rep.Findings)
	}
}
