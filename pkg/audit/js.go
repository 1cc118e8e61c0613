package audit

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsAnalysis is the state of analysing one JavaScript or TypeScript module
// through tree-sitter: imports and require() bind names to modules, so
// cp.execSync resolves to child_process.execSync whatever it was called.
type jsAnalysis struct {
	codeSite
}

// analyzeJS audits a JavaScript or TypeScript file.
func (r *run) analyzeJS(rel string, src []byte, kind fileKind) {
	lang := r.s.langs.javascript
	name := "JavaScript"
	switch kind {
	case kindTS:
		lang, name = r.s.langs.typescript, "TypeScript"
	case kindTSX:
		lang, name = r.s.langs.tsx, "TypeScript"
	}
	if r.tooDeep(rel, name, src, false) {
		return
	}
	root := r.parseFile(lang, name, rel, src)
	if root == nil {
		return
	}
	newJSAnalysis(r, rel, src, 1, false, 0).analyze(root)
}

// analyzeJSSnippet audits JavaScript found in a string (node -e, eval).
func (r *run) analyzeJSSnippet(rel string, line int, code string, depth int) {
	if root, src := r.parseSnippet(r.s.langs.javascript, code, depth); root != nil {
		newJSAnalysis(r, rel, src, line, true, depth).analyze(root)
	}
}

func newJSAnalysis(r *run, file string, src []byte, base int, embedded bool, depth int) *jsAnalysis {
	return &jsAnalysis{codeSite: newCodeSite(r, file, src, base, embedded, depth)}
}

// normModule names modules the way the rules do: no node: prefix, one
// name for fs, fs/promises and fs-extra.
func normModule(m string) string {
	m = strings.TrimPrefix(m, "node:")
	switch m {
	case "fs/promises", "fs-extra", "graceful-fs", "original-fs":
		return "fs"
	case "child_process", "node:child_process":
		return "child_process"
	}
	return m
}

func (a *jsAnalysis) importRef(mod string, n *tnode) {
	if mod == "" {
		return
	}
	line, col := a.pos(n)
	if strings.HasPrefix(mod, "http://") || strings.HasPrefix(mod, "https://") {
		a.r.add(Finding{Rule: RuleDepURL, File: a.file, Line: line, Column: col,
			Message: "imports code from a URL at run time", Evidence: mod})
		return
	}
	a.r.imports = append(a.r.imports, importRef{lang: "javascript", module: mod, file: a.file, line: line, col: col})
}

