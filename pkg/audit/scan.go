package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/pkg/audit/internal/treesitter"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/parser"
)

// Limits bound the work an audit does on a directory, so a hostile skill
// cannot make it slow or exhaust memory. What lies beyond a limit is not
// read and is reported as unreadable (review at every tier).
type Limits struct {
	// MaxFiles is the number of files read.
	MaxFiles int
	// MaxFileBytes is the size of the largest file read, under 2 GiB.
	MaxFileBytes int64
	// MaxTotalBytes is the sum of the sizes of the files read.
	MaxTotalBytes int64
	// MaxAnalysisSteps bounds the work of the code analyses per skill
	// (see DefaultAnalysisSteps); 0 means the default.
	MaxAnalysisSteps int64
	// MaxParseSteps bounds the parsing of Python, JavaScript and
	// TypeScript per skill, in steps of 100 parser operations (see
	// DefaultParseSteps); 0 means the default.
	MaxParseSteps int64
}

// DefaultLimits are far above what real skills hold (the largest corpus
// skill has a few hundred files and no file over 256 KiB).
func DefaultLimits() Limits {
	return Limits{MaxFiles: 10000, MaxFileBytes: 4 << 20, MaxTotalBytes: 256 << 20,
		MaxAnalysisSteps: DefaultAnalysisSteps, MaxParseSteps: DefaultParseSteps}
}

// Options configure a Scanner.
type Options struct {
	// Tool names the auditing program and its version ("skillpm 0.4.0"). It
	// is recorded in the report; the library does not know its own version.
	Tool string
	// Limits bound the audit; the zero value means DefaultLimits().
	Limits Limits
	// CacheDir, when not "", keeps each report there under the SHA-256 of
	// the skill's files, the audit's version (RulesDigest), Tool and
	// Limits, so that auditing the same bytes again does not parse them
	// again. A report is only findings: verdicts are judged from it by
	// the caller every time. An entry that is damaged, foreign or does not
	// list the files on disk with their SHA-256 is ignored and replaced.
	CacheDir string
}

// Scanner audits skill directories. It holds the compiled rule tables and
// the parsers, and is safe for concurrent use; build one and reuse it.
type Scanner struct {
	opts  Options
	rules map[string]Rule
	instr []instrRule
	kw    *acMatcher
	langs treeLanguages
	// parsers are tree-sitter instances kept between scans: making one
	// costs more than parsing the code of a typical skill.
	parsers *treesitter.Pool
	// md parses Markdown; goldmark's parser is safe for concurrent use,
	// and building one per file cost more than parsing most files.
	md parser.Parser
	// rulesDigest is RulesDigest(), when reports are cached.
	rulesDigest string
	// urlRe finds URLs whose host decides a vendor from an attacker
	// (origin.go).
	urlRe *regexp.Regexp
	// compiled builds instr, kw, md and urlRe on the first scan (newRun):
	// a process whose every skill is answered from the report cache never
	// pays for them.
	compiled sync.Once
}

// treeLanguages are the tree-sitter grammars; they are immutable.
type treeLanguages struct {
	python, javascript, typescript, tsx treesitter.Language
}

// New builds a Scanner.
func New(opts Options) (*Scanner, error) {
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits()
	}
	if opts.Limits.MaxAnalysisSteps == 0 {
		opts.Limits.MaxAnalysisSteps = DefaultAnalysisSteps
	}
	if opts.Limits.MaxParseSteps == 0 {
		opts.Limits.MaxParseSteps = DefaultParseSteps
	}
	l := opts.Limits
	if l.MaxFiles <= 0 || l.MaxFileBytes <= 0 || l.MaxTotalBytes <= 0 || l.MaxAnalysisSteps < 0 || l.MaxParseSteps < 0 {
		return nil, fmt.Errorf("%w: every limit must be positive (got %+v)", ErrOptions, l)
	}
	if l.MaxFileBytes > math.MaxInt32 {
		// Offsets into a file are kept as int32 (markdown.go).
		return nil, fmt.Errorf("%w: MaxFileBytes %d is over 2 GiB", ErrOptions, l.MaxFileBytes)
	}
	s := &Scanner{opts: opts, rules: make(map[string]Rule)}
	for _, r := range Rules() {
		s.rules[r.ID] = r
	}
	s.langs = newTreeLanguages()
	if opts.CacheDir != "" {
		s.rulesDigest = RulesDigest()
	}
	s.parsers = new(treesitter.Pool)
	// The pooled instances live in the process-wide wasm runtime until
	// closed, so they are closed when the Scanner is collected.
	runtime.AddCleanup(s, func(p *treesitter.Pool) { p.Close() }, s.parsers)
	return s, nil
}

