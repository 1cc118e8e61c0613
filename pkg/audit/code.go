package audit

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/skillpm/skillpm/pkg/audit/internal/treesitter"
)

func newTreeLanguages() treeLanguages {
	return treeLanguages{
		python:     treesitter.Python,
		javascript: treesitter.JavaScript,
		typescript: treesitter.TypeScript,
		tsx:        treesitter.TSX,
	}
}

// prepareParsers starts compiling, in the background, the grammar of each
// language the skill has a code file of (by extension, as classify names
// them), so that the compile overlaps the audit of the files before the
// first one; a grammar no file needs is not compiled (code in a Markdown
// block or a shebang script compiles its grammar when it is parsed).
// ahead says the caller has other work until it scans (Scanner.Prepare).
func (s *Scanner) prepareParsers(entries []string, ahead bool) {
	var seen [4]bool
	prepare := func(i int, l treesitter.Language) {
		if !seen[i] {
			seen[i] = true
			if ahead {
				treesitter.PrepareAhead(l)
			} else {
				treesitter.Prepare(l)
			}
		}
	}
	for _, rel := range entries {
		switch path.Ext(strings.ToLower(rel)) {
		case ".py", ".pyw", ".pyi":
			prepare(0, s.langs.python)
		case ".js", ".mjs", ".cjs", ".jsx":
			prepare(1, s.langs.javascript)
		case ".ts", ".mts", ".cts":
			prepare(2, s.langs.typescript)
		case ".tsx":
			prepare(3, s.langs.tsx)
		}
	}
}

// maxTreeNodes bounds the syntax tree copied out of tree-sitter; files
// within the size limit stay far below it.
const maxTreeNodes = 2_000_000

// tnode is a syntax node copied out of tree-sitter into Go memory, so the
// analysis walks plain structs instead of crossing into C for every step.
type tnode struct {
	kind     string
	field    string
	start    int
	end      int
	line     int // 1-based
	col      int // 1-based, in bytes
	kids     []*tnode
	parent   *tnode
	named    bool
	hasError bool
}

// parseTree parses src with a tree-sitter grammar and copies the tree.
// tree-sitter recovers from syntax errors; hasError says whether it had to.
// parseFile parses a file of the language called name, reporting a file
// that does not parse (nil) and the first syntax error of one that partly
// does.
func (r *run) parseFile(lang treesitter.Language, name, rel string, src []byte) *tnode {
	root, hasErr, err := r.parseTree(lang, src)
	if errors.Is(err, treesitter.ErrBudget) {
		r.add(Finding{Rule: RuleCodeOpaque, File: rel, Message: fmt.Sprintf(
			"%s was not analysed: parsing it would take the skill past the audit's parse budget (%d steps of 100 parser operations), so it is too large or too intricate to audit in bounded time: this blocks at community and verified",
			name, r.s.opts.Limits.MaxParseSteps)})
		return nil
	}
	if root == nil {
		r.add(Finding{Rule: RuleCodeOpaque, File: rel, Message: name + " could not be parsed at all, so nothing in it was analysed: this blocks at community and verified"})
		return nil
	}
	if hasErr {
		line := 0
		if e := root.firstError(); e != nil {
			line = e.line
		}
		r.add(Finding{Rule: RuleCodeParse, File: rel, Line: line,
			Message: name + " has a syntax error here; the code around it may not be fully analysed"})
	}
	return root
}

// parseSnippet parses code found inside a string (python -c, node -e,
// eval), or returns nil when it is nested too deep or too large to read.
func (r *run) parseSnippet(lang treesitter.Language, code string, depth int) (*tnode, []byte) {
	if depth > maxSnippetDepth || len(code) > 1<<20 {
		return nil, nil
	}
	src := []byte(code)
	root, _, err := r.parseTree(lang, src)
	if errors.Is(err, treesitter.ErrBudget) {
		// The parse budget is the skill's: what is left unparsed makes
		// the analysis incomplete.
		r.budgetOut = true
	}
	return root, src
}

