package audit

import (
	"encoding/base64"
	"path"
	"strings"
	"unicode/utf16"

	"mvdan.cc/sh/v3/syntax"
)

// maxSnippetDepth bounds nested analysis of code in strings (sh -c '…'
// inside os.system("…") inside …).
const maxSnippetDepth = 4

// shAnalysis is the state of analysing one shell program.
type shAnalysis struct {
	r    *run
	file string
	// base is the line of the host file where the program starts; for a
	// snippet embedded in another language, columns are not reported.
	base     int
	embedded bool
	depth    int
	// noUses drops permission uses: package.json scripts are run by
	// people, not by the skill, and are checked only for what they do wrong.
	noUses bool

	assigned    map[string]bool
	netVars     map[string]bool
	decodedVars map[string]bool
	secretVars  map[string]bool
	tokenVars   map[string]bool
	downloads   map[string]bool
	pipes       map[*syntax.BinaryCmd]bool

	// src is the program's text, for evidence.
	src string
	// sums memoises summarize per statement once the variables are known
	// (the second pass): nested command substitutions are summarised once.
	sums map[syntax.Node]summary
	// printer renders evidence; made once, since each printer allocates
	// its buffers.
	printer *syntax.Printer
}

// analyzeShellFile parses a shell script with mvdan.cc/sh and analyses it.
// variant is the file extension or shebang interpreter ("zsh" selects the
// zsh grammar).
func (r *run) analyzeShellFile(rel string, src []byte, variant string) {
	r.addUse(rel, 1, 0, "shell", "execute", "", "shell script")
	langs := []syntax.LangVariant{syntax.LangBash, syntax.LangZsh, syntax.LangMirBSDKorn}
	if strings.Contains(variant, "zsh") {
		langs = []syntax.LangVariant{syntax.LangZsh, syntax.LangBash}
	}
	if r.shellTooDeep(rel, 1, string(src), "the script") {
		return
	}
	var firstErr error
	for _, lang := range langs {
		f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(string(src)), rel)
		if err == nil {
			a := newShAnalysis(r, rel, 1, false, 0)
			a.src = string(src)
			a.analyze(f)
			return
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	line := 0
	msg := firstErr.Error()
	if pe, ok := firstErr.(syntax.ParseError); ok {
		line = int(pe.Pos.Line())
		msg = pe.Text
	}
	r.add(Finding{Rule: RuleCodeParse, File: rel, Line: line, Message: "shell does not parse: " + msg + "; its lines were analysed one by one"})
	// A syntax error must not hide the rest of the script: every line that
	// parses on its own is analysed.
	for i, l := range strings.Split(string(src), "\n") {
		if strings.TrimSpace(l) != "" {
			r.shellSnippet(rel, i+1, l, 0, true)
		}
	}
}

// analyzeShellSnippet analyses a command line found in another file (a
// Python os.system string, a package.json hook, bash -c '…').
func (r *run) analyzeShellSnippet(rel string, line int, cmd string, depth int) {
	r.shellSnippet(rel, line, cmd, depth, true)
}

func (r *run) shellSnippet(rel string, line int, cmd string, depth int, uses bool) {
	if depth > maxSnippetDepth || len(cmd) > 1<<20 || r.shellTooDeep(rel, line, cmd, "shell code here") {
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), rel)
	if err != nil {
		return // the host construct is reported on its own
	}
	a := newShAnalysis(r, rel, line, true, depth)
	a.src = cmd
	a.noUses = !uses
	a.analyze(f)
}

func newShAnalysis(r *run, file string, base int, embedded bool, depth int) *shAnalysis {
	return &shAnalysis{
		r: r, file: file, base: base, embedded: embedded, depth: depth,
		assigned: map[string]bool{}, netVars: map[string]bool{}, decodedVars: map[string]bool{},
		secretVars: map[string]bool{}, tokenVars: map[string]bool{}, downloads: map[string]bool{}, pipes: map[*syntax.BinaryCmd]bool{},
	}
}

// pos maps a node position to the host file.
func (a *shAnalysis) pos(p syntax.Pos) (int, int) {
	if !p.IsValid() {
		return a.base, 0
	}
	line := a.base + int(p.Line()) - 1
	if a.embedded {
		return line, 0
	}
	return line, int(p.Col())
}

func (a *shAnalysis) add(rule string, p syntax.Pos, sev Severity, msg, evidence string) {
	line, col := a.pos(p)
	a.r.add(Finding{Rule: rule, File: a.file, Line: line, Column: col, Severity: sev, Message: msg, Evidence: evidence})
}

