package audit

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyAnalysis is the state of analysing one Python module, read through
// tree-sitter-python's syntax tree: imports and aliases resolve call
// names to qualified names (sp.run -> subprocess.run), assignments let
// values and their taint be followed, and string literals are decoded.
type pyAnalysis struct {
	codeSite
	star []string
}

// codeSite is what the Python and JavaScript analyses share: where the
// code is, the names it binds, and how findings are placed in the file.
type codeSite struct {
	r        *run
	file     string
	src      []byte
	base     int
	embedded bool
	depth    int

	alias   map[string]string
	assigns map[scopeKey][]*tnode
	folding map[*tnode]bool
	// scopes memoises scopeOf; funcs are the functions the file defines
	// by name (in the scope that defines them); returns are what each
	// function returns (scope.go).
	scopes  map[*tnode]*tnode
	funcs   map[scopeKey]*tnode
	returns map[*tnode][]*tnode
	// memo holds every folded value: an expression is evaluated once,
	// however many names refer to it.
	memo map[*tnode]val
}

func newCodeSite(r *run, file string, src []byte, base int, embedded bool, depth int) codeSite {
	return codeSite{r: r, file: file, src: src, base: base, embedded: embedded, depth: depth,
		alias: map[string]string{}, assigns: map[scopeKey][]*tnode{}, folding: map[*tnode]bool{}, memo: map[*tnode]val{},
		scopes: map[*tnode]*tnode{}, funcs: map[scopeKey]*tnode{}, returns: map[*tnode][]*tnode{}}
}

// analyzePython audits a Python file.
func (r *run) analyzePython(rel string, src []byte) {
	if r.tooDeep(rel, "Python", src, true) {
		return
	}
	root := r.parseFile(r.s.langs.python, "Python", rel, src)
	if root == nil {
		return
	}
	newPyAnalysis(r, rel, src, 1, false, 0).analyze(root)
}

// analyzePythonSnippet audits Python code found in a string (python -c).
func (r *run) analyzePythonSnippet(rel string, line int, code string, depth int) {
	if root, src := r.parseSnippet(r.s.langs.python, code, depth); root != nil {
		newPyAnalysis(r, rel, src, line, true, depth).analyze(root)
	}
}

func newPyAnalysis(r *run, file string, src []byte, base int, embedded bool, depth int) *pyAnalysis {
	return &pyAnalysis{codeSite: newCodeSite(r, file, src, base, embedded, depth)}
}

func (a *codeSite) pos(n *tnode) (int, int) {
	if a.embedded {
		return a.base + n.line - 1, 0
	}
	return n.line, n.col
}

func (a *codeSite) add(rule string, n *tnode, sev Severity, msg string) {
	line, col := a.pos(n)
	a.r.add(Finding{Rule: rule, File: a.file, Line: line, Column: col, Severity: sev, Message: msg, Evidence: firstLine(n.text(a.src))})
}

func (a *codeSite) use(n *tnode, domain, level, detail, what string) {
	line, col := a.pos(n)
	a.r.addUse(a.file, line, col, domain, level, detail, what)
}

// shellString judges a command line run through a shell; shellRule is the
// language's rule for shelling out.
func (a *codeSite) shellString(n *tnode, q string, v val, shellRule string) {
	switch {
	case v.t&tNetwork != 0:
		a.add(RuleCodeRemoteExec, n, 0, q+" runs a command downloaded at run time")
	case v.t&tDecoded != 0:
		a.add(RuleCodeObfuscated, n, 0, q+" runs a decoded command")
	case v.known:
		a.add(shellRule, n, Medium, q+" runs a constant command through a shell")
	default:
		a.add(shellRule, n, 0, q+" runs a command built at run time through a shell (injection risk)")
	}
	if v.s != "" && v.s != unknownPart {
		line, _ := a.pos(n)
		a.r.analyzeShellSnippet(a.file, line, placeholders(v.s), a.depth+1)
	} else {
		a.use(n, "shell", "execute", "", q)
	}
}

