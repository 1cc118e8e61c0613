package skill

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// PyFunc is a top-level function of a tools.py with its decorators and
// signature, as read by ParsePythonFuncs.
type PyFunc struct {
	Name       string
	Line       int
	Decorators []string // dotted names, arguments dropped: "tool", "gaia.tool"
	Params     []PyParam
	Returns    string // the return annotation's text, "" when absent
}

// PyParam is one parameter of a Python signature.
type PyParam struct {
	Name       string
	Annotation string // the annotation's text, "" when absent
	Default    string // the default's text, "" when absent
	HasDefault bool
	// Kind is "" for an ordinary parameter, "*" for *args, "**" for **kwargs.
	Kind string
}

// IsTool reports whether the function carries a @tool decorator (bare,
// called with arguments, or qualified as module.tool).
func (f PyFunc) IsTool() bool {
	for _, d := range f.Decorators {
		if d == "tool" || strings.HasSuffix(d, ".tool") {
			return true
		}
	}
	return false
}

// PySyntaxError locates a problem in Python source.
type PySyntaxError struct {
	Line int
	Msg  string
}

func (e *PySyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Class is errdef.Validation: the skill's Python does not parse.
func (e *PySyntaxError) Class() errdef.Class { return errdef.Validation }

// pyTok is a token of the small Python lexer below.
type pyTok struct {
	kind byte // 'n' name, 's' string, '0' number, 'o' operator, '\n' end of logical line
	text string
	line int
	col  int // column of the token (0-based, in runes)
}

// lexPython splits Python source into tokens, keeping only what signatures
// need: names, operators, strings and numbers as opaque tokens, and logical
// line ends (newlines outside brackets and not after a backslash). Comments
// are dropped. It understands every string prefix and triple quotes, so a
// "def" inside a docstring is never mistaken for code.
//
// Each logical line is handed to emit as it ends, so memory is bounded by
// the longest line, not the file; a line of more than MaxPyLineTokens
// tokens or brackets nested deeper than MaxPyDepth stop the lexer at once
// (CPython itself refuses more than 200 nested brackets).
func lexPython(src string, emit func([]pyTok) error) error {
	var toks []pyTok
	line, col, depth := 1, 0, 0
	i := 0
	emitEOL := func() error {
		if len(toks) == 0 {
			return nil
		}
		err := emit(toks)
		toks = toks[:0]
		return err
	}
	for i < len(src) {
		if len(toks) > MaxPyLineTokens {
			return &PySyntaxError{Line: line, Msg: fmt.Sprintf("a logical line of more than %d tokens (the limit skillpm reads signatures within)", MaxPyLineTokens)}
		}
		c := src[i]
		switch {
		case c == '\n':
			if depth == 0 {
				if err := emitEOL(); err != nil {
					return err
				}
			}
			line++
			col = 0
			i++
			continue
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			line++
			col = 0
			i += 2
			continue
		case c == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
			line++
			col = 0
			i += 3
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			col++
			i++
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		}
		startLine, startCol := line, col
		// Strings, with optional prefixes.
		if j, ok := stringStart(src, i); ok {
			end, nl, err := scanString(src, i, j)
			if err != nil {
				return &PySyntaxError{Line: startLine, Msg: err.Error()}
			}
			toks = append(toks, pyTok{kind: 's', text: src[i:end], line: startLine, col: startCol})
			line += nl
			col += end - i
			i = end
			continue
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == '_' || unicode.IsLetter(r):
			j := i + size
			for j < len(src) {
				r2, s2 := utf8.DecodeRuneInString(src[j:])
				if r2 != '_' && !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
					break
				}
				j += s2
			}
			toks = append(toks, pyTok{kind: 'n', text: src[i:j], line: line, col: col})
			col += utf8.RuneCountInString(src[i:j])
			i = j
		case unicode.IsDigit(r) || (r == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9'):
			j := i + 1
			for j < len(src) && (isAlnum(src[j]) || src[j] == '.' || src[j] == '_' ||
				((src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E'))) {
				j++
			}
			toks = append(toks, pyTok{kind: '0', text: src[i:j], line: line, col: col})
			col += j - i
			i = j
		default:
			op := string(r)
			for _, three := range []string{"**=", "//=", ">>=", "<<=", "...", "->"} {
				if strings.HasPrefix(src[i:], three) {
					op = three
					break
				}
			}
			if len(op) == 1 {
				for _, two := range []string{"**", "//", "==", "!=", "<=", ">=", ":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", "<<", ">>"} {
					if strings.HasPrefix(src[i:], two) {
						op = two
						break
					}
				}
			}
			switch op {
			case "(", "[", "{":
				if depth++; depth > MaxPyDepth {
					return &PySyntaxError{Line: line, Msg: fmt.Sprintf("brackets nested more than %d deep (the limit, as in CPython)", MaxPyDepth)}
				}
			case ")", "]", "}":
				if depth == 0 {
					return &PySyntaxError{Line: line, Msg: fmt.Sprintf("unmatched %q", op)}
				}
				depth--
			}
			toks = append(toks, pyTok{kind: 'o', text: op, line: line, col: col})
			col += utf8.RuneCountInString(op)
			i += len(op)
		}
	}
	if depth != 0 {
		return &PySyntaxError{Line: line, Msg: "unexpected end of file inside brackets"}
	}
	return emitEOL()
}

// Bounds of the signature reader.
const (
	// MaxPyDepth is the deepest bracket nesting read.
	MaxPyDepth = 200
	// MaxPyLineTokens is the longest logical line read, in tokens.
	MaxPyLineTokens = 1 << 16
)

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// stringStart reports whether a string literal starts at i and returns the
// index of its opening quote (after any prefix such as rb or f).
func stringStart(src string, i int) (int, bool) {
	j := i
	for j < len(src) && j-i < 2 && strings.IndexByte("rRbBuUfF", src[j]) >= 0 {
		j++
	}
	if j < len(src) && (src[j] == '"' || src[j] == '\'') {
		prefix := strings.ToLower(src[i:j])
		switch prefix {
		case "", "r", "b", "u", "f", "rb", "br", "fr", "rf":
			return j, true
		}
	}
	return 0, false
}

// scanString returns the end of the string literal starting at i whose
// quote is at q, and how many newlines it spans.
func scanString(src string, i, q int) (end, newlines int, err error) {
	quote := src[q]
	triple := strings.HasPrefix(src[q:], strings.Repeat(string(quote), 3))
	j := q + 1
	if triple {
		j = q + 3
	}
	for j < len(src) {
		c := src[j]
		switch {
		case c == '\\':
			// A backslash escapes the next character even in raw strings
			// (r"\"" is a valid one-character-plus-quote string).
			if j+1 < len(src) && src[j+1] == '\n' {
				newlines++
			}
			j += 2
			continue
		case c == '\n':
			if !triple {
				return 0, 0, fmt.Errorf("unterminated string")
			}
			newlines++
		case c == quote:
			if !triple {
				return j + 1, newlines, nil
			}
			if strings.HasPrefix(src[j:], strings.Repeat(string(quote), 3)) {
				return j + 3, newlines, nil
			}
		}
		j++
	}
	return 0, 0, fmt.Errorf("unterminated string")
}

// ParsePythonFuncs reads the top-level function definitions of a Python
// module: decorators, parameter names, annotations and defaults, across
// multi-line signatures. Bodies are skipped, not interpreted.
func ParsePythonFuncs(src []byte) ([]PyFunc, error) {
	var funcs []PyFunc
	var decorators []string
	err := lexPython(string(src), func(ln []pyTok) error {
		top := ln[0].col == 0
		switch {
		case top && ln[0].kind == 'o' && ln[0].text == "@":
			decorators = append(decorators, dottedName(ln[1:]))
			return nil
		case top && ln[0].kind == 'n' && (ln[0].text == "def" || (ln[0].text == "async" && len(ln) > 1 && ln[1].text == "def")):
			f, err := parseDef(ln)
			if err != nil {
				return err
			}
			f.Decorators = decorators
			funcs = append(funcs, f)
		}
		if top {
			decorators = nil
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return funcs, nil
}

func dottedName(ts []pyTok) string {
	var b strings.Builder
	for _, t := range ts {
		if t.kind == 'n' || (t.kind == 'o' && t.text == ".") {
			b.WriteString(t.text)
			continue
		}
		break
	}
	return b.String()
}

// parseDef parses "[async] def name(params) [-> ann]:" from one logical line.
func parseDef(ln []pyTok) (PyFunc, error) {
	k := 1
	if ln[0].text == "async" {
		k = 2
	}
	if k >= len(ln) || ln[k].kind != 'n' {
		return PyFunc{}, &PySyntaxError{Line: ln[0].line, Msg: "def without a function name"}
	}
	f := PyFunc{Name: ln[k].text, Line: ln[0].line}
	k++
	if k >= len(ln) || ln[k].text != "(" {
		return PyFunc{}, &PySyntaxError{Line: ln[0].line, Msg: fmt.Sprintf("def %s without a parameter list", f.Name)}
	}
	// Find the matching close paren.
	depth, close := 0, -1
	for j := k; j < len(ln); j++ {
		if ln[j].kind != 'o' {
			continue
		}
		switch ln[j].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				close = j
			}
		}
		if close >= 0 {
			break
		}
	}
	if close < 0 {
		return PyFunc{}, &PySyntaxError{Line: ln[0].line, Msg: "unclosed parameter list"}
	}
	for _, part := range splitTop(ln[k+1:close], ",") {
		if len(part) == 0 {
			continue
		}
		p, skip, err := parseParam(part)
		if err != nil {
			return PyFunc{}, err
		}
		if !skip {
			f.Params = append(f.Params, p)
		}
	}
	rest := ln[close+1:]
	if len(rest) > 0 && rest[0].text == "->" {
		ann := rest[1:]
		if colon := indexTop(ann, ":"); colon >= 0 {
			ann = ann[:colon]
		}
		f.Returns = joinToks(ann)
	}
	return f, nil
}

// parseParam parses one parameter; skip is true for the bare * and / markers.
func parseParam(ts []pyTok) (PyParam, bool, error) {
	var p PyParam
	if ts[0].kind == 'o' && (ts[0].text == "*" || ts[0].text == "**" || ts[0].text == "/") {
		if len(ts) == 1 {
			return p, true, nil
		}
		if ts[0].text == "/" {
			return p, false, &PySyntaxError{Line: ts[0].line, Msg: "unexpected / in parameters"}
		}
		p.Kind = ts[0].text
		ts = ts[1:]
	}
	if ts[0].kind != 'n' {
		return p, false, &PySyntaxError{Line: ts[0].line, Msg: fmt.Sprintf("expected a parameter name, found %q", ts[0].text)}
	}
	p.Name = ts[0].text
	rest := ts[1:]
	eq := indexTop(rest, "=")
	if eq >= 0 {
		p.Default = joinToks(rest[eq+1:])
		p.HasDefault = true
		rest = rest[:eq]
	}
	if len(rest) > 0 {
		if rest[0].text != ":" {
			return p, false, &PySyntaxError{Line: rest[0].line, Msg: fmt.Sprintf("unexpected %q after parameter %s", rest[0].text, p.Name)}
		}
		p.Annotation = joinToks(rest[1:])
	}
	return p, false, nil
}

// splitTop splits tokens at sep operators outside brackets.
func splitTop(ts []pyTok, sep string) [][]pyTok {
	var out [][]pyTok
	depth, start := 0, 0
	for j, t := range ts {
		if t.kind != 'o' {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case sep:
			if depth == 0 {
				out = append(out, ts[start:j])
				start = j + 1
			}
		}
	}
	return append(out, ts[start:])
}

func indexTop(ts []pyTok, op string) int {
	depth := 0
	for j, t := range ts {
		if t.kind != 'o' {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case op:
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

func joinToks(ts []pyTok) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 && needsSpace(ts[i-1], t) {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

func needsSpace(a, b pyTok) bool {
	word := func(t pyTok) bool { return t.kind != 'o' }
	if word(a) && word(b) {
		return true
	}
	if a.text == "|" || b.text == "|" || a.text == "," {
		return true
	}
	return false
}

// PyTypeOf maps a parameter annotation to the tool parameter type it
// implies ("string", "integer", …), or "" when it implies none that can be
// checked. Optional[X], X | None and Annotated[X, …] are read as X.
func PyTypeOf(annotation string) string {
	a := strings.TrimSpace(annotation)
	if len(a) >= 2 && (a[0] == '"' || a[0] == '\'') && a[len(a)-1] == a[0] {
		a = strings.TrimSpace(a[1 : len(a)-1])
	}
	a = strings.TrimPrefix(a, "typing.")
	for _, wrap := range []string{"Optional[", "Annotated[", "Required[", "NotRequired["} {
		if strings.HasPrefix(a, wrap) && strings.HasSuffix(a, "]") {
			inner := a[len(wrap) : len(a)-1]
			if wrap == "Annotated[" {
				if parts := splitTopString(inner); len(parts) > 0 {
					inner = parts[0]
				}
			}
			return PyTypeOf(inner)
		}
	}
	if parts := splitUnion(a); len(parts) > 1 {
		var kept []string
		for _, p := range parts {
			if p != "None" {
				kept = append(kept, p)
			}
		}
		if len(kept) == 1 {
			return PyTypeOf(kept[0])
		}
		return ""
	}
	base := a
	if i := strings.IndexByte(base, '['); i >= 0 {
		base = base[:i]
	}
	switch base {
	case "str":
		return "string"
	case "int":
		return "integer"
	case "float":
		return "number"
	case "bool":
		return "boolean"
	case "list", "List", "tuple", "Tuple", "Sequence", "set", "Set":
		return "array"
	case "dict", "Dict", "Mapping", "TypedDict":
		return "object"
	}
	return ""
}

// splitUnion splits "A | B" at top-level bars.
func splitUnion(a string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range a {
		switch r {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, strings.TrimSpace(a[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(a[start:]))
}

// splitTopString splits "A, B" at top-level commas.
func splitTopString(a string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range a {
		switch r {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(a[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(a[start:]))
}