func (a *shAnalysis) use(p syntax.Pos, domain, level, detail, what string) {
	if a.noUses {
		return
	}
	line, col := a.pos(p)
	a.r.addUse(a.file, line, col, domain, level, detail, what)
}

// analyze runs the two passes: first what variables hold, then every
// command, pipeline, redirection and expansion.
func (a *shAnalysis) analyze(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name != nil {
				a.assigned[x.Name.Value] = true
				if x.Value != nil {
					a.classifyAssign(x.Name.Value, x.Value)
				}
			}
		case *syntax.WordIter:
			if x.Name != nil {
				a.assigned[x.Name.Value] = true
			}
		case *syntax.CallExpr:
			name, rest := a.command(x.Args)
			switch name {
			case "read", "mapfile", "readarray", "getopts", "local", "declare", "typeset", "export":
				for _, w := range rest {
					if t, ok := wordLit(w); ok && !strings.HasPrefix(t, "-") {
						a.assigned[strings.SplitN(t, "=", 2)[0]] = true
					}
				}
			}
		case *syntax.CStyleLoop, *syntax.ArithmExp, *syntax.ArithmCmd:
			// Arithmetic assigns too; names used there are counters.
			syntax.Walk(x, func(m syntax.Node) bool {
				if l, ok := m.(*syntax.Lit); ok {
					a.assigned[l.Value] = true
				}
				return true
			})
			return false
		}
		return true
	})
	a.sums = map[syntax.Node]summary{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			a.stmt(x)
		case *syntax.CallExpr:
			a.call(x)
		case *syntax.ParamExp:
			a.param(x)
		case *syntax.Word:
			a.word(x)
		}
		return true
	})
}

// classifyAssign remembers variables that hold downloaded, decoded or
// secret content, so that later uses of them are judged by what they hold.
func (a *shAnalysis) classifyAssign(name string, w *syntax.Word) {
	s := a.summarize(w)
	if s.net {
		a.netVars[name] = true
	}
	if s.decoded {
		a.decodedVars[name] = true
	}
	if s.secret {
		a.secretVars[name] = true
	}
	if s.token {
		a.tokenVars[name] = true
	}
}

// summary says what a piece of shell does, for judging the command around it.
type summary struct {
	net     bool // downloads (or uses the network)
	decoded bool // decodes base64/hex
	secret  bool // reads credential files or the whole environment
	token   bool // reads a service's credential file (exfil.go)
	netUse  bool // runs a program that talks to the network
}

// summarize walks a node for downloads, decoders and secrets.
func (a *shAnalysis) summarize(n syntax.Node) summary {
	if s, ok := a.sums[n]; ok {
		return s
	}
	var s summary
	local := map[*syntax.Word]bool{}
	syntax.Walk(n, func(m syntax.Node) bool {
		if !a.r.spend(1) {
			return false
		}
		switch x := m.(type) {
		case *syntax.Stmt:
			if a.sums != nil && m != n {
				sub := a.summarize(x)
				s.net, s.decoded, s.secret, s.netUse = s.net || sub.net, s.decoded || sub.decoded, s.secret || sub.secret, s.netUse || sub.netUse
				s.token = s.token || sub.token
				return false
			}
		case *syntax.CallExpr:
			name, rest := a.command(x.Args)
			if downloader(name) || name == "" && len(x.Args) > 0 && urlArg(rest) {
				// A program whose name is built at run time ($a$b,
				// $(printf '\143…')) given a URL is taken for the
				// download it hides.
				s.net = true
			}
			switch name {
			case "ssh":
				// Its arguments are options, a host and a command run
				// there: none of them is local data sent.
				for _, w := range rest {
					local[w] = true
				}
			case "scp", "sftp", "rsync", "ssh-add", "ssh-keygen", "ssh-copy-id":
				for i, w := range rest {
					if t, _ := wordLit(w); sshLocalArgs(t) && i+1 < len(rest) {
						local[rest[i+1]] = true
					}
					if name == "ssh-add" || name == "ssh-keygen" {
						local[w] = true
					}
				}
			}
			if _, ok := shellNetwork(name, rest); ok {
				s.netUse = true
			}
			if decoderCmd(name, rest) {
				s.decoded = true
			}
			if a.envDump(name, rest) {
				s.secret = true
			}
		case *syntax.ParamExp:
			if x.Param != nil {
				v := x.Param.Value
				s.net = s.net || a.netVars[v]
				s.decoded = s.decoded || a.decodedVars[v]
				s.secret = s.secret || a.secretVars[v]
				s.token = s.token || a.tokenVars[v]
			}
		case *syntax.Word:
			if local[x] {
				return false
			}
			if t, _ := wordText(x); credPath(t) {
				if serviceCred(t) {
					s.token = true
				} else {
					s.secret = true
				}
			}
		}
		return true
	})
	if a.sums != nil {
		if _, ok := n.(*syntax.Stmt); ok {
			a.sums[n] = s
		}
	}
	return s
}