// parseTree parses src, spending from the skill's parse budget; the error
// is treesitter.ErrBudget when the budget ran out (or had), and any other
// parse failure otherwise.
func (r *run) parseTree(lang treesitter.Language, src []byte) (*tnode, bool, error) {
	ctx := r.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if r.parseLeft <= 0 {
		return nil, false, treesitter.ErrBudget
	}
	tree, err := r.treeParser().ParseBudget(ctx, lang, src, maxTreeNodes, &r.parseLeft)
	if err != nil {
		return nil, false, err
	}
	// One allocation for the nodes and one for all the child lists: each
	// node's kids are a window of the second, sized by a first count.
	nodes := make([]tnode, len(tree.Nodes))
	nkids := make([]int32, len(tree.Nodes))
	for _, n := range tree.Nodes[1:] {
		nkids[n.Parent]++
	}
	kids := make([]*tnode, len(tree.Nodes)-1)
	next := 0
	for i, n := range tree.Nodes {
		tn := &nodes[i]
		*tn = tnode{
			kind:     n.Kind,
			field:    n.Field,
			start:    n.Start,
			end:      n.End,
			line:     n.Row + 1,
			col:      n.Column + 1,
			named:    n.Named,
			hasError: n.Error || n.Missing,
		}
		if k := int(nkids[i]); k > 0 {
			tn.kids = kids[next : next : next+k]
			next += k
		}
		if n.Parent >= 0 {
			tn.parent = &nodes[n.Parent]
			tn.parent.kids = append(tn.parent.kids, tn)
		}
	}
	return &nodes[0], tree.HasError, nil
}

func (n *tnode) text(src []byte) string {
	if n == nil || n.start < 0 || n.end > len(src) || n.start > n.end {
		return ""
	}
	return string(src[n.start:n.end])
}

// child returns the first child in the named field.
func (n *tnode) child(field string) *tnode {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.field == field {
			return k
		}
	}
	return nil
}

// named returns the named children.
func (n *tnode) namedKids() []*tnode {
	if n == nil {
		return nil
	}
	out := make([]*tnode, 0, len(n.kids))
	for _, k := range n.kids {
		if k.named && k.kind != "comment" {
			out = append(out, k)
		}
	}
	return out
}

// walk visits n and its descendants depth first; f returns false to skip
// a node's children.
func (n *tnode) walk(f func(*tnode) bool) {
	stack := []*tnode{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !f(x) {
			continue
		}
		for i := len(x.kids) - 1; i >= 0; i-- {
			stack = append(stack, x.kids[i])
		}
	}
}

// firstError finds the first syntax error node, for the parse finding.
func (n *tnode) firstError() *tnode {
	var found *tnode
	n.walk(func(x *tnode) bool {
		if found != nil {
			return false
		}
		if x.hasError {
			found = x
			return false
		}
		return true
	})
	return found
}

// taint marks where a value came from.
type taint uint8

const (
	// tDecoded: the value passed through a decoder (base64, hex, zlib…).
	tDecoded taint = 1 << iota
	// tNetwork: the value was downloaded.
	tNetwork
	// tSecret: the value holds credential files.
	tSecret
	// tEnviron: the value holds the whole environment.
	tEnviron
	// tToken: the value holds a service's credential file (exfil.go).
	tToken
)

// val is what the analysis knows of an expression's value: its text with
// unknown parts as unknownPart, and where it came from.
type val struct {
	s     string
	known bool
	t     taint
}

// unknownPart stands for the parts of a value static analysis cannot know.
const unknownPart = "\x00"

func unknownVal() val { return val{s: unknownPart} }

func concatVals(vs ...val) val {
	out := val{known: true}
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.s)
		out.known = out.known && v.known
		out.t |= v.t
	}
	out.s = b.String()
	return out
}

// credSubstrings are path fragments of credential stores. An array, not
// a slice: credPath runs on every literal, and a slice would be allocated
// at each call.
func credSubstrings() [41]string {
	return [...]string{".aws/credentials", ".aws/config", ".netrc", ".git-credentials", ".docker/config.json",
		".kube/config", ".npmrc", ".pypirc", ".gnupg", ".password-store", "gh/hosts.yml", ".config/gcloud",
		"application_default_credentials.json", "login.keychain", "/keychains", "/etc/shadow", "/etc/sudoers",
		"wallet.dat", ".bitcoin/", ".ethereum/keystore", "solana/id.json", ".electrum", "/login data",
		"cookies.sqlite", "key4.db", "logins.json", "auth-profiles.json", ".bash_history", ".zsh_history",
		"/local state", ".config/op/", ".azure/", ".terraform.d/credentials",
		// Agents' own secrets: every key the user gave the agent.
		".clawdbot/.env", ".openclaw/.env", ".moltbot/.env", "clawdbot.json", "openclaw.json", "moltbot.json",
		".claude/.credentials.json", ".codex/auth.json"}
}

