package skill

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/skillpm/skillpm/internal/yamlstrict"
	"gopkg.in/yaml.v3"
)

// MaxFrontmatterBytes bounds the YAML between the --- lines. Real skills use
// a few KiB; the bound keeps hostile files from costing much.
const MaxFrontmatterBytes = 64 << 10

// document is SKILL.md split into frontmatter and body.
type document struct {
	front     []byte // YAML text, LF line endings
	frontLine int    // line in the file where the YAML text starts (1-based)
	body      string
	bodyLine  int // line in the file where the body starts
	// blankBefore counts the blank lines before the opening fence.
	blankBefore int
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Frontmatter is SKILL.md split at the --- lines that fence its YAML,
// exactly as Parse splits it, with the body's bytes kept as read: a tool
// that rewrites the frontmatter (pkg/migrate) writes the body back byte
// for byte and finds the same frontmatter Parse judged.
type Frontmatter struct {
	// BOM reports a UTF-8 byte order mark before the frontmatter.
	BOM bool
	// CRLF reports an opening fence ending in CRLF.
	CRLF bool
	// YAML is the text between the fences, with LF line endings.
	YAML string
	// Line is the file line of the first YAML line (1-based).
	Line int
	// Body is everything after the closing fence's line, as read.
	Body []byte
	// BodyLine is the file line where the body starts.
	BodyLine int
}

// SplitFrontmatter splits data as Parse does: a UTF-8 BOM and leading
// blank lines are skipped, lines may end in CRLF, and the frontmatter runs
// from a line --- to the next. ok is false when data does not start with
// a frontmatter or it is never closed (Parse says which).
func SplitFrontmatter(data []byte) (fm Frontmatter, ok bool) {
	fm, _, open, closeAt := fences(data)
	return fm, open >= 0 && closeAt >= 0
}

// fences splits data into lines (each with its line ending) and finds the
// opening fence (the first non-blank line, when it is ---) and the closing
// one, -1 for either when absent; fm is filled in when both are found.
func fences(data []byte) (fm Frontmatter, lines []string, open, closeAt int) {
	if bytes.HasPrefix(data, utf8BOM) {
		fm.BOM = true
		data = data[len(utf8BOM):]
	}
	lines = strings.SplitAfter(string(data), "\n")
	open, closeAt = -1, -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if isFence(l) {
			open = i
		}
		break
	}
	if open < 0 {
		return fm, lines, open, closeAt
	}
	for i := open + 1; i < len(lines); i++ {
		if isFence(lines[i]) {
			closeAt = i
			break
		}
	}
	if closeAt < 0 {
		return fm, lines, open, closeAt
	}
	var front strings.Builder
	off := 0
	for i, l := range lines {
		if i > open && i < closeAt {
			front.WriteString(lf(l))
		}
		if i <= closeAt {
			off += len(l)
		}
	}
	fm.CRLF = strings.HasSuffix(lines[open], "\r\n")
	fm.YAML = front.String()
	fm.Line = open + 2
	fm.Body = data[off:]
	fm.BodyLine = closeAt + 2
	return fm, lines, open, closeAt
}

// isFence reports whether l is a line --- (trailing blanks and a CRLF
// allowed).
func isFence(l string) bool {
	return strings.TrimRight(lf(l), " \t\n") == "---"
}

// lf turns a line's CRLF ending into LF.
func lf(l string) string {
	if strings.HasSuffix(l, "\r\n") {
		return l[:len(l)-2] + "\n"
	}
	return l
}