// wordText folds a word to its text; unknown parts become unknownPart and
// $HOME becomes ~. ok is false when any part is unknown.
func wordText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	if len(w.Parts) == 1 {
		// Most words are one literal: their text needs no copy.
		switch x := w.Parts[0].(type) {
		case *syntax.Lit:
			if !strings.Contains(x.Value, "\\") {
				return x.Value, true
			}
		case *syntax.SglQuoted:
			return x.Value, true
		}
	}
	var b strings.Builder
	ok := wordParts(&b, w.Parts, false)
	return b.String(), ok
}

// unescapeLit removes the backslashes of an unquoted literal, which quote
// the character after them: c\u\r\l runs curl. Inside double quotes a
// backslash quotes only $, `, ", \ and a newline.
func unescapeLit(s string, dq bool) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (!dq || strings.IndexByte("$`\"\\\n", s[i+1]) >= 0) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func wordParts(b *strings.Builder, parts []syntax.WordPart, dq bool) bool {
	ok := true
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeLit(x.Value, dq))
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			ok = wordParts(b, x.Parts, true) && ok
		case *syntax.ParamExp:
			if x.Param != nil && x.Param.Value == "HOME" {
				b.WriteString("~")
			} else {
				b.WriteString(unknownPart)
				ok = false
			}
		default:
			b.WriteString(unknownPart)
			ok = false
		}
	}
	return ok
}

// wordLit is the text of a fully literal word.
func wordLit(w *syntax.Word) (string, bool) {
	t, ok := wordText(w)
	if !ok {
		return "", false
	}
	return t, true
}

// shellBuiltin names commands the shell runs itself.
func shellBuiltin(name string) bool {
	switch name {
	case "echo", "printf", "cd", "test", "[", "[[", "read", "export", "local", "set", "unset", "shift", "exit", "return",
		"true", "false", ":", "source", ".", "eval", "declare", "typeset", "readonly", "trap", "wait", "getopts", "pwd",
		"let", "alias", "unalias", "type", "command", "hash", "ulimit", "umask", "builtin", "exec", "break", "continue",
		"shopt", "pushd", "popd", "dirs", "jobs", "fg", "bg", "kill", "mapfile", "readarray", "compgen", "complete",
		"disown", "suspend", "times", "enable", "help", "logout", "caller", "history", "fc", "bind", "print", "setopt",
		"unsetopt", "autoload", "zmodload", "emulate", "whence", "where", "functions", "noglob", "time":
		return true
	}
	return false
}

// command resolves the program a call runs, looking through wrappers such
// as sudo, env, nohup, timeout and xargs. It returns "" for a program whose
// name is not a constant.
func (a *shAnalysis) command(args []*syntax.Word) (string, []*syntax.Word) {
	for len(args) > 0 {
		t, ok := wordLit(args[0])
		if !ok {
			return "", args[1:]
		}
		name := programName(t)
		rest := args[1:]
		switch name {
		case "sudo", "doas", "nohup", "caffeinate", "unbuffer", "setsid", "chronic", "torsocks", "proxychains",
			"proxychains4", "nice", "ionice", "stdbuf", "command", "builtin", "exec", "time", "timeout", "xargs", "env", "watch", "strace":
		default:
			return name, rest
		}
		// Skip the wrapper's options and, for env, assignments.
		i := 0
		for i < len(rest) {
			o, _ := wordLit(rest[i])
			switch {
			case strings.HasPrefix(o, "-"):
				i++
				if takesValue(name, o) && i < len(rest) {
					i++
				}
				continue
			case name == "env" && strings.Contains(o, "=") && !strings.HasPrefix(o, "="):
				i++
				continue
			case name == "timeout" && i == 0 && o != "" && (o[0] >= '0' && o[0] <= '9'):
				i++
				continue
			}
			break
		}
		if i >= len(rest) {
			if name == "xargs" {
				return "echo", nil
			}
			return name, nil
		}
		args = rest[i:]
	}
	return "", nil
}