// firstLine shortens code evidence to its first line.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func (a *pyAnalysis) analyze(root *tnode) {
	// Pass 1: imports, aliases and assignments.
	root.walk(func(n *tnode) bool {
		switch n.kind {
		case "import_statement":
			for _, k := range n.namedKids() {
				switch k.kind {
				case "dotted_name":
					mod := k.text(a.src)
					top := strings.SplitN(mod, ".", 2)[0]
					a.alias[top] = top
					a.importRef(mod, k)
				case "aliased_import":
					mod := k.child("name").text(a.src)
					if al := k.child("alias"); al != nil {
						a.alias[al.text(a.src)] = mod
					}
					a.importRef(mod, k)
				}
			}
			return false
		case "import_from_statement":
			modNode := n.child("module_name")
			mod := modNode.text(a.src)
			relative := modNode != nil && modNode.kind == "relative_import"
			if !relative {
				a.importRef(mod, modNode)
			}
			for _, k := range n.kids {
				switch {
				case k.kind == "wildcard_import":
					if !relative {
						a.star = append(a.star, mod)
					}
				case k.field == "name" && k.kind == "dotted_name":
					a.alias[k.text(a.src)] = mod + "." + k.text(a.src)
				case k.field == "name" && k.kind == "aliased_import":
					if al := k.child("alias"); al != nil {
						a.alias[al.text(a.src)] = mod + "." + k.child("name").text(a.src)
					}
				}
			}
			return false
		case "assignment":
			if l := n.child("left"); l != nil && l.kind == "identifier" {
				if rhs := n.child("right"); rhs != nil {
					a.bind(n, l.text(a.src), rhs)
				}
			}
		case "as_pattern":
			if al := n.child("alias"); al != nil {
				if kids := n.namedKids(); len(kids) > 0 {
					a.bind(n, strings.TrimSpace(al.text(a.src)), kids[0])
				}
			}
		case "for_statement", "for_in_clause":
			if l := n.child("left"); l != nil && l.kind == "identifier" {
				if rhs := n.child("right"); rhs != nil {
					a.bind(n, l.text(a.src), rhs)
				}
			}
		case "function_definition":
			if name := n.child("name"); name != nil {
				a.funcs[scopeKey{a.scopeOf(n), name.text(a.src)}] = n
			}
			for _, p := range n.child("parameters").namedKids() {
				if id := a.pyParamName(p); id != "" {
					a.bindIn(n, id)
				}
			}
		case "lambda":
			for _, p := range n.child("parameters").namedKids() {
				if id := a.pyParamName(p); id != "" {
					a.bindIn(n, id)
				}
			}
		case "return_statement":
			if k := n.namedKids(); len(k) == 1 {
				a.noteReturn(n, k[0])
			}
		}
		return true
	})
	// Pass 2: calls, environment access, literals.
	root.walk(func(n *tnode) bool {
		switch n.kind {
		case "call":
			a.call(n)
		case "subscript":
			if a.qualify(n.child("value")) == "os.environ" {
				v := a.fold(n.child("subscript"))
				name := ""
				if v.known {
					name = v.s
				}
				a.envRead(n, name)
			}
		case "attribute":
			if a.qualify(n) == "os.environ" && n.parent != nil {
				a.environUse(n)
			}
		case "identifier":
			if a.alias[n.text(a.src)] == "os.environ" && n.parent != nil && n.field != "alias" && n.parent.kind != "aliased_import" &&
				n.parent.kind != "import_from_statement" && n.parent.kind != "dotted_name" {
				a.environUse(n)
			}
		case "string":
			if !docstring(n) {
				v := a.literal(n)
				line, col := a.pos(n)
				a.r.checkLiteral(a.file, line, col, v.s, firstLine(n.text(a.src)))
			}
			return false
		case "concatenated_string", "binary_operator":
			if v := a.fold(n); v.s != "" && credPath(v.s) && !docstring(n) {
				a.add(RuleCodeCredFile, n, 0, "builds the path of a credential or key file")
			}
		case "for_statement":
			if q := a.qualify(n.child("right")); q == "os.environ" || q == "os.environ.items()" || q == "os.environ.keys()" || q == "os.environ.values()" {
				a.add(RuleCodeEnvDump, n, 0, "iterates over the whole environment, every secret in it included")
			}
		}
		return true
	})
}

// pyParamName is the name a parameter binds ("" for * and /).
func (a *pyAnalysis) pyParamName(p *tnode) string {
	switch p.kind {
	case "identifier":
		return p.text(a.src)
	case "default_parameter", "typed_default_parameter":
		return a.pyParamName(p.child("name"))
	case "typed_parameter", "list_splat_pattern", "dictionary_splat_pattern":
		if k := p.namedKids(); len(k) > 0 {
			return a.pyParamName(k[0])
		}
	}
	return ""
}

// importRef records an import for the declared-dependency check.
func (a *pyAnalysis) importRef(mod string, n *tnode) {
	if mod == "" || n == nil {
		return
	}
	line, col := a.pos(n)
	a.r.imports = append(a.r.imports, importRef{lang: "python", module: mod, file: a.file, line: line, col: col})
}

// docstring reports a string that is a statement of its own.
func docstring(n *tnode) bool {
	return n.parent != nil && n.parent.kind == "expression_statement" && len(n.parent.namedKids()) == 1
}

// environUse judges a bare use of os.environ: iterating or serializing it
// dumps every secret; copying it for a child process is ordinary.
func (a *pyAnalysis) environUse(n *tnode) {
	p := n.parent
	switch p.kind {
	case "attribute":
		attr := p.child("attribute").text(a.src)
		if (attr == "items" || attr == "keys" || attr == "values") && p.parent != nil && p.parent.kind == "call" {
			a.add(RuleCodeEnvDump, p.parent, 0, "reads the whole environment (os.environ."+attr+"()), every secret in it included")
		}
	}
}