// Scan audits the skill in dir with a Scanner built from opts. Callers that
// audit many skills should build one Scanner and call its Scan method.
func Scan(ctx context.Context, dir string, opts Options) (*Report, error) {
	s, err := New(opts)
	if err != nil {
		return nil, err
	}
	return s.Scan(ctx, dir)
}

// Scan audits the skill in dir without executing anything: SKILL.md and
// every other file below dir (VCS folders excepted, .skillignore not
// honoured: an installed skill holds what it holds). An error means no
// report could be made (dir is not a directory, ctx was cancelled); every
// problem with the skill's content is a finding.
func (s *Scanner) Scan(ctx context.Context, dir string) (*Report, error) {
	return s.scan(ctx, dir, nil)
}

// Prepare starts, in the background, what a Scan of dir will need when
// no cached report answers it: the grammars of its code files and the
// instruction rules. A caller that audits a copy of dir later (install
// audits the bytes it staged from it) calls Prepare as soon as it has the
// directory, so that those compiles overlap its other work instead of
// delaying the first Scan. It decides nothing and returns nothing: the
// Scan reads the bytes it is given, and a directory that changes meanwhile
// costs at most a compile not needed.
func (s *Scanner) Prepare(ctx context.Context, dir string) {
	go func() {
		tree, ok := listTree(ctx, dir)
		if !ok {
			return
		}
		if s.opts.CacheDir != "" {
			if _, err := os.Stat(s.cachePath(s.cacheKey(tree))); err == nil {
				return
			}
		}
		s.prepareParsers(slices.Collect(maps.Keys(tree.sums)), true)
		s.compiled.Do(s.compile)
	}()
}