// takesValue reports wrapper options followed by a separate value.
func takesValue(wrapper, opt string) bool {
	switch wrapper {
	case "sudo", "doas":
		switch opt {
		case "-u", "-g", "-p", "-C", "-h", "-U", "-r", "-t", "-D", "-R", "-T":
			return true
		}
	case "nice", "ionice":
		return opt == "-n" || opt == "-c"
	case "xargs":
		switch opt {
		case "-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a":
			return true
		}
	case "env":
		return opt == "-u" || opt == "-C" || opt == "-S"
	case "timeout":
		return opt == "-s" || opt == "-k" || opt == "--signal" || opt == "--kill-after"
	case "watch":
		return opt == "-n"
	}
	return false
}

// downloader names programs whose output is content from the network.
func downloader(name string) bool {
	switch name {
	case "curl", "wget", "fetch", "http", "https", "xh", "aria2c", "lynx", "links", "w3m", "httpie":
		return true
	}
	return false
}

// interpreterKind says whether a program runs code: "shell" for shells,
// the language for others, "" for neither.
func interpreterKind(name string) string {
	switch {
	case name == "sh" || name == "bash" || name == "zsh" || name == "dash" || name == "ksh" || name == "mksh" ||
		name == "fish" || name == "ash" || name == "busybox":
		return "shell"
	case strings.HasPrefix(name, "python") || name == "pypy" || name == "pypy3":
		return "python"
	case name == "node" || name == "nodejs" || name == "bun" || name == "deno":
		return "javascript"
	case name == "perl" || name == "ruby" || name == "php" || name == "lua" || name == "tclsh" || name == "osascript":
		return name
	case name == "pwsh" || name == "powershell" || name == "powershell.exe":
		return "powershell"
	}
	return ""
}

// decoderCmd recognizes commands that decode base64, hex or compressed data.
func decoderCmd(name string, rest []*syntax.Word) bool {
	has := func(flags ...string) bool {
		for _, w := range rest {
			t, _ := wordLit(w)
			for _, f := range flags {
				if t == f {
					return true
				}
			}
		}
		return false
	}
	switch name {
	case "rev":
		// Reversed text fed to a shell or eval has no other purpose.
		return true
	case "printf":
		// Octal or hex escapes spell out what the script will not write.
		if len(rest) > 0 {
			// ANSI colour escapes (\033, \x1b) are not spelling.
			t, ok := wordText(rest[0])
			t = strings.NewReplacer("\\033", "", "\\x1b", "", "\\x1B", "", "\\0033", "").Replace(t)
			if ok && (strings.Contains(t, "\\x") || octalEscape(t)) {
				return true
			}
		}
		return false
	case "base64", "base32", "basenc":
		return has("-d", "--decode", "-D", "-di", "-id")
	case "xxd":
		return has("-r", "-r -p", "-rp", "-pr")
	case "openssl":
		return has("-d") && (has("base64") || has("enc") || has("-base64") || has("-a"))
	case "uudecode", "gunzip", "zcat", "bunzip2", "unxz", "xzcat", "lzcat":
		return true
	case "gzip", "xz", "bzip2":
		return has("-d", "--decompress")
	}
	return false
}

// octalEscape reports a \NNN octal escape in a printf format.
func octalEscape(t string) bool {
	for i := 0; i+3 < len(t); i++ {
		if t[i] == '\\' && t[i+1] >= '0' && t[i+1] <= '3' && t[i+2] >= '0' && t[i+2] <= '7' && t[i+3] >= '0' && t[i+3] <= '7' {
			return true
		}
	}
	return false
}

// urlArg reports an argument that is a URL.
func urlArg(rest []*syntax.Word) bool {
	for _, w := range rest {
		if t, _ := wordText(w); strings.Contains(t, "://") {
			return true
		}
	}
	return false
}

// envDump recognizes commands that print the whole environment.
func (a *shAnalysis) envDump(name string, rest []*syntax.Word) bool {
	nonFlag := 0
	for _, w := range rest {
		if t, _ := wordLit(w); !strings.HasPrefix(t, "-") {
			nonFlag++
		}
	}
	switch name {
	case "env", "printenv":
		return nonFlag == 0
	case "export", "declare", "typeset":
		if nonFlag > 0 {
			return false
		}
		for _, w := range rest {
			if t, _ := wordLit(w); t == "-p" || t == "-x" || t == "-px" {
				return true
			}
		}
	case "compgen":
		for _, w := range rest {
			if t, _ := wordLit(w); t == "-e" || t == "-v" {
				return true
			}
		}
	}
	return false
}