// serializers print, log or encode their arguments: given the whole
// environment (even copied through dict()), they dump every secret.
func pySerializer(q string) bool {
	switch q {
	case "json.dumps", "json.dump", "print", "str", "repr", "pprint.pprint", "pprint.pformat", "list", "sorted",
		"yaml.dump", "yaml.safe_dump", "logging.info", "logging.debug", "logging.warning", "logging.error", "pickle.dumps",
		"base64.b64encode", "sys.stdout.write", "sys.stderr.write":
		return true
	}
	return false
}

// envRead records os.environ[...] / os.getenv(...).
func (a *pyAnalysis) envRead(n *tnode, name string) {
	line, col := a.pos(n)
	a.r.envRead(a.file, line, col, name, firstLine(n.text(a.src)))
}

// qualify resolves an expression naming a function or object to a dotted
// name through imports and assignments; calls add "()".
func (a *pyAnalysis) qualify(n *tnode) string {
	return a.qualifyDepth(n, 0)
}

func (a *pyAnalysis) qualifyDepth(n *tnode, depth int) string {
	if n == nil || depth > 8 {
		return ""
	}
	switch n.kind {
	case "identifier":
		name := n.text(a.src)
		if q, ok := a.alias[name]; ok {
			return q
		}
		if rhs := a.lookup(n, name); len(rhs) == 1 && rhs[0] != nil {
			switch rhs[0].kind {
			case "call", "attribute", "identifier":
				if q := a.qualifyDepth(rhs[0], depth+1); q != "" {
					return q
				}
			}
		}
		if len(a.star) == 1 && !pyBuiltin(name) {
			return a.star[0] + "." + name
		}
		return name
	case "attribute":
		obj := a.qualifyDepth(n.child("object"), depth+1)
		attr := n.child("attribute").text(a.src)
		if obj == "" {
			return "?." + attr
		}
		return obj + "." + attr
	case "call":
		f := a.qualifyDepth(n.child("function"), depth+1)
		if f == "" {
			return ""
		}
		// Dynamic imports and attribute lookups of constants name what
		// they load: __import__('o'+'s') is os, getattr(os, 'sys'+'tem')
		// is os.system.
		switch f {
		case "__import__", "importlib.import_module", "builtins.__import__":
			if pos, _ := a.args(n); len(pos) > 0 {
				if v := a.fold(pos[0]); v.known && v.s != "" {
					return v.s
				}
			}
		case "getattr", "builtins.getattr":
			if pos, _ := a.args(n); len(pos) >= 2 {
				if v := a.fold(pos[1]); v.known && v.s != "" {
					if obj := a.qualifyDepth(pos[0], depth+1); obj != "" && !strings.HasSuffix(obj, "()") {
						return obj + "." + v.s
					}
				}
			}
		}
		return f + "()"
	case "subscript":
		v := a.qualifyDepth(n.child("value"), depth+1)
		if v == "" {
			return ""
		}
		return v + "[]"
	case "parenthesized_expression", "await":
		if k := n.namedKids(); len(k) == 1 {
			return a.qualifyDepth(k[0], depth+1)
		}
	}
	return ""
}

// pyBuiltin names builtins, which a star import does not shadow in practice.
func pyBuiltin(name string) bool {
	switch name {
	case "print", "open", "len", "str", "int", "float", "dict", "list", "set", "tuple", "range", "eval", "exec",
		"compile", "__import__", "isinstance", "getattr", "setattr", "hasattr", "type", "sorted", "enumerate",
		"zip", "map", "filter", "min", "max", "sum", "any", "all", "repr", "bytes", "bool", "input", "chr", "ord",
		"super", "object", "iter", "next", "format", "abs", "round", "hash", "id", "vars", "globals", "locals":
		return true
	}
	return false
}

// literal decodes a Python string literal: escapes resolved (unless raw),
// f-string replacement fields unknown.
func (a *pyAnalysis) literal(n *tnode) val {
	v := val{known: true}
	var b strings.Builder
	raw := false
	isBytes := false
	for _, k := range n.kids {
		switch k.kind {
		case "string_start":
			prefix := strings.ToLower(strings.TrimRight(k.text(a.src), `"'`))
			raw = strings.Contains(prefix, "r")
			isBytes = strings.Contains(prefix, "b")
		case "string_content":
			t := k.text(a.src)
			if raw {
				b.WriteString(t)
			} else {
				b.WriteString(pyUnescape(t, isBytes))
			}
		case "interpolation":
			b.WriteString(unknownPart)
			v.known = false
		}
	}
	v.s = b.String()
	return v
}