func (a *jsAnalysis) analyze(root *tnode) {
	// Pass 1: imports, require() bindings, assignments.
	root.walk(func(n *tnode) bool {
		switch n.kind {
		case "import_statement":
			src := n.child("source")
			mod := a.literal(src).s
			a.importRef(mod, n)
			m := normModule(mod)
			for _, k := range n.namedKids() {
				switch k.kind {
				case "import_clause":
					for _, c := range k.namedKids() {
						switch c.kind {
						case "identifier":
							a.alias[c.text(a.src)] = m
						case "namespace_import":
							for _, id := range c.namedKids() {
								a.alias[id.text(a.src)] = m
							}
						case "named_imports":
							for _, spec := range c.namedKids() {
								name := spec.child("name").text(a.src)
								local := name
								if al := spec.child("alias"); al != nil {
									local = al.text(a.src)
								}
								a.alias[local] = m + "." + name
							}
						}
					}
				case "import_require_clause":
					if ids := k.namedKids(); len(ids) > 0 && ids[0].kind == "identifier" {
						req := a.literal(k.child("source")).s
						a.importRef(req, k)
						a.alias[ids[0].text(a.src)] = normModule(req)
					}
				}
			}
			return false
		case "variable_declarator":
			name, value := n.child("name"), n.child("value")
			if name == nil || value == nil {
				return true
			}
			switch name.kind {
			case "identifier":
				a.bind(n, name.text(a.src), value)
				switch value.kind {
				case "arrow_function", "function_expression", "function", "generator_function":
					a.funcs[scopeKey{a.scopeOf(n), name.text(a.src)}] = value
				}
			case "object_pattern":
				base := a.qualify(value)
				for _, p := range name.namedKids() {
					switch p.kind {
					case "shorthand_property_identifier_pattern":
						if base != "" {
							a.alias[p.text(a.src)] = base + "." + p.text(a.src)
						}
					case "pair_pattern":
						if v := p.child("value"); v != nil && v.kind == "identifier" && base != "" {
							a.alias[v.text(a.src)] = base + "." + p.child("key").text(a.src)
						}
					}
				}
			}
		case "assignment_expression":
			if l := n.child("left"); l != nil && l.kind == "identifier" {
				if rv := n.child("right"); rv != nil {
					// An assignment changes the variable where it is
					// declared; an undeclared one is a global.
					name := l.text(a.src)
					s := a.scopeOf(n)
					for ; s != nil; s = a.scopeOf(s) {
						if _, ok := a.assigns[scopeKey{s, name}]; ok {
							break
						}
					}
					k := scopeKey{s, name}
					a.assigns[k] = append(a.assigns[k], rv)
				}
			}
		case "function_declaration", "generator_function_declaration":
			if name := n.child("name"); name != nil {
				a.funcs[scopeKey{a.scopeOf(n), name.text(a.src)}] = n
			}
		case "return_statement":
			if k := n.namedKids(); len(k) == 1 {
				a.noteReturn(n, k[0])
			}
		}
		if scopeKind(n.kind) {
			if p := n.child("parameter"); p != nil && p.kind == "identifier" {
				a.bindIn(n, p.text(a.src))
			}
			for _, p := range n.child("parameters").namedKids() {
				if id := a.paramName(p); id != "" {
					a.bindIn(n, id)
				}
			}
			if body := n.child("body"); n.kind == "arrow_function" && body != nil && body.kind != "statement_block" {
				a.returns[n] = append(a.returns[n], body)
			}
		}
		return true
	})
	// Pass 2: calls, environment access, literals.
	root.walk(func(n *tnode) bool {
		switch n.kind {
		case "call_expression":
			a.call(n, false)
		case "new_expression":
			a.call(n, true)
		case "member_expression":
			if a.qualify(n.child("object")) == "process.env" {
				a.envRead(n, n.child("property").text(a.src))
			}
			if q := a.qualify(n); q == "process.env" && n.parent != nil {
				a.environUse(n)
			}
		case "subscript_expression":
			if q := a.qualify(n.child("object")); q == "process.env" || q == "Bun.env" {
				v := a.fold(n.child("index"))
				name := ""
				if v.known {
					name = v.s
				}
				a.envRead(n, name)
			}
		case "variable_declarator":
			if v := n.child("value"); v != nil && a.qualify(v) == "process.env" {
				if p := n.child("name"); p != nil && p.kind == "object_pattern" {
					for _, k := range p.namedKids() {
						switch k.kind {
						case "shorthand_property_identifier_pattern":
							a.envRead(k, k.text(a.src))
						case "pair_pattern":
							a.envRead(k, k.child("key").text(a.src))
						}
					}
				}
			}
		case "for_in_statement":
			if q := a.qualify(n.child("right")); q == "process.env" {
				a.add(RuleCodeEnvDump, n, 0, "iterates over the whole environment, every secret in it included")
			}
		case "string", "template_string":
			v := a.literal(n)
			line, col := a.pos(n)
			a.r.checkLiteral(a.file, line, col, v.s, firstLine(n.text(a.src)))
			if n.kind == "string" {
				return false
			}
		case "binary_expression":
			if v := a.fold(n); credPath(v.s) {
				a.add(RuleCodeCredFile, n, 0, "builds the path of a credential or key file")
			}
		}
		return true
	})
}

// paramName is the name a parameter binds ("" for a destructuring pattern).
func (a *jsAnalysis) paramName(p *tnode) string {
	switch p.kind {
	case "identifier":
		return p.text(a.src)
	case "required_parameter", "optional_parameter":
		return a.paramName(p.child("pattern"))
	case "assignment_pattern":
		return a.paramName(p.child("left"))
	case "rest_pattern":
		if k := p.namedKids(); len(k) > 0 {
			return a.paramName(k[0])
		}
	}
	return ""
}