// stmt handles what belongs to a statement rather than a command:
// redirections, pipelines, and credentials flowing to the network.
func (a *shAnalysis) stmt(st *syntax.Stmt) {
	var callName string
	var rest []*syntax.Word
	if c, ok := st.Cmd.(*syntax.CallExpr); ok {
		callName, rest = a.command(c.Args)
	}
	for _, rd := range st.Redirs {
		if rd.Word == nil && rd.Hdoc == nil {
			continue
		}
		target, _ := wordText(rd.Word)
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.AppClob, syntax.RdrAllClob, syntax.AppAllClob, syntax.DplOut, syntax.RdrInOut:
			if strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/") {
				a.use(rd.Pos(), "network", "write", devNetHost(target), "redirect to "+target)
				if interpreterKind(callName) == "shell" {
					a.add(RuleCodeRemoteExec, rd.Pos(), 0, "a shell is attached to a network socket (reverse shell)", target)
				}
				continue
			}
			if rd.Op == syntax.DplOut || devTarget(target) {
				continue
			}
			a.use(rd.Pos(), "filesystem", "write", "", "redirect to "+shownPath(target))
			if downloader(callName) && target != "" {
				a.downloads[normPath(target)] = true
			}
		case syntax.RdrIn:
			if strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/") {
				a.use(rd.Pos(), "network", "read", devNetHost(target), "redirect from "+target)
				continue
			}
			if !devTarget(target) {
				a.use(rd.Pos(), "filesystem", "read", "", "redirect from "+shownPath(target))
			}
		case syntax.Hdoc, syntax.DashHdoc:
			if rd.Hdoc != nil && interpreterKind(callName) == "shell" && !hasFlag(rest, "-c") {
				if body, ok := wordText(rd.Hdoc); ok {
					line, _ := a.pos(rd.Hdoc.Pos())
					a.r.analyzeShellSnippet(a.file, line, body, a.depth+1)
				}
			}
		case syntax.WordHdoc:
			if k := interpreterKind(callName); k != "" {
				s := a.summarize(rd.Word)
				switch {
				case s.net:
					a.add(RuleShCurlPipe, st.Pos(), 0, "downloaded content is fed to "+callName, a.nodeText(st))
				case s.decoded:
					a.add(RuleCodeObfuscated, st.Pos(), 0, "decoded content is fed to "+callName, a.nodeText(st))
				}
			}
		}
	}
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && !a.pipes[b] {
		a.pipeline(st, b)
	}
	switch st.Cmd.(type) {
	case *syntax.CallExpr, *syntax.BinaryCmd:
		s := a.summarize(st)
		switch {
		case s.secret && s.netUse:
			host := a.stmtHost(st)
			if host == "" {
				host = serviceCLIHost(callName)
			}
			if host != "" && a.r.aboutHost(host) {
				// Point 1 of the audit's contract: a credential store sent to
				// the service the skill is about (gh secret set KEY <
				// ~/.ssh/id_rsa in a GitHub skill) is a review, not malware.
				a.add(RuleCodeExfil, st.Pos(), High, "credential files are sent to "+host+", the service the skill is about; review what is sent", a.nodeText(st))
				break
			}
			a.add(RuleCodeExfil, st.Pos(), 0, "credential files or the environment are sent over the network", a.nodeText(st))
		case s.token && s.netUse:
			host := a.stmtHost(st)
			if host == "" {
				host = serviceCLIHost(callName)
			}
			if !a.r.aboutHost(host) {
				if host == "" {
					host = "a host the audit cannot tell"
				}
				a.add(RuleCodeExfil, st.Pos(), 0, "a service's credentials are sent to "+host+", which the skill does not name", a.nodeText(st))
			}
		}
	}
}

func devTarget(t string) bool {
	return t == "" || strings.HasPrefix(t, "/dev/") || strings.HasPrefix(t, "&") || t == "-"
}

func devNetHost(t string) string {
	parts := strings.Split(t, "/")
	if len(parts) > 3 && !strings.Contains(parts[3], unknownPart) {
		return strings.ToLower(parts[3])
	}
	return ""
}

// shownPath renders a path for a message, unknown parts as "…".
func shownPath(p string) string {
	if p == "" {
		return "a file"
	}
	return strings.ReplaceAll(p, unknownPart, "…")
}

// normPath compares paths as written, without a leading "./".
func normPath(p string) string {
	return strings.TrimPrefix(path.Clean(p), "./")
}