// pyUnescape resolves backslash escapes of a (non-raw) Python literal.
func pyUnescape(s string, isBytes bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case 'x':
			if i+2 < len(s) {
				if x, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					if isBytes {
						b.WriteByte(byte(x))
					} else {
						b.WriteRune(rune(x))
					}
					i += 2
					continue
				}
			}
			b.WriteString(`\x`)
		case 'u', 'U':
			width := 4
			if e == 'U' {
				width = 8
			}
			if !isBytes && i+width < len(s) {
				if x, err := strconv.ParseUint(s[i+1:i+1+width], 16, 32); err == nil && utf8.ValidRune(rune(x)) {
					b.WriteRune(rune(x))
					i += width
					continue
				}
			}
			b.WriteByte('\\')
			b.WriteByte(e)
		case 'N':
			if j := strings.IndexByte(s[i:], '}'); j > 0 {
				b.WriteString(unknownPart)
				i += j
				continue
			}
			b.WriteString(`\N`)
		default:
			if e >= '0' && e <= '7' {
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				x, _ := strconv.ParseUint(s[i:j], 8, 16)
				if isBytes || x < 256 {
					b.WriteRune(rune(x))
				}
				i = j - 1
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

// fold evaluates what can be known of an expression's value statically.
func (a *pyAnalysis) fold(n *tnode) val {
	if n == nil {
		return unknownVal()
	}
	if v, ok := a.memo[n]; ok {
		return v
	}
	if a.folding[n] || len(a.folding) > maxFoldDepth || !a.r.spend(1) {
		return unknownVal()
	}
	a.folding[n] = true
	v := capVal(a.foldNode(n))
	delete(a.folding, n)
	a.r.spend(int64(len(v.s)) / 16)
	a.memo[n] = v
	return v
}

// foldNode is fold without the memo and bounds.
func (a *pyAnalysis) foldNode(n *tnode) val {
	switch n.kind {
	case "string":
		return a.literal(n)
	case "concatenated_string":
		var vs []val
		for _, k := range n.namedKids() {
			vs = append(vs, a.fold(k))
		}
		return concatVals(vs...)
	case "binary_operator":
		l, r := a.fold(n.child("left")), a.fold(n.child("right"))
		switch n.child("operator").text(a.src) {
		case "+":
			return concatVals(l, r)
		case "/":
			return concatVals(l, val{s: "/", known: true}, r)
		case "%":
			return val{s: l.s + unknownPart, t: l.t | r.t}
		}
		return val{s: unknownPart, t: l.t | r.t}
	case "parenthesized_expression", "await", "expression_statement":
		if k := n.namedKids(); len(k) == 1 {
			return a.fold(k[0])
		}
	case "identifier":
		name := n.text(a.src)
		if a.alias[name] == "os.environ" {
			return val{s: unknownPart, t: tEnviron}
		}
		rhs := a.lookup(n, name)
		if len(rhs) == 1 {
			return a.fold(rhs[0])
		}
		v := unknownVal()
		for _, x := range rhs {
			v.t |= a.fold(x).t
		}
		return v
	case "attribute":
		q := a.qualify(n)
		if q == "os.environ" {
			return val{s: unknownPart, t: tEnviron}
		}
		obj := a.fold(n.child("object"))
		return val{s: unknownPart, t: obj.t}
	case "subscript":
		if a.qualify(n.child("value")) == "os.environ" {
			return unknownVal()
		}
		v := a.fold(n.child("value"))
		if sub := n.child("subscript"); sub != nil && sub.kind == "slice" && strings.Contains(sub.text(a.src), "-1") && v.known {
			rs := []rune(v.s)
			for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
				rs[i], rs[j] = rs[j], rs[i]
			}
			return val{s: string(rs), known: true, t: v.t | tDecoded}
		}
		return val{s: unknownPart, t: v.t}
	case "call":
		return a.foldCall(n)
	case "list", "tuple", "set", "dictionary", "list_comprehension", "generator_expression", "conditional_expression", "pair", "dictionary_splat", "list_splat":
		v := unknownVal()
		n.walk(func(k *tnode) bool {
			// A subscript folds whole: os.environ["ONE_KEY"] is one
			// variable, not the environment.
			if k != n && (k.kind == "identifier" || k.kind == "call" || k.kind == "attribute" || k.kind == "subscript") {
				v.t |= a.fold(k).t
				return false
			}
			return true
		})
		return v
	}
	return unknownVal()
}

// args splits a call's arguments into positional and keyword.
func (a *pyAnalysis) args(call *tnode) ([]*tnode, map[string]*tnode) {
	var pos []*tnode
	kw := map[string]*tnode{}
	al := call.child("arguments")
	if al == nil {
		return nil, kw
	}
	if al.kind == "generator_expression" {
		return []*tnode{al}, kw
	}
	for _, k := range al.namedKids() {
		if k.kind == "keyword_argument" {
			kw[k.child("name").text(a.src)] = k.child("value")
			continue
		}
		pos = append(pos, k)
	}
	return pos, kw
}

// decoders turn encoded text into bytes: their output is tainted decoded.
func pyDecoder(q string) bool {
	switch q {
	case "base64.b64decode", "base64.b32decode", "base64.b16decode", "base64.a85decode", "base64.b85decode",
		"base64.decodebytes", "base64.urlsafe_b64decode", "base64.standard_b64decode", "base64.decodestring",
		"binascii.unhexlify", "binascii.a2b_base64", "binascii.a2b_hex", "bytes.fromhex", "bytearray.fromhex",
		"codecs.decode", "zlib.decompress", "gzip.decompress", "bz2.decompress", "lzma.decompress", "marshal.loads",
		"chr", "bytes", "bytearray":
		return true
	}
	return false
}