// environUse judges a bare use of process.env.
func (a *jsAnalysis) environUse(n *tnode) {
	p := n.parent
	if p.kind == "member_expression" || p.kind == "subscript_expression" || p.kind == "spread_element" {
		return
	}
	if p.kind == "arguments" && p.parent != nil && p.parent.kind == "call_expression" {
		switch a.qualify(p.parent.child("function")) {
		case "JSON.stringify", "console.log", "console.info", "console.error", "Object.keys", "Object.entries",
			"Object.values", "util.inspect", "String":
			a.add(RuleCodeEnvDump, p.parent, 0, "reads the whole environment, every secret in it included")
		}
	}
}

func (a *jsAnalysis) envRead(n *tnode, name string) {
	line, col := a.pos(n)
	a.r.envRead(a.file, line, col, name, firstLine(n.text(a.src)))
}

// qualify resolves a callee or object to a dotted name through imports,
// require() and assignments; calls add "()".
func (a *jsAnalysis) qualify(n *tnode) string { return a.qualifyDepth(n, 0) }

func (a *jsAnalysis) qualifyDepth(n *tnode, depth int) string {
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
			case "call_expression", "member_expression", "identifier", "await_expression", "new_expression", "subscript_expression":
				if q := a.qualifyDepth(rhs[0], depth+1); q != "" {
					return q
				}
			}
		}
		return name
	case "member_expression":
		obj := a.qualifyDepth(n.child("object"), depth+1)
		prop := n.child("property").text(a.src)
		if obj == "" {
			obj = "?"
		}
		q := obj + "." + prop
		return strings.Replace(q, "fs.promises.", "fs.", 1)
	case "subscript_expression":
		obj := a.qualifyDepth(n.child("object"), depth+1)
		if v := a.fold(n.child("index")); v.known && obj != "" {
			return obj + "." + v.s
		}
		if obj == "" {
			return ""
		}
		return obj + "[]"
	case "call_expression":
		fn := n.child("function")
		if fn != nil && (fn.kind == "import" || fn.text(a.src) == "require") {
			if args := jsArgs(n); len(args) > 0 {
				if v := a.fold(args[0]); v.known {
					return normModule(v.s)
				}
			}
			return ""
		}
		f := a.qualifyDepth(fn, depth+1)
		if f == "" {
			return ""
		}
		return f + "()"
	case "new_expression":
		f := a.qualifyDepth(n.child("constructor"), depth+1)
		if f == "" {
			return ""
		}
		return f + "()"
	case "await_expression", "parenthesized_expression", "non_null_expression", "as_expression", "satisfies_expression":
		if k := n.namedKids(); len(k) > 0 {
			return a.qualifyDepth(k[0], depth+1)
		}
	}
	return ""
}

// jsArgs lists a call's arguments.
func jsArgs(call *tnode) []*tnode {
	al := call.child("arguments")
	if al == nil {
		return nil
	}
	if al.kind == "template_string" {
		return []*tnode{al}
	}
	return al.namedKids()
}

// literal decodes a JavaScript string or template literal; template
// substitutions are unknown.
func (a *jsAnalysis) literal(n *tnode) val {
	if n == nil {
		return unknownVal()
	}
	v := val{known: true}
	var b strings.Builder
	for _, k := range n.kids {
		switch k.kind {
		case "string_fragment":
			b.WriteString(k.text(a.src))
		case "escape_sequence":
			b.WriteString(jsUnescape(k.text(a.src)))
		case "template_substitution":
			b.WriteString(unknownPart)
			v.known = false
		}
	}
	v.s = b.String()
	return v
}

// jsUnescape resolves one escape sequence.
func jsUnescape(e string) string {
	if len(e) < 2 || e[0] != '\\' {
		return e
	}
	switch e[1] {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case 'b':
		return "\b"
	case 'f':
		return "\f"
	case 'v':
		return "\v"
	case '0':
		if len(e) == 2 {
			return "\x00"
		}
	case '\n', '\r':
		return ""
	case 'x':
		if x, err := strconv.ParseUint(e[2:], 16, 8); err == nil {
			return string(rune(x))
		}
	case 'u':
		h := strings.Trim(e[2:], "{}")
		if x, err := strconv.ParseUint(h, 16, 32); err == nil && utf8.ValidRune(rune(x)) {
			return string(rune(x))
		}
	}
	return e[1:]
}