// pipeline judges a | b | c: downloaded or decoded content piped into an
// interpreter.
func (a *shAnalysis) pipeline(st *syntax.Stmt, b *syntax.BinaryCmd) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
			a.pipes[bc] = true
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	a.pipes[b] = true
	flatten(b.X)
	flatten(b.Y)
	fetched, decoded := false, false
	for _, s := range stages {
		c, ok := s.Cmd.(*syntax.CallExpr)
		if !ok {
			sum := a.summarize(s)
			fetched = fetched || sum.net
			decoded = decoded || sum.decoded
			continue
		}
		name, rest := a.command(c.Args)
		if a.runsStdin(name, rest) {
			switch {
			case fetched:
				a.add(RuleShCurlPipe, st.Pos(), 0, "downloaded content is piped into "+name, a.nodeText(st))
				return
			case decoded:
				a.add(RuleCodeObfuscated, st.Pos(), 0, "decoded content is piped into "+name, a.nodeText(st))
				return
			}
		}
		sum := a.summarize(s)
		if downloader(name) || (name == "cat" || name == "echo" || name == "printf" || name == "") && sum.net {
			fetched = true
		}
		if name == "cat" {
			for _, w := range rest {
				if t, ok := wordLit(w); ok && a.downloads[normPath(t)] {
					fetched = true
				}
			}
		}
		if decoderCmd(name, rest) || sum.decoded {
			decoded = true
		}
	}
}

// runsStdin reports an interpreter reading its program from standard input.
func (a *shAnalysis) runsStdin(name string, rest []*syntax.Word) bool {
	if name == "source" || name == "." {
		for _, w := range rest {
			if t, _ := wordLit(w); t == "/dev/stdin" || t == "-" {
				return true
			}
		}
		return false
	}
	if interpreterKind(name) == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		t, ok := wordLit(rest[i])
		if !ok {
			return false
		}
		switch {
		case t == "-s" || t == "-" || t == "/dev/stdin" || t == "--":
			return true
		case t == "-c" || t == "-e" || t == "--eval" || t == "-Command" || t == "-m":
			return false
		case strings.HasPrefix(t, "-"):
			continue
		}
		return false // a script file argument
	}
	return true
}

func hasFlag(rest []*syntax.Word, flag string) bool {
	for _, w := range rest {
		if t, _ := wordLit(w); t == flag {
			return true
		}
	}
	return false
}

// nodeText renders a node back to shell for evidence.
func (a *shAnalysis) nodeText(n syntax.Node) string {
	// A large node (a deep nest of $(…)) is shown from its source: printing
	// it for every command inside it would take time quadratic in its size.
	if a.src != "" && n.Pos().IsValid() && n.End().IsValid() {
		start, end := int(n.Pos().Offset()), int(n.End().Offset())
		if start <= end && end <= len(a.src) && end-start > 1024 {
			return firstLine(a.src[start:start+1024]) + " …"
		}
	}
	if a.printer == nil {
		a.printer = syntax.NewPrinter(syntax.SingleLine(true))
	}
	var b strings.Builder
	if err := a.printer.Print(&b, n); err != nil {
		return ""
	}
	return b.String()
}

// call judges one simple command.
func (a *shAnalysis) call(c *syntax.CallExpr) {
	if len(c.Args) == 0 {
		return
	}
	name, rest := a.command(c.Args)
	p := c.Pos()
	ev := a.nodeText(c)
	first, _ := wordLit(c.Args[0])
	if a.downloads[normPath(first)] && first != "" {
		a.add(RuleShCurlPipe, p, 0, "runs "+first+msgRunsDownload, ev)
	}
	if name == "" {
		a.use(p, "shell", "execute", "", "a command named by a variable")
		return
	}
	if !shellBuiltin(name) {
		a.use(p, "shell", "execute", name, name)
	}
	if a.envDump(name, rest) {
		a.add(RuleCodeEnvDump, p, 0, name+" prints the whole environment, every secret in it included", ev)
	}
	switch kind := interpreterKind(name); {
	case kind != "":
		a.interpreter(p, name, kind, rest, ev)
	case name == "eval":
		a.evalCmd(p, rest, ev)
	case (name == "source" || name == ".") && len(rest) > 0:
		a.procSubstFetch(p, name, rest[0], ev)
		if t, ok := wordLit(rest[0]); ok && a.downloads[normPath(t)] {
			a.add(RuleShCurlPipe, p, 0, name+" runs "+t+msgRunsDownload, ev)
		}
	}
	if level, ok := shellNetwork(name, rest); ok {
		host := ""
		for _, w := range rest {
			if t, _ := wordText(w); strings.Contains(t, "://") {
				host = hostOf(t)
				break
			}
		}
		a.use(p, "network", level, host, name)
		a.noteDownload(name, rest)
		if (name == "nc" || name == "ncat" || name == "netcat") && (hasFlag(rest, "-e") || hasFlag(rest, "-c") || hasFlag(rest, "--exec") || hasFlag(rest, "--sh-exec")) ||
			name == "socat" && socatExec(rest) {
			a.add(RuleCodeRemoteExec, p, 0, name+" attaches a program to a network connection (remote shell)", ev)
		}
	}
	a.effects(p, name, rest, ev)
}