// foldCall evaluates the calls whose results matter: path builders,
// decoders (with the decoded value when the input is constant), downloads.
func (a *pyAnalysis) foldCall(n *tnode) val {
	if f := n.child("function"); f != nil && f.kind == "identifier" {
		if def := a.localFunc(f); def != nil {
			if v, ok := a.foldReturns(def, a.fold); ok {
				return v
			}
		}
	}
	q := a.qualify(n.child("function"))
	pos, kw := a.args(n)
	var argT taint
	for _, p := range pos {
		argT |= a.fold(p).t
	}
	for _, p := range kw {
		argT |= a.fold(p).t
	}
	recv := val{}
	if f := n.child("function"); f != nil && f.kind == "attribute" {
		recv = a.fold(f.child("object"))
	}
	switch q {
	case "os.getenv", "os.environ.get", "os.getenvb", "os.environ.setdefault":
		return unknownVal() // one variable, not the environment
	case "os.path.join", "posixpath.join", "ntpath.join", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "Path":
		var vs []val
		for i, p := range pos {
			if i > 0 {
				vs = append(vs, val{s: "/", known: true})
			}
			vs = append(vs, a.fold(p))
		}
		if len(vs) == 0 {
			return unknownVal()
		}
		return concatVals(vs...)
	case "os.path.expanduser", "os.path.abspath", "os.path.realpath", "os.path.normpath", "str", "os.fspath", "os.fsencode":
		if len(pos) == 1 {
			return a.fold(pos[0])
		}
	case "pathlib.Path.home", "Path.home", "os.path.expanduser()":
		return val{s: "~", known: true}
	case "open", "io.open", "codecs.open":
		if len(pos) > 0 {
			if p := a.fold(pos[0]); credPath(p.s) {
				return val{s: unknownPart, t: credTaint(p.s) | argT}
			}
		}
		return val{s: unknownPart, t: argT}
	}
	if q == "map" && len(pos) == 2 && a.qualify(pos[0]) == "chr" {
		// map(chr, [99, 117, …]) spells a string out of code points.
		v := val{s: unknownPart, t: argT | tDecoded}
		if pos[1].kind == "list" || pos[1].kind == "tuple" {
			var b strings.Builder
			known := true
			for _, k := range pos[1].namedKids() {
				c, err := strconv.Atoi(k.text(a.src))
				if k.kind != "integer" || err != nil || c < 0 || c > 0x10ffff {
					known = false
					break
				}
				b.WriteRune(rune(c))
			}
			if known {
				v.s, v.known = b.String(), true
			}
		}
		return v
	}
	if pyDecoder(q) {
		v := val{s: unknownPart, t: argT | tDecoded}
		if len(pos) > 0 {
			if in := a.fold(pos[0]); in.known {
				switch {
				case strings.HasPrefix(q, "base64.") || q == "binascii.a2b_base64":
					if b, ok := decodeBase64(strings.TrimSpace(in.s)); ok {
						v.s, v.known = string(b), true
					} else if b, err := base64.StdEncoding.DecodeString(in.s); err == nil {
						v.s, v.known = string(b), true
					}
				case strings.HasSuffix(q, "fromhex") || strings.Contains(q, "hex"):
					if b, err := hex.DecodeString(strings.ReplaceAll(in.s, " ", "")); err == nil {
						v.s, v.known = string(b), true
					}
				}
			}
		}
		return v
	}
	if pyNetwork(q) != "" {
		return val{s: unknownPart, t: tNetwork | argT}
	}
	// Path methods on a credential path read the secret.
	if f := n.child("function"); f != nil && f.kind == "attribute" {
		switch f.child("attribute").text(a.src) {
		case "read_text", "read_bytes", "open", "read":
			if credPath(recv.s) {
				return val{s: unknownPart, t: credTaint(recv.s) | recv.t}
			}
		case "join":
			// ''.join(x) of a known string is that string.
			if recv.known && recv.s == "" && len(pos) == 1 {
				if v := a.fold(pos[0]); v.known {
					return v
				}
			}
		case "decode", "encode", "strip", "lower", "upper", "replace", "format", "text", "json":
		}
	}
	return val{s: unknownPart, t: argT | recv.t}
}