// scan audits dir; after, when set, reads the run's state before the
// report is made (Suggest).
func (s *Scanner) scan(ctx context.Context, dir string, after func(*run)) (*Report, error) {
	st, err := os.Stat(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("audit %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("audit %s: %w", dir, ErrNotDir)
	}
	// Suggest (after) reads the run's state, which a cached report does
	// not keep: it always scans.
	if s.opts.CacheDir != "" && after == nil {
		return s.scanCached(ctx, dir, func() (*Report, error) { return s.scanDir(ctx, dir, nil) })
	}
	return s.scanDir(ctx, dir, after)
}

// scanDir audits the directory dir (scan has checked it is one).
func (s *Scanner) scanDir(ctx context.Context, dir string, after func(*run)) (*Report, error) {
	r := newRun(ctx, s, dir)
	defer r.close()
	r.loadSkill()
	if err := r.walk(); err != nil {
		return nil, err
	}
	r.checkRequirements()
	r.checkImports()
	r.diffPermissions()
	r.budgetFinding()
	if after != nil {
		after(r)
	}
	return r.report(), nil
}

// run is the state of one audit.
type run struct {
	ctx context.Context
	s   *Scanner
	dir string

	sk         *skill.Skill
	skillFile  string // path of SKILL.md relative to dir, "" when none
	permsKnown bool
	declared   []skill.Permission
	envVars    map[string]bool

	files    []FileEntry
	findings []Finding
	seen     map[string]int
	uses     []use
	imports  []importRef
	// manifests are the dependency files found: requirements*.txt and
	// package.json, with the names they declare.
	pyDeclared map[string]bool
	jsDeclared map[string]bool
	localPy    map[string]bool
	// paths holds every file path of the skill, to find lock files.
	paths map[string]bool

	parser *treesitter.Parser

	// stepsLeft is the analysis budget (budget.go); budgetOut is set when
	// it ran out, in budgetFile. parseLeft is the parse budget.
	stepsLeft  int64
	parseLeft  int64
	budgetOut  bool
	budgetFile string

	// lineMap maps the lines of a large file's squeezed text (encoding.go)
	// to its own lines while lineMapFile is audited.
	lineMap     []int
	lineMapFile string
	// fenceFile is set while the code blocks of a Markdown file are
	// analysed (fence.go).
	fenceFile string
	// fenceCode is the code block being analysed: a finding about fetched
	// code whose evidence holds no URL (node -e "$CODE") is judged by the
	// URLs of its block (origin.go).
	fenceCode string
	// fenceDescribed is set while that block sits in a section that
	// describes attacks (role.go).
	fenceDescribed bool
	// examples are the lines (file, line) of code blocks and quotations in
	// sections that describe attacks (role.go).
	examples map[exampleLine]bool
}

// compile builds what a scan needs beyond the Scanner's options, once.
func (s *Scanner) compile() {
	s.instr, s.kw = compileInstrRules()
	s.md = goldmark.New().Parser()
	s.urlRe = newURLRe()
}

func newRun(ctx context.Context, s *Scanner, dir string) *run {
	s.compiled.Do(s.compile)
	return &run{
		ctx: ctx, s: s, dir: dir,
		envVars:    map[string]bool{},
		seen:       map[string]int{},
		pyDeclared: map[string]bool{},
		jsDeclared: map[string]bool{},
		localPy:    map[string]bool{},
		paths:      map[string]bool{},
		stepsLeft:  s.opts.Limits.MaxAnalysisSteps,
		parseLeft:  s.opts.Limits.MaxParseSteps,
	}
}

func (r *run) close() {
	r.s.parsers.Put(r.parser)
	r.parser = nil
}

// treeParser returns the run's tree-sitter parser, taken from the
// Scanner's pool on first use.
func (r *run) treeParser() *treesitter.Parser {
	if r.parser == nil {
		r.parser = r.s.parsers.Get()
	}
	return r.parser
}

// add records a finding, filling severity, hint and the unreadable mark
// from the rule table, and dropping exact repeats.
func (r *run) add(f Finding) {
	fenced := r.fenceFile != "" && f.File == r.fenceFile
	if fenced && !fenceFinding(&f) {
		return
	}
	rule, ok := r.s.rules[f.Rule]
	if !ok {
		panic("audit: unknown rule " + f.Rule) // a programming error, caught by tests
	}
	if f.Severity == 0 {
		f.Severity = rule.Severity
	}
	if fenced && r.fenceDescribed && !f.Downgraded {
		// A code block in a section that describes attacks: an example
		// shown in a code block, two signs that it is not a step
		// (role.go).
		f.Severity = f.Severity.lower().lower()
		f.Downgraded = true
		f.Context = ctxDescribed
		f.Message += " (" + contextWords(ctxDescribed) + ")"
	}
	r.weighDoc(&f, rule)
	r.judgeFetched(&f)
	if f.Hint == "" {
		f.Hint = rule.Hint
	}
	f.Unreadable = rule.Unreadable
	if r.lineMap != nil && f.File == r.lineMapFile && f.Line > 0 && f.Line <= len(r.lineMap) {
		f.Line, f.Column = r.lineMap[f.Line-1], 0
	}
	f.Evidence = clip(escapeText(f.Evidence), maxEvidence)
	f.Message = escapeText(f.Message)
	// One finding per rule and line: a line that breaks a rule twice is
	// one thing to fix. Findings without a line keep their message apart.
	key := f.Rule + "\x00" + f.File + "\x00" + strconv.Itoa(f.Line)
	if f.Line == 0 {
		key += "\x00" + f.Message
	}
	if i, ok := r.seen[key]; ok {
		if f.Severity > r.findings[i].Severity {
			r.findings[i] = f
		}
		return
	}
	r.seen[key] = len(r.findings)
	r.findings = append(r.findings, f)
}

// loadSkill reads SKILL.md leniently for what the audit compares against:
// declared permissions, requirements and the claimed tier.
func (r *run) loadSkill() {
	for _, name := range []string{skill.SkillFile, "skill.md"} {
		if st, err := os.Lstat(filepath.Join(r.dir, name)); err == nil && st.Mode().IsRegular() {
			r.skillFile = name
			break
		}
	}
	sk, ds := skill.Load(r.ctx, r.dir, skill.Options{Mode: skill.Lenient})
	if sk == nil {
		msg := "SKILL.md could not be read"
		line := 0
		for _, d := range ds.Errors() {
			msg = "SKILL.md could not be read: " + d.Message
			line = d.Line
			break
		}
		file := r.skillFile
		if file == "" {
			file = skill.SkillFile
		}
		r.add(Finding{Rule: RuleSkillUnreadable, File: file, Line: line,
			Message: msg + "; declared permissions are unknown, so every use the code makes is reported"})
		return
	}
	r.sk = sk
	r.permsKnown = true
	r.declared = sk.Gaia.Permissions
	for _, d := range ds {
		if d.Code == skill.CodePermissionInvalid {
			r.permsKnown = false
			r.add(Finding{Rule: RuleSkillUnreadable, File: r.skillFile, Line: d.Line, Column: d.Column,
				Message: "a declared permission is unreadable: " + d.Message})
		}
	}
	for _, v := range sk.Gaia.Requirements.EnvVars {
		r.envVars[strings.ToUpper(v)] = true
	}
	for _, dep := range sk.Gaia.Requirements.Dependencies {
		if n := pyRequirementName(dep); n != "" {
			r.pyDeclared[normalizePkg(n)] = true
		}
	}
	for _, dep := range sk.Gaia.Requirements.NodeDependencies {
		if n, _ := splitNodeDep(dep); n != "" {
			r.jsDeclared[n] = true
		}
	}
}

// fileKind is how a file is audited.
type fileKind int

const (
	kindData fileKind = iota
	kindSkill
	kindMarkdown
	kindText
	kindPython
	kindShell
	kindMake
	kindJS
	kindTS
	kindTSX
	kindPackageJSON
	kindRequirements
	kindPyproject
	kindUnsupported
	kindBinary
	kindLicense
)

// String names the kind as the report's file list does.
func (k fileKind) String() string {
	switch k {
	case kindSkill, kindMarkdown, kindText:
		return "instructions"
	case kindPython:
		return "python"
	case kindShell:
		return "shell"
	case kindMake:
		return "make"
	case kindJS:
		return "javascript"
	case kindTS, kindTSX:
		return "typescript"
	case kindPackageJSON, kindRequirements, kindPyproject:
		return "manifest"
	case kindUnsupported:
		return "unsupported"
	case kindBinary:
		return "binary"
	}
	return "data"
}

// unsupportedLang names script languages skills ship that the audit does
// not parse: they cannot pass unseen, so they are unreadable (review).
func unsupportedLang(ext string) string {
	switch ext {
	case ".rb":
		return "Ruby"
	case ".pl", ".pm":
		return "Perl"
	case ".php":
		return "PHP"
	case ".lua":
		return "Lua"
	case ".ps1", ".psm1":
		return "PowerShell"
	case ".bat", ".cmd":
		return "batch"
	case ".vbs":
		return "VBScript"
	case ".applescript", ".scpt":
		return "AppleScript"
	case ".fish":
		return "fish"
	case ".tcl":
		return "Tcl"
	case ".r":
		return "R"
	case ".jl":
		return "Julia"
	case ".go":
		return "Go"
	case ".swift":
		return "Swift"
	case ".awk":
		return "awk"
	case ".groovy":
		return "Groovy"
	case ".kts":
		return "Kotlin script"
	}
	return ""
}

// binaryExt reports compiled code formats.
func binaryExt(ext string) bool {
	switch ext {
	case ".exe", ".dll", ".so", ".dylib", ".pyc", ".pyo", ".class", ".jar", ".wasm", ".node", ".bin", ".elf":
		return true
	}
	return false
}

// classify decides how to read a file from its name and first bytes.
func classify(rel string, head []byte) (fileKind, string) {
	base := path.Base(rel)
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	if isExecutableMagic(head) || binaryExt(ext) {
		return kindBinary, ""
	}
	if !strings.Contains(rel, "/") && lower == "skill.md" {
		return kindSkill, ""
	}
	switch {
	case lower == "package.json":
		return kindPackageJSON, ""
	case strings.HasPrefix(lower, "requirements") && ext == ".txt":
		return kindRequirements, ""
	case lower == "pyproject.toml":
		return kindPyproject, ""
	case lower == "makefile" || lower == "gnumakefile" || ext == ".mk" || lower == "justfile" || lower == ".justfile":
		return kindMake, lower
	case strings.HasPrefix(lower, "license") || strings.HasPrefix(lower, "licence") ||
		strings.HasPrefix(lower, "copying") || strings.HasPrefix(lower, "notice"):
		return kindLicense, ""
	}
	switch ext {
	case ".md", ".markdown", ".mdx", ".mdown", ".mkd":
		return kindMarkdown, ""
	case ".txt", ".rst", ".text", ".prompt":
		return kindText, ""
	case ".py", ".pyw", ".pyi":
		return kindPython, ""
	case ".sh", ".bash", ".zsh", ".ksh", ".bats", ".command":
		return kindShell, ext
	case ".js", ".mjs", ".cjs", ".jsx":
		return kindJS, ""
	case ".ts", ".mts", ".cts":
		return kindTS, ""
	case ".tsx":
		return kindTSX, ""
	}
	if lang := unsupportedLang(ext); lang != "" {
		return kindUnsupported, lang
	}
	if bytes.HasPrefix(head, []byte("#!")) {
		return classifyShebang(head)
	}
	return kindData, ""
}

// classifyShebang reads "#!/usr/bin/env python3" and the like.
func classifyShebang(head []byte) (fileKind, string) {
	line := string(head)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return kindUnsupported, "unknown interpreter"
	}
	interp := path.Base(fields[0])
	for i := 1; interp == "env" && i < len(fields); i++ {
		if !strings.HasPrefix(fields[i], "-") {
			interp = path.Base(fields[i])
		}
	}
	switch {
	case strings.HasPrefix(interp, "python"), interp == "pypy", interp == "pypy3", interp == "uv":
		return kindPython, ""
	case interp == "sh" || interp == "bash" || interp == "dash" || interp == "ksh" || interp == "mksh":
		return kindShell, interp
	case interp == "zsh":
		return kindShell, "zsh"
	case interp == "node" || interp == "nodejs" || interp == "bun":
		return kindJS, ""
	case interp == "deno" || interp == "ts-node" || interp == "tsx":
		return kindTS, ""
	}
	return kindUnsupported, interp
}