func socatExec(rest []*syntax.Word) bool {
	for _, w := range rest {
		t, _ := wordText(w)
		l := strings.ToLower(t)
		if strings.HasPrefix(l, "exec:") || strings.HasPrefix(l, "system:") {
			return true
		}
	}
	return false
}

// noteDownload remembers files that curl or wget write, so that running
// them later is recognized as running downloaded code.
func (a *shAnalysis) noteDownload(name string, rest []*syntax.Word) {
	var urlPath string
	for _, w := range rest {
		if t, ok := wordLit(w); ok && strings.Contains(t, "://") {
			urlPath = t
		}
	}
	for i, w := range rest {
		t, _ := wordLit(w)
		next := ""
		if i+1 < len(rest) {
			next, _ = wordLit(rest[i+1])
		}
		switch {
		case name == "curl" && (t == "-o" || t == "--output"), name == "wget" && (t == "-O" || t == "--output-document"):
			if next != "" && next != "-" {
				a.downloads[normPath(next)] = true
			}
		case name == "wget" && strings.HasPrefix(t, "--output-document="):
			a.downloads[normPath(strings.TrimPrefix(t, "--output-document="))] = true
		case name == "curl" && (t == "-O" || t == "--remote-name"), name == "wget" && !hasFlag(rest, "-O") && !hasFlag(rest, "-qO-") && !hasFlag(rest, "-O-"):
			if urlPath != "" {
				if j := strings.IndexAny(urlPath, "?#"); j >= 0 {
					urlPath = urlPath[:j]
				}
				a.downloads[path.Base(urlPath)] = true
			}
		}
	}
}

// interpreter judges sh/bash/python/node/… invocations: code given inline
// (-c, -e), scripts fed by process substitution, downloaded scripts.
func (a *shAnalysis) interpreter(p syntax.Pos, name, kind string, rest []*syntax.Word, ev string) {
	for i := 0; i < len(rest); i++ {
		t, lit := wordLit(rest[i])
		if lit && (t == "-c" || t == "-e" || t == "--eval" || t == "-Command" || t == "-command" ||
			kind == "powershell" && (strings.EqualFold(t, "-EncodedCommand") || strings.EqualFold(t, "-enc") || strings.EqualFold(t, "-e"))) {
			if i+1 >= len(rest) {
				return
			}
			code := rest[i+1]
			if kind == "powershell" && !strings.EqualFold(t, "-Command") {
				a.encodedPowerShell(p, code, ev)
				return
			}
			a.inlineCode(p, name, kind, code, ev)
			return
		}
		if lit && strings.HasPrefix(t, "-") {
			continue
		}
		a.procSubstFetch(p, name, rest[i], ev)
		if lit && a.downloads[normPath(t)] {
			a.add(RuleShCurlPipe, p, 0, name+" runs "+t+msgRunsDownload, ev)
		}
		return
	}
}

// inlineCode judges code passed as a string: analysed when constant,
// otherwise judged by where it comes from.
func (a *shAnalysis) inlineCode(p syntax.Pos, name, kind string, code *syntax.Word, ev string) {
	s := a.summarize(code)
	text, ok := wordText(code)
	if s.net && kind != "shell" && onlyQuotedUnknowns(text) {
		// node -e "connect('$URL')": the download is a string in the
		// program, data rather than code.
		s.net = false
		text, ok = placeholders(text), true
	}
	switch {
	case s.net:
		a.add(RuleShCurlPipe, p, 0, name+" runs code downloaded at run time", ev)
		return
	case s.decoded:
		a.add(RuleCodeObfuscated, p, 0, name+" runs decoded code", ev)
		return
	}
	if !ok {
		a.add(RuleShEval, p, 0, name+" runs code built from variables or command output", ev)
		return
	}
	line, _ := a.pos(p)
	switch kind {
	case "shell":
		a.r.analyzeShellSnippet(a.file, line, text, a.depth+1)
	case "python":
		a.r.analyzePythonSnippet(a.file, line, text, a.depth+1)
	case "javascript":
		a.r.analyzeJSSnippet(a.file, line, text, a.depth+1)
	}
}