// pyNetwork returns "read" or "write" for calls into network libraries.
func pyNetwork(q string) string {
	mod, method := q, q
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		method = q[i+1:]
	}
	switch {
	case hasModPrefix(mod, "socket", "smtplib", "ftplib", "telnetlib", "paramiko", "websocket", "websockets",
		"aiosmtplib", "imaplib", "poplib", "nntplib", "xmlrpc.client", "asyncio.open_connection", "pysftp", "fabric"):
		return "write"
	case hasModPrefix(mod, "requests", "httpx", "aiohttp", "urllib.request", "urllib3", "http.client", "pycurl",
		"httplib2", "grpc", "boto3", "botocore", "openai", "anthropic", "google.genai", "google.generativeai",
		"googleapiclient", "google.cloud", "tweepy", "slack_sdk", "discord", "telegram", "twilio", "stripe", "praw",
		"feedparser.parse", "yt_dlp", "youtube_dl", "selenium", "playwright", "scrapy", "mechanize", "urllib.urlopen",
		"urllib2", "wget", "tavily", "exa_py", "firecrawl", "duckduckgo_search", "serpapi", "replicate", "cohere",
		"mistralai", "groq", "ollama", "huggingface_hub", "github", "gitlab", "jira", "notion_client", "dropbox",
		"webbrowser.open", "smbclient", "ldap3", "dns.resolver", "whois", "shodan", "pytube", "instaloader"):
		switch method {
		case "post", "put", "patch", "delete", "send", "sendall", "sendto", "upload_file", "upload_fileobj",
			"put_object", "upload", "create_message", "send_message", "chat_postMessage", "publish":
			return "write"
		}
		return "read"
	}
	return ""
}

// hasModPrefix reports whether q is one of mods or inside one of them.
func hasModPrefix(q string, mods ...string) bool {
	for _, m := range mods {
		// Without building m+"." per module: every call in a script asks
		// this of dozens of modules.
		if rest, ok := strings.CutPrefix(q, m); ok && (rest == "" || rest[0] == '.' || strings.HasPrefix(rest, "()")) {
			return true
		}
	}
	return false
}

// pyModuleDomain gives the permission domain of calls into libraries that
// are not network: databases, desktop control, MCP clients.
func pyModuleDomain(q string) (string, string) {
	switch {
	case hasModPrefix(q, "sqlite3", "psycopg2", "psycopg", "pymysql", "mysql.connector", "MySQLdb", "sqlalchemy",
		"pymongo", "motor", "redis", "asyncpg", "aiosqlite", "duckdb", "cx_Oracle", "oracledb", "pyodbc",
		"elasticsearch", "neo4j", "cassandra", "peewee", "chromadb", "qdrant_client", "pinecone", "lancedb"):
		return "database", "read"
	case hasModPrefix(q, "pyautogui", "pynput", "keyboard", "mouse", "pywinauto", "autopy", "pyperclip", "mss",
		"PIL.ImageGrab", "Quartz", "AppKit", "win32api", "win32gui", "win32con", "win32clipboard", "pygetwindow",
		"pyscreeze", "pyscreenshot", "applescript", "osascript"):
		return "desktop", "control"
	case hasModPrefix(q, "mcp.client", "mcp.ClientSession", "mcp.stdio_client", "mcp.sse_client", "fastmcp.Client", "langchain_mcp_adapters"):
		return "mcp", "connect"
	}
	return "", ""
}

