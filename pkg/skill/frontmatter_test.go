package skill

import (
	"testing"
)

// TestSplitFrontmatter: the one splitter finds the frontmatter Parse
// judges and keeps the body's bytes as read, whatever the line endings.
func TestSplitFrontmatter(t *testing.T) {
	for _, tc := range []struct {
		name, in       string
		ok, bom, crlf  bool
		yaml, body     string
		line, bodyLine int
	}{
		{name: "plain", in: "---\nname: a\n---\n# A\n", ok: true, yaml: "name: a\n", body: "# A\n", line: 2, bodyLine: 4},
		{name: "bom and crlf", in: "\uFEFF---\r\nname: a\r\n---\r\n# A\r\n", ok: true, bom: true, crlf: true, yaml: "name: a\n", body: "# A\r\n", line: 2, bodyLine: 4},
		{name: "blank lines and blanks after fences", in: "\n \n--- \t\nname: a\n---  \nbody", ok: true, yaml: "name: a\n", body: "body", line: 4, bodyLine: 6},
		{name: "empty", in: "---\n---\n", ok: true, line: 2, bodyLine: 3},
		{name: "unclosed", in: "---\nname: a\n"},
		{name: "content first", in: "# A\n---\nname: a\n---\n"},
		{name: "lone CR is no line end", in: "---\nname: a\n---\r"},
	} {
		fm, ok := SplitFrontmatter([]byte(tc.in))
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if fm.BOM != tc.bom || fm.CRLF != tc.crlf || fm.YAML != tc.yaml || string(fm.Body) != tc.body || fm.Line != tc.line || fm.BodyLine != tc.bodyLine {
			t.Errorf("%s: got %+v (body %q)", tc.name, fm, fm.Body)
		}
		// Parse agrees: same YAML start, same body once CRLF is LF.
		doc, d := splitFrontmatter([]byte(tc.in))
		if d != nil || string(doc.front) != fm.YAML || doc.frontLine != fm.Line || doc.bodyLine != fm.BodyLine {
			t.Errorf("%s: Parse's split differs: %+v %v", tc.name, doc, d)
		}
	}
}

// TestPosition: the one file:line:col renderer shows the parts known.
func TestPosition(t *testing.T) {
	for _, tc := range []struct {
		file      string
		line, col int
		want      string
	}{
		{"SKILL.md", 0, 0, "SKILL.md"},
		{"SKILL.md", 0, 4, "SKILL.md"},
		{"SKILL.md", 3, 0, "SKILL.md:3"},
		{"a/skills.yaml", 3, 7, "a/skills.yaml:3:7"},
	} {
		if got := Position(tc.file, tc.line, tc.col); got != tc.want {
			t.Errorf("Position(%q, %d, %d) = %q, want %q", tc.file, tc.line, tc.col, got, tc.want)
		}
	}
}