// fold evaluates what can be known of an expression's value.
func (a *jsAnalysis) fold(n *tnode) val {
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
func (a *jsAnalysis) foldNode(n *tnode) val {
	switch n.kind {
	case "string", "template_string":
		return a.literal(n)
	case "binary_expression":
		l, r := a.fold(n.child("left")), a.fold(n.child("right"))
		if n.child("operator").text(a.src) == "+" {
			return concatVals(l, r)
		}
		return val{s: unknownPart, t: l.t | r.t}
	case "parenthesized_expression", "await_expression", "non_null_expression", "as_expression", "satisfies_expression":
		if k := n.namedKids(); len(k) > 0 {
			return a.fold(k[0])
		}
	case "identifier":
		rhs := a.lookup(n, n.text(a.src))
		if len(rhs) == 1 {
			return a.fold(rhs[0])
		}
		v := unknownVal()
		for _, x := range rhs {
			v.t |= a.fold(x).t
		}
		return v
	case "member_expression":
		switch a.qualify(n) {
		case "process.env", "Bun.env":
			return val{s: unknownPart, t: tEnviron}
		}
		if q := a.qualify(n.child("object")); q == "process.env" || q == "Bun.env" {
			return unknownVal() // one variable, not the environment
		}
		obj := a.fold(n.child("object"))
		return val{s: unknownPart, t: obj.t}
	case "call_expression", "new_expression":
		return a.foldCall(n)
	case "array", "object", "pair", "spread_element", "ternary_expression":
		v := unknownVal()
		for _, k := range n.namedKids() {
			v.t |= a.fold(k).t
		}
		if n.kind == "pair" {
			v.t = a.fold(n.child("value")).t
		}
		return v
	}
	return unknownVal()
}

// jsDecoder reports calls that decode text: their result is tainted.
func jsDecoder(q string) bool {
	switch q {
	case "atob", "Buffer.from", "Buffer.from().toString", "String.fromCharCode", "decodeURIComponent", "unescape",
		"zlib.inflateSync", "zlib.gunzipSync", "zlib.brotliDecompressSync", "zlib.unzipSync", "zlib.inflateRawSync",
		"Buffer.from().toString()":
		return true
	}
	return strings.HasPrefix(q, "Buffer.from().") || strings.HasPrefix(q, "zlib.")
}

func (a *jsAnalysis) foldCall(n *tnode) val {
	fn := n.child("function")
	if fn != nil && fn.kind == "identifier" && n.kind == "call_expression" {
		if def := a.localFunc(fn); def != nil {
			if v, ok := a.foldReturns(def, a.fold); ok {
				return v
			}
		}
	}
	if n.kind == "new_expression" {
		fn = n.child("constructor")
	}
	q := a.qualify(fn)
	args := jsArgs(n)
	var t taint
	for _, x := range args {
		t |= a.fold(x).t
	}
	var recv val
	if fn != nil && fn.kind == "member_expression" {
		recv = a.fold(fn.child("object"))
	}
	switch {
	case q == "atob" && len(args) > 0:
		if in := a.fold(args[0]); in.known {
			if b, err := base64.StdEncoding.DecodeString(in.s); err == nil {
				return val{s: string(b), known: true, t: t | tDecoded}
			}
		}
		return val{s: unknownPart, t: t | tDecoded}
	case q == "Buffer.from" && len(args) > 1:
		enc := a.fold(args[1])
		in := a.fold(args[0])
		switch enc.s {
		case "base64", "base64url":
			if b, ok := decodeBase64(in.s); ok && in.known {
				return val{s: string(b), known: true, t: t | tDecoded}
			}
			return val{s: unknownPart, t: t | tDecoded}
		case "hex":
			if b, err := hex.DecodeString(in.s); err == nil && in.known {
				return val{s: string(b), known: true, t: t | tDecoded}
			}
			return val{s: unknownPart, t: t | tDecoded}
		}
	case strings.HasSuffix(q, ".toString") || strings.HasSuffix(q, ".toString()"):
		if recv.known || recv.t != 0 {
			return recv
		}
	case jsDecoder(q):
		return val{s: unknownPart, t: t | tDecoded | recv.t}
	case jsNetwork(q) != "":
		return val{s: unknownPart, t: t | tNetwork | recv.t}
	case jsFSRead(q):
		if len(args) > 0 {
			if p := a.fold(args[0]).s; credPath(p) {
				return val{s: unknownPart, t: credTaint(p)}
			}
		}
	case q == "path.join" || q == "path.resolve" || q == "path.posix.join":
		var vs []val
		for i, x := range args {
			if i > 0 {
				vs = append(vs, val{s: "/", known: true})
			}
			vs = append(vs, a.fold(x))
		}
		if len(vs) > 0 {
			return concatVals(vs...)
		}
	case q == "os.homedir" || q == "os.homedir()":
		return val{s: "~", known: true}
	}
	return val{s: unknownPart, t: t | recv.t}
}

// jsModPrefix reports whether q is module m or inside it.
func jsModPrefix(q string, mods ...string) bool {
	for _, m := range mods {
		if q == m || strings.HasPrefix(q, m+".") || strings.HasPrefix(q, m+"()") || strings.HasPrefix(q, m+"/") {
			return true
		}
	}
	return false
}

// jsNetwork returns "read" or "write" for calls into network APIs.
func jsNetwork(q string) string {
	method := q
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		method = strings.TrimSuffix(q[i+1:], "()")
	}
	switch {
	case jsModPrefix(q, "net", "tls", "dgram", "ws", "WebSocket", "nodemailer", "socket.io-client", "ssh2", "ftp", "basic-ftp"):
		return "write"
	case jsModPrefix(q, "fetch", "globalThis.fetch", "window.fetch", "node-fetch", "undici", "axios", "got", "superagent",
		"request", "needle", "ky", "http", "https", "http2", "XMLHttpRequest", "EventSource", "openai", "@anthropic-ai/sdk",
		"@aws-sdk", "@google/generative-ai", "@google/genai", "@octokit", "octokit", "twilio", "stripe", "discord.js",
		"telegraf", "node-telegram-bot-api", "@slack/web-api", "puppeteer", "puppeteer-core", "playwright",
		"playwright-core", "cheerio.fromURL", "@supabase/supabase-js", "firebase", "googleapis", "@notionhq/client",
		"@tavily/core", "exa-js", "@mendable/firecrawl-js", "replicate", "groq-sdk", "@mistralai/mistralai", "ollama",
		"ethers", "web3", "viem", "@solana/web3.js", "dns", "Deno.connect", "Bun.connect"):
		switch strings.ToLower(method) {
		case "post", "put", "patch", "delete", "send", "upload", "sendmail", "publish":
			return "write"
		}
		return "read"
	}
	return ""
}