// splitFrontmatter separates the YAML frontmatter from the Markdown body,
// with LF line endings, or says why it cannot.
func splitFrontmatter(data []byte) (document, *Diagnostic) {
	fm, lines, open, closeAt := fences(data)
	if open < 0 {
		// Is there a frontmatter further down, after some content?
		for i, l := range lines {
			if isFence(l) {
				for j := i + 1; j < len(lines); j++ {
					if isFence(lines[j]) && looksLikeYAML(lines[i+1:j]) {
						return document{}, &Diagnostic{Code: CodeContentBeforeFront, Line: 1, Column: 1,
							Message: fmt.Sprintf("content before the opening --- of the frontmatter (the frontmatter starts at line %d)", i+1),
							Hint:    "move the --- block to the very first line of SKILL.md"}
					}
				}
				break
			}
		}
		return document{}, &Diagnostic{Code: CodeFrontmatterMissing, Line: 1, Column: 1,
			Message: "SKILL.md has no YAML frontmatter",
			Hint:    "start the file with a line ---, then name: and description:, then a closing ---"}
	}
	if closeAt < 0 {
		return document{}, &Diagnostic{Code: CodeFrontmatterUnclosed, Line: open + 1, Column: 1,
			Message: "the frontmatter opened here is never closed",
			Hint:    "add a line --- after the last YAML field"}
	}
	if len(fm.YAML) > MaxFrontmatterBytes {
		return document{}, &Diagnostic{Code: CodeFrontmatterTooLarge, Line: fm.Line, Column: 1,
			Message: fmt.Sprintf("frontmatter is %d bytes, more than the %d allowed", len(fm.YAML), MaxFrontmatterBytes),
			Hint:    "move long text into the Markdown body or a reference file"}
	}
	body := fm.Body
	if bytes.IndexByte(body, '\r') >= 0 {
		body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	}
	return document{front: []byte(fm.YAML), frontLine: fm.Line, body: string(body), bodyLine: fm.BodyLine, blankBefore: open}, nil
}

var yamlKeyLine = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*:`)

// looksLikeYAML is a cheap test used only to word a diagnostic: does a block
// between two --- lines start with a YAML key?
func looksLikeYAML(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		return yamlKeyLine.MatchString(l)
	}
	return false
}

var yamlErrLine = regexp.MustCompile(`line (\d+):? ?`)

// parseYAML parses the frontmatter into a node tree, refusing anchors,
// aliases, merge keys and duplicate keys. Positions are made file-relative.
func parseYAML(doc document) (*yaml.Node, Diagnostics) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc.front, &root); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := doc.frontLine
		if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
			if n, convErr := strconv.Atoi(m[1]); convErr == nil {
				line = doc.frontLine + n - 1
			}
			msg = strings.Replace(msg, m[0], "", 1)
		}
		return nil, Diagnostics{{Code: CodeYAMLSyntax, Line: line, Column: 1,
			Message: "frontmatter is not valid YAML: " + msg,
			Hint:    yamlHint(msg)}}
	}
	shiftLines(&root, doc.frontLine-1)
	if root.Kind == 0 { // empty frontmatter
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: doc.frontLine, Column: 1}, nil
	}
	var ds Diagnostics
	checkNodes(&root, &ds)
	for _, d := range ds {
		if d.Code != CodeYAMLAlias && d.Code != CodeYAMLMergeKey {
			return nil, ds
		}
	}
	if len(ds) > 0 {
		// Only aliases and merge keys: errors in strict mode, warnings in
		// lenient mode (GAIA's PyYAML loads them), as long as the expanded
		// document stays small; an alias bomb stops here.
		budget := maxExpandedNodes
		exp, ok := expandNode(&root, &budget, 0)
		if !ok {
			return nil, append(ds, Diagnostic{Code: CodeFrontmatterTooLarge, Line: doc.frontLine, Column: 1,
				Message: fmt.Sprintf("YAML aliases and merge keys expand the frontmatter past %d nodes", maxExpandedNodes),
				Hint:    "write the repeated values out in full"})
		}
		root = *exp
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, Diagnostics{{Code: CodeFrontmatterNotMap, Line: top.Line, Column: top.Column,
			Message: "frontmatter must be a YAML mapping of fields, found " + kindName(top),
			Hint:    "write one field per line: name: …, description: …"}}
	}
	return top, ds
}

func yamlHint(msg string) string {
	switch {
	case strings.Contains(msg, "mapping values are not allowed"):
		return `a value contains ": "; quote the whole value, e.g. description: "Use when: …"`
	case strings.Contains(msg, "did not find expected"):
		return "check the indentation and the brackets or quotes on this line and the one before"
	case strings.Contains(msg, "found character that cannot start any token"):
		return "YAML does not allow tabs for indentation, or a value starts with a reserved character (@, `); quote it"
	}
	return "fix the YAML syntax; quoting values that contain : or # usually helps"
}