// isExecutableMagic recognizes ELF, Mach-O, PE and WebAssembly binaries.
func isExecutableMagic(b []byte) bool {
	switch {
	case bytes.HasPrefix(b, []byte("\x7fELF")),
		bytes.HasPrefix(b, []byte{0xfe, 0xed, 0xfa, 0xce}), bytes.HasPrefix(b, []byte{0xfe, 0xed, 0xfa, 0xcf}),
		bytes.HasPrefix(b, []byte{0xce, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(b, []byte{0xcf, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(b, []byte{0xca, 0xfe, 0xba, 0xbe}),
		bytes.HasPrefix(b, []byte("\x00asm")):
		return true
	case len(b) > 0x40 && b[0] == 'M' && b[1] == 'Z':
		return true
	}
	return false
}

// isText reports whether content looks like text: no NUL in its first 8 KiB.
func isText(b []byte) bool {
	if len(b) > 8192 {
		b = b[:8192]
	}
	return bytes.IndexByte(b, 0) < 0
}

// walk reads every file below the skill directory and audits it.
func (r *run) walk() error {
	lim := r.s.opts.Limits
	var total int64
	nfiles := 0
	var entries []string
	err := filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if cerr := r.ctx.Err(); cerr != nil {
			return cerr
		}
		rel, _ := filepath.Rel(r.dir, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			if rel != "." {
				r.add(Finding{Rule: RuleFileUnreadable, File: rel, Message: "could not be read: " + errText(err)})
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".hg", ".svn":
				if rel != "." {
					return fs.SkipDir
				}
			}
			return nil
		}
		if d.Name() == ".git" {
			return nil // a worktree or submodule pointer
		}
		entries = append(entries, rel)
		return nil
	})
	if err != nil {
		return fmt.Errorf("audit %s: %w", r.dir, err)
	}
	sort.Strings(entries)
	// Local module names first: an import of a module the skill ships is
	// not an undeclared dependency.
	for _, rel := range entries {
		r.paths[rel] = true
		r.noteLocalModule(rel)
	}
	r.s.prepareParsers(entries, false)
	for _, rel := range entries {
		if err := r.ctx.Err(); err != nil {
			return fmt.Errorf("audit %s: %w", r.dir, err)
		}
		p := filepath.Join(r.dir, filepath.FromSlash(rel))
		st, err := os.Lstat(p)
		if err != nil {
			r.add(Finding{Rule: RuleFileUnreadable, File: rel, Message: "could not be read: " + errText(err)})
			continue
		}
		if !st.Mode().IsRegular() {
			what := "a special file"
			if st.Mode()&fs.ModeSymlink != 0 {
				what = "a symbolic link"
			}
			r.files = append(r.files, FileEntry{Path: rel, Kind: "skipped"})
			r.add(Finding{Rule: RuleFileUnreadable, File: rel, Message: "is " + what + ", which the audit does not follow"})
			continue
		}
		nfiles++
		if nfiles > lim.MaxFiles {
			r.add(Finding{Rule: RuleFileUnreadable, File: rel,
				Message: fmt.Sprintf("the skill has more than %d files; this one and the rest were not audited", lim.MaxFiles)})
			break
		}
		if st.Size() > lim.MaxFileBytes && total+lim.MaxFileBytes <= lim.MaxTotalBytes {
			total += lim.MaxFileBytes
			r.auditLarge(rel, p, st.Size())
			continue
		}
		if st.Size() > lim.MaxFileBytes || total+st.Size() > lim.MaxTotalBytes {
			r.files = append(r.files, FileEntry{Path: rel, Kind: "skipped"})
			r.add(Finding{Rule: RuleFileUnreadable, File: rel,
				Message: fmt.Sprintf("is %d bytes, over the audit's limit; it was not audited", st.Size())})
			continue
		}
		data, err := readBounded(p, lim.MaxFileBytes)
		if err != nil {
			r.files = append(r.files, FileEntry{Path: rel, Kind: "skipped"})
			r.add(Finding{Rule: RuleFileUnreadable, File: rel, Message: "could not be read: " + errText(err)})
			continue
		}
		total += int64(len(data))
		r.auditFile(rel, data)
	}
	return nil
}

// noteLocalModule records module names a skill ships, for import checks.
func (r *run) noteLocalModule(rel string) {
	base := path.Base(rel)
	dir := path.Dir(rel)
	switch path.Ext(base) {
	case ".py":
		r.localPy[strings.TrimSuffix(base, ".py")] = true
		if base == "__init__.py" && dir != "." {
			r.localPy[path.Base(dir)] = true
		}
	}
	// Every directory on the way is a possible Python package or namespace.
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		r.localPy[path.Base(d)] = true
	}
}

// readBounded reads at most limit bytes of a file.
func readBounded(p string, limit int64) ([]byte, error) {
	data, err := boundedfile.Read(p, limit)
	if _, ok := errors.AsType[*boundedfile.TooLargeError](err); ok {
		return nil, fmt.Errorf("grew past %d bytes while being read", limit)
	}
	return data, err
}

// errText is an error without the absolute path the OS put in it, so the
// report does not depend on where the skill was unpacked.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// auditFile dispatches one file to the checks for its kind.
func (r *run) auditFile(rel string, data []byte) {
	sum := sha256.Sum256(data)
	r.auditContent(rel, data, hex.EncodeToString(sum[:]))
}

// isCode reports the kinds the code analyses read.
func (k fileKind) isCode() bool {
	return k == kindPython || k == kindShell || k == kindMake || k == kindJS || k == kindTS || k == kindTSX
}

// auditContent audits a file's content; sum is the hash of its bytes.
func (r *run) auditContent(rel string, data []byte, sum string) {
	if !r.budgetOut {
		r.budgetFile = rel
	}
	kind, detail := classify(rel, data)
	if kind != kindBinary && !isText(data) {
		// UTF-16 and UTF-32 are decoded and read as what they say.
		if k, bom := detectUTF(data); k != utf8Form {
			data = decodeUTF(data, k, bom)
			kind, detail = classify(rel, data)
			r.add(Finding{Rule: RuleFileUnreadable, File: rel,
				Message: "is " + k.String() + " text; it was decoded and audited, but tools may show it differently than a model reads it"})
		}
	}
	r.files = append(r.files, FileEntry{Path: rel, SHA256: sum, Kind: kind.String()})
	if kind == kindBinary {
		r.add(Finding{Rule: RuleCodeBinary, File: rel,
			Message: "is a compiled executable or bytecode; its behaviour cannot be audited, which blocks at community and verified"})
		return
	}
	instructions := kind == kindSkill || kind == kindMarkdown || kind == kindText
	code := kind.isCode()
	if !isText(data) || bytes.IndexByte(data, 0) >= 0 {
		if kind == kindData || kind == kindLicense || kind == kindUnsupported {
			return
		}
		// NUL bytes do not stop an interpreter or a model: read around them.
		r.add(Finding{Rule: RuleFileUnreadable, File: rel, Line: firstNULLine(data),
			Message: "holds NUL bytes where text was expected; it was audited without them"})
		data = bytes.ReplaceAll(data, []byte{0}, nil)
	}
	if (instructions || code) && !utf8.Valid(data) {
		r.add(Finding{Rule: RuleFileUnreadable, File: rel, Line: firstInvalidUTF8Line(data),
			Message: "is not valid UTF-8; tools may show it differently than a model reads it"})
		r.scanUnicode(rel, data, instructions)
		data = readableText(data)
	} else {
		r.scanUnicode(rel, data, instructions)
	}
	switch kind {
	case kindSkill:
		r.scanSkillFile(rel, data)
	case kindMarkdown:
		r.scanMarkdown(rel, data, 1)
	case kindText:
		r.scanPlainText(rel, data, 1)
	case kindPython:
		r.analyzePython(rel, data)
	case kindShell:
		r.analyzeShellFile(rel, data, detail)
	case kindMake:
		// A build file's recipes are shell that "run make" executes.
		r.analyzeShellFile(rel, recipes(data, detail), "")
	case kindJS, kindTS, kindTSX:
		r.analyzeJS(rel, data, kind)
	case kindPackageJSON:
		r.checkPackageJSON(rel, data)
	case kindRequirements:
		r.checkRequirementsFile(rel, data)
	case kindPyproject:
		r.checkPyproject(rel, data)
	case kindUnsupported:
		r.add(Finding{Rule: RuleCodeUnsupported, File: rel,
			Message: detail + " code is not read by the audit; it needs a review by hand"})
	}
}

// recipes keeps the recipe lines of a Makefile (tab-indented) or a
// justfile (indented), as shell on their own lines, and blanks the rest
// (rules, variables, directives), so findings keep the file's lines.
// Recipe prefixes (@, -, +) go and make's $$ is the shell's $.
func recipes(data []byte, name string) []byte {
	lines := strings.Split(string(data), "\n")
	just := strings.Contains(name, "justfile")
	for i, l := range lines {
		var body string
		switch {
		case strings.HasPrefix(l, "\t"):
			body = l[1:]
		case just && strings.HasPrefix(l, " "):
			body = strings.TrimLeft(l, " ")
		default:
			lines[i] = ""
			continue
		}
		body = strings.TrimLeft(body, "@-+ \t")
		lines[i] = strings.ReplaceAll(body, "$$", "$")
	}
	return []byte(strings.Join(lines, "\n"))
}

// firstNULLine is the line of the first NUL byte.
func firstNULLine(b []byte) int {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return 1 + bytes.Count(b[:i], []byte{'\n'})
	}
	return 0
}

// firstInvalidUTF8Line is the line of the first byte that is not UTF-8.
func firstInvalidUTF8Line(b []byte) int {
	line := 1
	for i := 0; i < len(b); {
		c, size := utf8.DecodeRune(b[i:])
		if c == utf8.RuneError && size == 1 {
			return line
		}
		if c == '\n' {
			line++
		}
		i += size
	}
	return line
}

// report assembles the sorted report.
func (r *run) report() *Report {
	r.weighExamples()
	rep := &Report{
		Schema:      ReportSchema,
		Tool:        r.s.opts.Tool,
		Tier:        skill.TierExperimental,
		Permissions: []string{},
		Files:       r.files,
		Findings:    r.findings,
	}
	if r.sk != nil {
		rep.Skill = r.sk.Name
		rep.Version = r.sk.Version
		rep.Tier = string(r.sk.Tier())
		rep.Permissions = append(rep.Permissions, r.sk.PermissionStrings()...)
	}
	if rep.Files == nil {
		rep.Files = []FileEntry{}
	}
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	sort.Slice(rep.Files, func(i, j int) bool { return rep.Files[i].Path < rep.Files[j].Path })
	sortFindings(rep.Findings)
	return rep
}