// credPath reports whether a (partly known) path names credentials or
// keys. Public keys and the SSH known_hosts and config files are not
// secrets; authorized_keys is (writing it is a back door).
func credPath(s string) bool {
	if len(s) < 4 || len(s) > 4096 {
		return false
	}
	// Every fragment below holds a dot, a slash or an underscore (a
	// backslash becomes a slash): most words of code have none.
	if !strings.ContainsAny(s, "./_\\") {
		return false
	}
	l := strings.ToLower(strings.ReplaceAll(s, "\\", "/"))
	for i := 0; ; {
		j := strings.Index(l[i:], ".ssh")
		if j < 0 {
			break
		}
		j += i
		i = j + 4
		if j > 0 && !strings.ContainsRune("/~\x00\"' =:", rune(l[j-1])) {
			continue
		}
		rest := l[j+4:]
		if rest == "" || rest == "/" || rest[0] == '"' || rest[0] == '\'' || rest[0] == '\x00' || rest[0] == ' ' {
			return true
		}
		if rest[0] != '/' {
			continue
		}
		f := strings.TrimLeft(rest[1:], "/")
		if k := strings.IndexAny(f, "\"' "); k >= 0 {
			f = f[:k]
		}
		if f == "known_hosts" || f == "config" || strings.HasSuffix(f, ".pub") || f == "known_hosts.old" {
			continue
		}
		return true
	}
	for _, k := range [...]string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if j := strings.Index(l, k); j >= 0 && (j == 0 || !isWordByte(l[j-1])) && !strings.HasPrefix(l[j+len(k):], ".pub") &&
			(j+len(k) == len(l) || !isWordByte(l[j+len(k)])) {
			return true
		}
	}
	for _, k := range credSubstrings() {
		if strings.Contains(l, k) {
			return true
		}
	}
	return strings.HasSuffix(l, "/cookies")
}

// ambientEnv are environment variables every program reads; reading them
// is not a use of env:read.
func ambientEnv(name string) bool {
	switch name {
	case "HOME", "PATH", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE",
		"TERM", "COLORTERM", "HOSTNAME", "OSTYPE", "SHLVL", "EDITOR", "VISUAL", "PAGER", "TZ", "COLUMNS", "LINES",
		"CI", "DEBUG", "NO_COLOR", "FORCE_COLOR", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMFILES",
		"SYSTEMROOT", "COMSPEC", "NODE_ENV", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH", "PYTHONIOENCODING",
		"UID", "EUID", "PPID", "RANDOM", "LINENO", "SECONDS", "BASH_SOURCE", "BASH_VERSION", "FUNCNAME", "IFS",
		"HOSTTYPE", "MACHTYPE", "BASHPID", "PIPESTATUS", "OPTARG", "OPTIND", "REPLY", "GROUPS", "DISPLAY", "WAYLAND_DISPLAY",
		"SSH_TTY", "TERM_PROGRAM", "ZSH_VERSION", "BASH_REMATCH", "EPOCHSECONDS", "EPOCHREALTIME", "SRANDOM", "HISTFILE":
		return true
	}
	return strings.HasPrefix(name, "LC_") || strings.HasPrefix(name, "XDG_") || strings.HasPrefix(name, "BASH_")
}

// secretEnv reports whether an environment variable's name says it holds
// a secret.
func secretEnv(name string) bool {
	up := strings.ToUpper(name)
	for _, part := range strings.FieldsFunc(up, func(c rune) bool { return c == '_' || c == '-' }) {
		switch part {
		case "KEY", "APIKEY", "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASS", "CREDENTIAL", "CREDENTIALS",
			"PAT", "AUTH", "PRIVATE", "SESSION", "COOKIE", "BEARER", "MNEMONIC", "SEED", "PASSPHRASE":
			return true
		}
	}
	return strings.HasSuffix(up, "APIKEY") || strings.HasSuffix(up, "TOKEN") || strings.HasSuffix(up, "SECRET")
}