// jsFSRead names file-reading calls.
func jsFSRead(q string) bool {
	switch q {
	case "fs.readFile", "fs.readFileSync", "fs.createReadStream", "fs.readdir", "fs.readdirSync", "fs.opendir",
		"fs.opendirSync", "fs.readlink", "fs.readlinkSync", "Bun.file", "Deno.readTextFile", "Deno.readTextFileSync",
		"Deno.readFile", "Deno.readFileSync", "Deno.readDir", "fs.readJson", "fs.readJsonSync":
		return true
	}
	return false
}

// jsFSWrite names file-writing calls.
func jsFSWrite(q string) bool {
	if strings.HasPrefix(q, "fs.") {
		switch strings.TrimPrefix(q, "fs.") {
		case "writeFile", "writeFileSync", "appendFile", "appendFileSync", "mkdir", "mkdirSync", "rm", "rmSync",
			"rmdir", "rmdirSync", "unlink", "unlinkSync", "rename", "renameSync", "copyFile", "copyFileSync", "cp",
			"cpSync", "createWriteStream", "symlink", "symlinkSync", "chmod", "chmodSync", "chown", "chownSync",
			"truncate", "truncateSync", "mkdtemp", "mkdtempSync", "outputFile", "outputFileSync", "outputJson",
			"writeJson", "writeJsonSync", "remove", "removeSync", "ensureDir", "ensureDirSync", "ensureFile", "move",
			"moveSync", "copy", "copySync", "emptyDir", "utimes", "link", "linkSync":
			return true
		}
	}
	switch q {
	case "Bun.write", "Deno.writeTextFile", "Deno.writeTextFileSync", "Deno.writeFile", "Deno.mkdir", "Deno.remove",
		"Deno.rename", "Deno.copyFile", "Deno.makeTempFile", "Deno.makeTempDir":
		return true
	}
	return false
}