// call judges one call.
func (a *pyAnalysis) call(n *tnode) {
	fn := n.child("function")
	q := a.qualify(fn)
	if q == "" {
		return
	}
	pos, kw := a.args(n)
	arg0 := func() val {
		if len(pos) > 0 {
			return a.fold(pos[0])
		}
		if v, ok := kw["args"]; ok {
			return a.fold(v)
		}
		if v, ok := kw["cmd"]; ok {
			return a.fold(v)
		}
		if v, ok := kw["command"]; ok {
			return a.fold(v)
		}
		return unknownVal()
	}
	method := q
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		method = q[i+1:]
	}
	switch q {
	case "eval", "exec", "compile", "builtins.eval", "builtins.exec", "execfile", "runpy.run_path", "code.InteractiveInterpreter().runsource":
		v := arg0()
		switch {
		case v.t&tNetwork != 0:
			a.add(RuleCodeRemoteExec, n, 0, q+" runs code downloaded at run time")
		case v.t&tDecoded != 0:
			msg := q + " runs decoded code"
			if v.known {
				msg += ": " + clip(escapeText(v.s), 80)
			}
			a.add(RuleCodeObfuscated, n, 0, msg)
		case v.known:
			a.add(RulePyEval, n, Medium, q+" of a constant string")
			line, _ := a.pos(n)
			a.r.analyzePythonSnippet(a.file, line, v.s, a.depth+1)
		default:
			a.add(RulePyEval, n, 0, q+" runs code built at run time")
		}
		return
	case "__import__", "importlib.import_module":
		if v := arg0(); v.known {
			a.importRef(v.s, n)
		} else {
			a.add(RulePyEval, n, Medium, q+" imports a module named at run time")
		}
		return
	case "os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput", "commands.getoutput",
		"commands.getstatusoutput", "asyncio.create_subprocess_shell", "os.popen2", "os.popen3", "os.popen4":
		a.shellString(n, q, arg0(), RulePyShell)
		return
	case "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen",
		"asyncio.create_subprocess_exec", "pty.spawn", "pexpect.spawn", "pexpect.run", "sh.Command", "plumbum.local.__getitem__":
		if sh, ok := kw["shell"]; ok && sh.kind != "false" && sh.text(a.src) != "False" && sh.text(a.src) != "0" {
			a.shellString(n, q+"(shell=True)", arg0(), RulePyShell)
			return
		}
		a.argv(n, q, pos, kw)
		return
	case "os.startfile":
		a.use(n, "shell", "execute", "", q)
		return
	case "os.getenv", "os.environ.get", "os.getenvb", "os.environ.setdefault":
		name := ""
		if v := arg0(); v.known {
			name = v.s
		}
		a.envRead(n, name)
		return
	case "pickle.load", "pickle.loads", "cPickle.load", "cPickle.loads", "dill.load", "dill.loads", "marshal.load",
		"marshal.loads", "yaml.unsafe_load", "yaml.full_load", "jsonpickle.decode", "joblib.load", "pandas.read_pickle",
		"shelve.open", "torch.load":
		a.add(RulePyDeserialize, n, 0, q+" can execute code hidden in the data")
	case "yaml.load", "yaml.load_all":
		safe := false
		for _, k := range []string{"Loader"} {
			if v, ok := kw[k]; ok && strings.Contains(v.text(a.src), "Safe") {
				safe = true
			}
		}
		if len(pos) > 1 && strings.Contains(pos[1].text(a.src), "Safe") {
			safe = true
		}
		if !safe {
			a.add(RulePyDeserialize, n, 0, q+" without SafeLoader can construct arbitrary objects")
		}
	}
	if pySerializer(q) {
		for _, p := range pos {
			if a.fold(p).t&tEnviron != 0 {
				a.add(RuleCodeEnvDump, n, 0, q+" serializes the whole environment, every secret in it included")
				break
			}
		}
	}
	if strings.HasPrefix(q, "os.exec") || strings.HasPrefix(q, "os.spawn") || strings.HasPrefix(q, "os.posix_spawn") {
		v := arg0()
		a.use(n, "shell", "execute", programName(v.s), q)
		return
	}
	if level := pyNetwork(q); level != "" {
		if method == "request" && len(pos) > 0 {
			if m := a.fold(pos[0]); m.known {
				switch strings.ToUpper(m.s) {
				case "POST", "PUT", "PATCH", "DELETE":
					level = "write"
				}
			}
		}
		host := ""
		for _, p := range pos {
			if v := a.fold(p); strings.Contains(v.s, "://") {
				host = hostOf(v.s)
				break
			}
		}
		if v, ok := kw["url"]; ok && host == "" {
			host = hostOf(a.fold(v).s)
		}
		if _, ok := kw["data"]; ok && (q == "urllib.request.urlopen" || q == "urllib.request.Request") {
			level = "write"
		}
		a.use(n, "network", level, host, q)
		a.exfil(n, q, pos, kw)
		return
	}
	if d, l := pyModuleDomain(q); d != "" {
		if d == "database" && (method == "execute" || method == "executemany" || method == "executescript") && len(pos) > 0 {
			if v := a.fold(pos[0]); sqlWriteRe.MatchString(v.s) {
				l = "write"
			}
		}
		a.use(n, d, l, "", q)
		return
	}
	a.filesystem(n, q, method, pos, kw)
	if method == "execute" || method == "executemany" || method == "executescript" {
		if len(pos) > 0 {
			if v := a.fold(pos[0]); sqlWriteRe.MatchString(v.s) {
				a.use(n, "database", "write", "", q)
			}
		}
	}
	switch method {
	case "insert_one", "insert_many", "update_one", "update_many", "delete_one", "delete_many", "replace_one", "bulk_write", "drop_collection", "drop_database":
		a.use(n, "database", "write", "", q)
	}
}

// exfil flags network calls that carry credential files or the environment.
func (a *pyAnalysis) exfil(n *tnode, q string, pos []*tnode, kw map[string]*tnode) {
	var t taint
	for _, p := range pos {
		t |= a.fold(p).t
	}
	for _, p := range kw {
		t |= a.fold(p).t
	}
	if t&(tSecret|tEnviron) != 0 {
		a.add(RuleCodeExfil, n, 0, q+" sends credential files or the environment over the network")
	} else if t&tToken != 0 {
		host := ""
		for _, p := range pos {
			if v := a.fold(p); strings.Contains(v.s, "://") {
				host = hostOf(v.s)
				break
			}
		}
		if v, ok := kw["url"]; ok && host == "" {
			host = hostOf(a.fold(v).s)
		}
		if !a.r.aboutHost(host) {
			a.add(RuleCodeExfil, n, 0, q+" sends a service's credentials to a host the skill does not name")
		}
	}
}

// placeholders turns unknown parts of a folded command into a word the
// shell parser accepts.
func placeholders(s string) string {
	return strings.ReplaceAll(s, unknownPart, "__dynamic__")
}