// encodedPowerShell decodes powershell -EncodedCommand (base64 UTF-16LE).
func (a *shAnalysis) encodedPowerShell(p syntax.Pos, code *syntax.Word, ev string) {
	t, _ := wordText(code)
	raw, err := base64.StdEncoding.DecodeString(t)
	dec := ""
	if err == nil && len(raw)%2 == 0 {
		u := make([]uint16, len(raw)/2)
		for i := range u {
			u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
		}
		dec = string(utf16.Decode(u))
	}
	msg := "PowerShell runs an encoded command"
	if dec != "" {
		ev = "decodes to: " + dec
	}
	a.add(RuleCodeObfuscated, p, 0, msg, ev)
}

// procSubstFetch flags <(curl …) given to an interpreter or source.
func (a *shAnalysis) procSubstFetch(p syntax.Pos, name string, w *syntax.Word, ev string) {
	for _, part := range w.Parts {
		if ps, ok := part.(*syntax.ProcSubst); ok {
			s := summary{}
			for _, st := range ps.Stmts {
				x := a.summarize(st)
				s.net = s.net || x.net
				s.decoded = s.decoded || x.decoded
			}
			switch {
			case s.net:
				a.add(RuleShCurlPipe, p, 0, name+" runs a script downloaded through process substitution", ev)
			case s.decoded:
				a.add(RuleCodeObfuscated, p, 0, name+" runs decoded code through process substitution", ev)
			}
		}
	}
}

// evalCmd judges eval by what it evaluates.
func (a *shAnalysis) evalCmd(p syntax.Pos, rest []*syntax.Word, ev string) {
	var s summary
	literal, fromVar := true, false
	var b strings.Builder
	for i, w := range rest {
		x := a.summarize(w)
		s.net = s.net || x.net
		s.decoded = s.decoded || x.decoded
		t, ok := wordText(w)
		if !ok {
			literal = false
			for _, part := range w.Parts {
				if dq, isDQ := part.(*syntax.DblQuoted); isDQ {
					for _, inner := range dq.Parts {
						if _, pe := inner.(*syntax.ParamExp); pe {
							fromVar = true
						}
					}
				}
				if _, pe := part.(*syntax.ParamExp); pe {
					fromVar = true
				}
			}
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	switch {
	case s.net:
		a.add(RuleShCurlPipe, p, 0, "eval runs code downloaded at run time", ev)
	case s.decoded:
		a.add(RuleCodeObfuscated, p, 0, "eval runs decoded code", ev)
	case literal:
		line, _ := a.pos(p)
		a.r.analyzeShellSnippet(a.file, line, b.String(), a.depth+1)
		a.add(RuleShEval, p, Medium, "eval of a constant string", ev)
	case fromVar:
		a.add(RuleShEval, p, 0, "eval runs code held in a variable", ev)
	default:
		a.add(RuleShEval, p, Medium, "eval runs the output of a command", ev)
	}
}

// param records environment reads: expansions of upper-case variables
// the script never assigns.
func (a *shAnalysis) param(x *syntax.ParamExp) {
	if x.Param == nil {
		return
	}
	name := x.Param.Value
	if name == "" || a.assigned[name] || name != strings.ToUpper(name) {
		return
	}
	c := name[0]
	if !(c >= 'A' && c <= 'Z' || c == '_') || name == "_" {
		return
	}
	line, col := a.pos(x.Pos())
	a.r.envRead(a.file, line, col, name, "$"+name)
}

// word checks every word's text for credential paths and encoded blobs.
func (a *shAnalysis) word(w *syntax.Word) {
	t, _ := wordText(w)
	if t == "" {
		return
	}
	line, col := a.pos(w.Pos())
	a.r.checkLiteral(a.file, line, col, t, strings.ReplaceAll(t, unknownPart, "…"))
}

// stmtHost is the host of the first URL in a statement, "" when none.
func (a *shAnalysis) stmtHost(st *syntax.Stmt) string {
	host := ""
	syntax.Walk(st, func(m syntax.Node) bool {
		if w, ok := m.(*syntax.Word); ok && host == "" {
			if t, _ := wordText(w); strings.Contains(t, "://") {
				host = hostOf(t)
			}
		}
		return host == ""
	})
	return host
}

// onlyQuotedUnknowns reports whether every unknown part of a program's
// text sits alone inside a string literal ('…', "…" or `…`) of the
// program, where it is data.
func onlyQuotedUnknowns(text string) bool {
	found := false
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], unknownPart)
		if j < 0 {
			break
		}
		j += i
		found = true
		if j == 0 || j+1 >= len(text) {
			return false
		}
		q := text[j-1]
		if (q != '\'' && q != '"' && q != '`') || text[j+1] != q {
			return false
		}
		i = j + 1
	}
	return found
}