// jsModuleDomain gives the domain of database, desktop and MCP modules.
func jsModuleDomain(q string) (string, string) {
	switch {
	case jsModPrefix(q, "pg", "mysql", "mysql2", "sqlite3", "better-sqlite3", "mongodb", "mongoose", "redis", "ioredis",
		"knex", "sequelize", "@prisma/client", "typeorm", "duckdb", "@libsql/client", "@neondatabase/serverless",
		"bun:sqlite", "node:sqlite", "sqlite", "@duckdb/node-api", "drizzle-orm"):
		return "database", "read"
	case jsModPrefix(q, "robotjs", "@nut-tree/nut-js", "@nut-tree-fork/nut-js", "node-key-sender", "screenshot-desktop",
		"clipboardy", "active-win", "node-window-manager", "applescript", "run-applescript", "@jitsi/robotjs"):
		return "desktop", "control"
	case strings.HasPrefix(q, "@modelcontextprotocol/sdk/client"):
		return "mcp", "connect"
	}
	return "", ""
}

// call judges one call or new expression.
func (a *jsAnalysis) call(n *tnode, isNew bool) {
	fn := n.child("function")
	if isNew {
		fn = n.child("constructor")
	}
	if fn == nil {
		return
	}
	if fn.kind == "import" || fn.text(a.src) == "require" {
		if args := jsArgs(n); len(args) > 0 {
			if v := a.fold(args[0]); v.known {
				a.importRef(v.s, n)
			} else if fn.kind == "import" || fn.text(a.src) == "require" {
				a.add(RuleJSEval, n, Medium, "loads a module named at run time")
			}
		}
		return
	}
	q := a.qualify(fn)
	if q == "" {
		return
	}
	q = strings.TrimPrefix(strings.TrimPrefix(q, "globalThis."), "window.")
	args := jsArgs(n)
	arg := func(i int) val {
		if i < len(args) {
			return a.fold(args[i])
		}
		return unknownVal()
	}
	switch q {
	case "eval", "Function", "vm.runInNewContext", "vm.runInThisContext", "vm.runInContext", "vm.compileFunction", "vm.Script", "vm.SourceTextModule":
		code := arg(0)
		if q == "Function" && len(args) > 0 {
			code = arg(len(args) - 1)
		}
		a.evalCode(n, q, code)
		return
	case "setTimeout", "setInterval", "setImmediate":
		if len(args) > 0 && (args[0].kind == "string" || args[0].kind == "template_string" || args[0].kind == "binary_expression") {
			a.evalCode(n, q, arg(0))
		}
		return
	case "child_process.exec", "child_process.execSync", "shelljs.exec", "execa.command", "execa.execaCommand", "execaCommand", "execa.$", "zx.$", "$", "Bun.$":
		if q == "$" && !(len(args) == 1 && args[0].kind == "template_string") {
			return
		}
		a.shellString(n, q, arg(0), RuleJSShell)
		return
	case "child_process.spawn", "child_process.spawnSync", "child_process.execFile", "child_process.execFileSync", "execa", "execa.execa", "execa.sync", "Bun.spawn", "Bun.spawnSync", "Deno.Command", "Deno.run", "child_process.fork", "cross-spawn", "cross-spawn.sync":
		a.spawn(n, q, args)
		return
	case "Deno.env.get", "Deno.env.toObject", "Bun.env":
		if q == "Deno.env.toObject" {
			a.add(RuleCodeEnvDump, n, 0, "reads the whole environment, every secret in it included")
			return
		}
		name := ""
		if v := arg(0); v.known {
			name = v.s
		}
		a.envRead(n, name)
		return
	}
	if level := jsNetwork(q); level != "" {
		if len(args) > 1 && args[1].kind == "object" {
			for _, p := range args[1].namedKids() {
				if p.kind != "pair" {
					continue
				}
				switch strings.Trim(p.child("key").text(a.src), `"'`) {
				case "method":
					switch strings.ToUpper(a.fold(p.child("value")).s) {
					case "POST", "PUT", "PATCH", "DELETE":
						level = "write"
					}
				case "body", "data":
					level = "write"
				}
			}
		}
		host := ""
		if len(args) > 0 {
			host = hostOf(arg(0).s)
		}
		a.use(n, "network", level, host, q)
		var t taint
		for i := range args {
			t |= arg(i).t
		}
		if t&(tSecret|tEnviron) != 0 {
			a.add(RuleCodeExfil, n, 0, q+" sends credential files or the environment over the network")
		} else if t&tToken != 0 && !a.r.aboutHost(host) {
			a.add(RuleCodeExfil, n, 0, q+" sends a service's credentials to a host the skill does not name")
		}
		return
	}
	if d, l := jsModuleDomain(q); d != "" {
		a.use(n, d, l, "", q)
		return
	}
	switch {
	case jsFSRead(q):
		a.use(n, "filesystem", "read", "", q)
	case jsFSWrite(q):
		a.use(n, "filesystem", "write", "", q)
	}
	method := q
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		method = q[i+1:]
	}
	switch method {
	case "query", "exec", "run", "prepare", "execute", "raw", "$executeRaw", "$queryRaw":
		if len(args) > 0 && sqlWriteRe.MatchString(arg(0).s) {
			a.use(n, "database", "write", "", q)
		}
	case "insertOne", "insertMany", "updateOne", "updateMany", "deleteOne", "deleteMany", "replaceOne", "bulkWrite", "drop":
		a.use(n, "database", "write", "", q)
	}
}