// use is one place where code touches a permission domain.
type use struct {
	file      string
	line, col int
	domain    string
	level     string
	// detail is what a scope is checked against: the host for network,
	// the program for shell, the variable for env; "" when unknown.
	detail string
	what   string
}

func (r *run) addUse(file string, line, col int, domain, level, detail, what string) {
	r.uses = append(r.uses, use{file: file, line: line, col: col, domain: domain, level: level, detail: detail, what: what})
}

// envRead records an environment read and flags secret-looking names the
// skill did not declare.
func (r *run) envRead(file string, line, col int, name, what string) {
	if name != "" && ambientEnv(name) {
		return
	}
	r.addUse(file, line, col, "env", "read", name, what)
	if name != "" && secretEnv(name) && !r.envVars[strings.ToUpper(name)] {
		r.add(Finding{Rule: RuleCodeCredEnv, File: file, Line: line, Column: col,
			Message:  "reads " + name + ", which looks like a secret and is not in requirements.env_vars",
			Evidence: what})
	}
}

// hostOf extracts the host of a URL-looking value, "" when unknown.
func hostOf(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return ""
	}
	rest := s[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	if strings.Contains(rest, unknownPart) || rest == "" {
		return ""
	}
	u, err := url.Parse(s[:i+3] + rest)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// blobSuspicious are markers of code, commands or URLs in decoded text.
func blobSuspicious(s string) bool {
	l := strings.ToLower(s)
	for _, k := range []string{"http://", "https://", "import ", "exec(", "eval(", "curl ", "wget ", "/bin/", "subprocess",
		"powershell", "socket", "require(", "child_process", "chmod ", "rm -", "sh -c", "bash", "os.system", "__import__",
		"function(", "=>", "/dev/tcp", "nc -", "base64"} {
		if strings.Contains(l, k) {
			return true
		}
	}
	return false
}

// decodeBlob decodes a long base64 or hex literal (then zlib or gzip if it
// is compressed) and returns the text when it is readable.
func decodeBlob(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 64 || len(s) > 4<<20 {
		return "", false
	}
	var raw []byte
	if isHex(s) && len(s)%2 == 0 {
		b, err := hex.DecodeString(s)
		if err != nil {
			return "", false
		}
		raw = b
	} else if looksEncoded(s) && !strings.ContainsAny(s, " \n\t") {
		b, ok := decodeBase64(s)
		if !ok {
			return "", false
		}
		raw = b
	} else {
		return "", false
	}
	if out, ok := decompress(raw); ok {
		raw = out
	}
	if !printable(raw) {
		return "", false
	}
	return string(raw), true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// decompress inflates zlib or gzip data, bounded to 1 MiB.
func decompress(b []byte) ([]byte, bool) {
	var rd io.Reader
	switch {
	case len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, false
		}
		rd = zr
	case len(b) > 2 && b[0] == 0x78 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0:
		zr, err := zlib.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, false
		}
		rd = zr
	default:
		return nil, false
	}
	out, err := io.ReadAll(io.LimitReader(rd, 1<<20))
	if err != nil && len(out) == 0 {
		return nil, false
	}
	return out, true
}

// checkLiteral looks at one string literal of code: credential paths and
// encoded payloads.
func (r *run) checkLiteral(file string, line, col int, s, raw string) {
	if credPath(s) {
		r.add(Finding{Rule: RuleCodeCredFile, File: file, Line: line, Column: col,
			Message: "refers to a credential or key file", Evidence: raw})
	}
	if len(s) >= 64 {
		if dec, ok := decodeBlob(s); ok && blobSuspicious(dec) {
			r.add(Finding{Rule: RuleCodeEncodedBlob, File: file, Line: line, Column: col,
				Message: "encoded literal decodes to code, commands or URLs", Evidence: "decodes to: " + dec})
		}
	}
}

// sqlWriteRe recognizes SQL that changes a database.
var sqlWriteRe = regexp.MustCompile(`(?i)^\s*(?:insert|update|delete|replace|create|drop|alter|truncate|merge|upsert)\s`)

// programName is the base name of a command, "" when unknown.
func programName(s string) string {
	if s == "" || strings.Contains(s, unknownPart) {
		return ""
	}
	return path.Base(strings.ReplaceAll(s, "\\", "/"))
}