func shiftLines(n *yaml.Node, by int) {
	if n.Line > 0 {
		n.Line += by
	}
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// maxExpandedNodes bounds the frontmatter once aliases and merge keys are
// expanded; real frontmatter has a few hundred nodes, an alias bomb
// billions.
const maxExpandedNodes = 10000

// expandNode returns a copy of n with aliases replaced by copies of their
// anchors and merge keys applied (explicit keys win, then earlier merged
// mappings), spending one unit of budget per node; it fails when the
// budget runs out, the nesting is deeper than 100, or a merge value is not
// a mapping or a list of mappings.
func expandNode(n *yaml.Node, budget *int, depth int) (*yaml.Node, bool) {
	*budget--
	if *budget < 0 || depth > 100 {
		return nil, false
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil, false
		}
		return expandNode(n.Alias, budget, depth+1)
	}
	c := *n
	c.Anchor, c.Content = "", nil
	if n.Kind != yaml.MappingNode {
		for _, ch := range n.Content {
			e, ok := expandNode(ch, budget, depth+1)
			if !ok {
				return nil, false
			}
			c.Content = append(c.Content, e)
		}
		return &c, true
	}
	var merged []*yaml.Node
	have := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if yamlstrict.IsMergeKey(k) {
			ev, ok := expandNode(v, budget, depth+1)
			if !ok {
				return nil, false
			}
			srcs := []*yaml.Node{ev}
			if ev.Kind == yaml.SequenceNode {
				srcs = ev.Content
			}
			for _, src := range srcs {
				if src.Kind != yaml.MappingNode {
					return nil, false
				}
				merged = append(merged, src.Content...)
			}
			continue
		}
		ek, ok1 := expandNode(k, budget, depth+1)
		ev, ok2 := expandNode(v, budget, depth+1)
		if !ok1 || !ok2 {
			return nil, false
		}
		have[ek.Value] = true
		c.Content = append(c.Content, ek, ev)
	}
	for i := 0; i+1 < len(merged); i += 2 {
		if k := merged[i]; !have[k.Value] {
			have[k.Value] = true
			c.Content = append(c.Content, k, merged[i+1])
		}
	}
	return &c, true
}

// checkNodes rejects YAML features that let a small file expand hugely
// (anchors and aliases, merge keys) and duplicate keys, which YAML forbids
// but parsers resolve differently.
func checkNodes(n *yaml.Node, ds *Diagnostics) {
	yamlstrict.Check(n, func(p yamlstrict.Problem) {
		d := Diagnostic{Line: p.Node.Line, Column: p.Node.Column}
		switch p.Kind {
		case yamlstrict.Alias, yamlstrict.Anchor:
			d.Code, d.Message, d.Hint = CodeYAMLAlias, "YAML anchors and aliases are not allowed in frontmatter", "write the repeated value out in full"
		case yamlstrict.MergeKey:
			d.Code, d.Message, d.Hint = CodeYAMLMergeKey, "YAML merge keys (<<) are not allowed in frontmatter", "write the merged fields out in full"
		case yamlstrict.KeyNotScalar:
			d.Code, d.Message, d.Hint = CodeKeyNotScalar, "a mapping key is "+kindName(p.Node)+"; keys must be plain strings", "write the key as a string, e.g. name: …"
		case yamlstrict.Duplicate:
			d.Code, d.Message, d.Hint = CodeDuplicateKey, fmt.Sprintf("key %q appears twice in the same mapping", p.Node.Value), "keep one of the two entries"
		default:
			return
		}
		*ds = append(*ds, d)
	})
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		switch n.ShortTag() {
		case "!!str":
			return "a string"
		case "!!int", "!!float":
			return "a number"
		case "!!bool":
			return "a true/false value"
		case "!!timestamp":
			return "a date"
		}
		return "a " + strings.TrimPrefix(n.ShortTag(), "!!") + " value"
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "an unexpected value"
}