// evalCode judges code evaluated from a string.
func (a *jsAnalysis) evalCode(n *tnode, q string, v val) {
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
		a.add(RuleJSEval, n, Medium, q+" of a constant string")
		line, _ := a.pos(n)
		a.r.analyzeJSSnippet(a.file, line, v.s, a.depth+1)
	default:
		a.add(RuleJSEval, n, 0, q+" runs code built at run time")
	}
}

// spawn judges a program run with an argument array; shell: true makes it
// a shell command line.
func (a *jsAnalysis) spawn(n *tnode, q string, args []*tnode) {
	var words []string
	var t taint
	shell := false
	addArray := func(arr *tnode) {
		for _, e := range arr.namedKids() {
			v := a.fold(e)
			t |= v.t
			words = append(words, v.s)
		}
	}
	for i, x := range args {
		switch x.kind {
		case "array":
			addArray(x)
		case "object":
			for _, p := range x.namedKids() {
				if p.kind != "pair" {
					continue
				}
				key := strings.Trim(p.child("key").text(a.src), `"'`)
				val := p.child("value")
				switch key {
				case "shell":
					shell = val != nil && val.kind != "false"
				case "cmd", "args":
					if val != nil && val.kind == "array" {
						addArray(val)
					}
				}
			}
		default:
			if i == 0 {
				v := a.fold(x)
				t |= v.t
				words = append(words, v.s)
			}
		}
	}
	if q == "child_process.fork" && len(words) > 0 {
		words = append([]string{"node"}, words...)
	}
	if shell {
		a.shellString(n, q+" with shell: true", val{s: strings.Join(words, " "), known: !strings.Contains(strings.Join(words, " "), unknownPart), t: t}, RuleJSShell)
		return
	}
	switch {
	case len(words) == 0:
		a.use(n, "shell", "execute", "", q)
		return
	case t&tNetwork != 0:
		a.add(RuleCodeRemoteExec, n, 0, q+" runs a program with arguments downloaded at run time")
	case t&tDecoded != 0:
		a.add(RuleCodeObfuscated, n, 0, q+" runs a program with decoded arguments")
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	line, _ := a.pos(n)
	a.r.analyzeShellSnippet(a.file, line, strings.Join(quoted, " "), a.depth+1)
}