// argv judges a program run with an argument list: its command line is
// analysed as if typed in a shell, so curl, git or bash -c in it count.
func (a *pyAnalysis) argv(n *tnode, q string, pos []*tnode, kw map[string]*tnode) {
	var argNode *tnode
	if len(pos) > 0 {
		argNode = pos[0]
	} else if v, ok := kw["args"]; ok {
		argNode = v
	}
	if q == "asyncio.create_subprocess_exec" {
		// create_subprocess_exec(program, *args): the words are the arguments.
		var words []string
		var t taint
		for _, p := range pos {
			v := a.fold(p)
			t |= v.t
			words = append(words, shellQuote(v.s))
		}
		a.argvWords(n, q, words, t)
		return
	}
	if argNode == nil {
		a.use(n, "shell", "execute", "", q)
		return
	}
	switch argNode.kind {
	case "list", "tuple":
		var words []string
		var t taint
		for _, e := range argNode.namedKids() {
			v := a.fold(e)
			t |= v.t
			words = append(words, shellQuote(v.s))
		}
		a.argvWords(n, q, words, t)
	default:
		v := a.fold(argNode)
		if v.known && !strings.ContainsAny(v.s, " \t") {
			a.argvWords(n, q, []string{shellQuote(v.s)}, v.t)
			return
		}
		if v.t&(tNetwork|tDecoded) != 0 {
			a.shellString(n, q, v, RulePyShell)
			return
		}
		a.use(n, "shell", "execute", "", q)
	}
}

func (a *pyAnalysis) argvWords(n *tnode, q string, words []string, t taint) {
	switch {
	case len(words) == 0:
		a.use(n, "shell", "execute", "", q)
		return
	case t&tNetwork != 0:
		a.add(RuleCodeRemoteExec, n, 0, q+" runs a program with arguments downloaded at run time")
	case t&tDecoded != 0:
		a.add(RuleCodeObfuscated, n, 0, q+" runs a program with decoded arguments")
	}
	line, _ := a.pos(n)
	a.r.analyzeShellSnippet(a.file, line, strings.Join(words, " "), a.depth+1)
}

// shellQuote renders one argument for the shell parser; unknown parts are
// placeholders, so the program name is kept when it is known.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	s = placeholders(s)
	if !strings.ContainsAny(s, " \t\n'\"\\$`|&;<>()*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// filesystem records file reads and writes.
func (a *pyAnalysis) filesystem(n *tnode, q, method string, pos []*tnode, kw map[string]*tnode) {
	fsUse := func(level string) {
		a.use(n, "filesystem", level, "", q)
	}
	switch q {
	case "open", "io.open", "codecs.open", "builtins.open", "os.open", "tarfile.open", "zipfile.ZipFile", "gzip.open",
		"bz2.open", "lzma.open", "fileinput.input", "shelve.open", "dbm.open":
		mode := val{}
		if len(pos) > 1 {
			mode = a.fold(pos[1])
		} else if v, ok := kw["mode"]; ok {
			mode = a.fold(v)
		}
		if q == "os.open" || q == "shelve.open" || q == "dbm.open" || strings.ContainsAny(mode.s, "wax+") {
			fsUse("write")
		} else {
			fsUse("read")
		}
		if len(pos) > 0 {
			if p := a.fold(pos[0]); credPath(p.s) {
				a.add(RuleCodeCredFile, n, 0, "opens a credential or key file")
			}
		}
		return
	}
	switch {
	case hasModPrefix(q, "shutil") && method != "which" && method != "disk_usage" && method != "get_terminal_size",
		hasModPrefix(q, "tempfile"):
		fsUse("write")
		return
	case hasModPrefix(q, "os", "os.path") && !strings.HasPrefix(q, "os.path"):
		switch method {
		case "remove", "unlink", "rmdir", "removedirs", "rename", "renames", "replace", "makedirs", "mkdir", "chmod",
			"chown", "lchown", "symlink", "link", "truncate", "utime", "mkfifo", "mknod", "chflags":
			fsUse("write")
		case "listdir", "scandir", "walk", "readlink", "fwalk":
			fsUse("read")
		}
		return
	case hasModPrefix(q, "glob"):
		fsUse("read")
		return
	case hasModPrefix(q, "pandas", "pd", "polars", "pl") && strings.HasPrefix(method, "read_"):
		fsUse("read")
		return
	}
	switch method {
	case "read_text", "read_bytes", "iterdir", "rglob":
		fsUse("read")
	case "write_text", "write_bytes", "mkdir", "touch", "unlink", "rmdir", "symlink_to", "hardlink_to", "extractall", "extract":
		fsUse("write")
	case "to_csv", "to_excel", "to_parquet", "to_json", "to_pickle", "to_feather", "write_csv", "write_parquet":
		if len(pos) > 0 {
			fsUse("write")
		}
	case "save", "savefig":
		if strings.HasPrefix(q, "PIL.") || strings.Contains(q, "pyplot") || strings.Contains(q, "Image") || strings.Contains(q, "matplotlib") {
			fsUse("write")
		}
	}
}
