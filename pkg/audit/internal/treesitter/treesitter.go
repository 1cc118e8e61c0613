// Package treesitter parses Python, JavaScript, TypeScript and TSX with
// tree-sitter, without cgo: tree-sitter's C runtime and each grammar are
// compiled to one WebAssembly module per grammar (treesitter-LANG.wasm,
// built by scripts/treesitter-wasm/build.sh) that wazero runs in pure Go.
// A grammar's module is compiled on the first parse of its language in the
// process (or when Prepare asks for it), so a process compiles only the
// grammars of the files it parses, and programs that never parse pay for
// none. The compiled code is kept in a cache across processes, and on
// linux/amd64 the binary carries it for a cache that does not hold it yet
// (precompiled.go).
//
// A parse is one call into the module, which returns the whole syntax tree
// as a flat preorder array; Parse turns it into a Tree of plain structs.
package treesitter

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed" // the module
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// The modules, one per grammar (see build.sh).
var (
	//go:embed treesitter-python.wasm
	pythonModule []byte
	//go:embed treesitter-javascript.wasm
	javascriptModule []byte
	//go:embed treesitter-typescript.wasm
	typescriptModule []byte
	//go:embed treesitter-tsx.wasm
	tsxModule []byte
)

// moduleSums are the SHA-256 of every grammar's module, hashed once per
// process: the compilation cache's directory, the precompiled index and
// the audit's version (ModuleSHA256) all name a module by it.
var moduleSums = sync.OnceValue(func() (sums [numLanguages][sha256.Size]byte) {
	for l := range numLanguages {
		sums[l] = sha256.Sum256(module(l))
	}
	return sums
})

// moduleSum returns the SHA-256 of grammar l's module.
func moduleSum(l Language) [sha256.Size]byte { return moduleSums()[l] }

// module returns the WebAssembly module of a grammar.
func module(l Language) []byte {
	switch l {
	case Python:
		return pythonModule
	case JavaScript:
		return javascriptModule
	case TypeScript:
		return typescriptModule
	case TSX:
		return tsxModule
	}
	return nil
}

// moduleFiles are the modules' file names, as treesitter.wasm.sha256
// lists them.
var moduleFiles = [numLanguages]string{
	Python:     "treesitter-python.wasm",
	JavaScript: "treesitter-javascript.wasm",
	TypeScript: "treesitter-typescript.wasm",
	TSX:        "treesitter-tsx.wasm",
}

// Language is a grammar in the module.
type Language uint32

// The grammars, numbered as shim.c numbers them.
const (
	Python Language = iota
	JavaScript
	TypeScript
	TSX
	numLanguages
)

// MemoryLimit bounds the memory of one parser instance, in bytes: a parse
// that needs more (a pathological input) fails with ErrParse instead of
// growing without end. Files of a few MiB need well under a tenth of it.
const MemoryLimit = 1 << 30

// CacheDirEnv names the environment variable that, when set, is the
// directory where wazero keeps the module's compiled code between
// processes (compiling takes about a second, ten times that under the race
// detector); unset, it is "wazero" in skillpm's cache directory
// ($SKILLPM_CACHE, else $XDG_CACHE_HOME/skillpm). The cache holds native
// code that is run as the parser: a directory others can write to is not
// used, and each entry is checked against the SHA-256 recorded when it was
// written before it is loaded.
const CacheDirEnv = "SKILLPM_TREESITTER_CACHE"

// keepMemory is the memory an idle Parser may hold on to; a parse that grew
// the instance past it drops the instance, since wasm memory never shrinks.
const keepMemory = 64 << 20

// Node is one syntax node.
type Node struct {
	Kind  string // the node type ("call", "ERROR", "(")
	Field string // the field name under the parent, "" when none
	// Start and End are byte offsets into the source.
	Start, End int
	// Row and Column are the 0-based start position, Column in bytes.
	Row, Column int
	// Parent is the index of the parent in Tree.Nodes, -1 for the root.
	Parent int
	// Named is false for anonymous nodes (punctuation, keywords).
	Named bool
	// Error marks an ERROR node, Missing a token tree-sitter inserted to
	// recover from a syntax error.
	Error, Missing bool
}

// Tree is a parsed source: Nodes in preorder, the root first.
type Tree struct {
	Nodes []Node
	// HasError says whether tree-sitter had to recover from a syntax error.
	HasError bool
}

// engine is one grammar's compiled module and its name tables. It is built
// once per process and never changed after.
type engine struct {
	lang          Language
	rt            wazero.Runtime
	compiled      wazero.CompiledModule
	kinds, fields []string
}

// engines compile each grammar's module on first use; the result,
// including a failure, is kept for the life of the process.
var engines [numLanguages]loader

// loader is one grammar's engine, built once.
type loader struct {
	once sync.Once
	e    *engine
	err  error
}

// engineFor returns grammar l's engine, compiling it on the first call
// with workers compile goroutines (0: one per core).
func engineFor(l Language, workers int) (*engine, error) {
	ld := &engines[l]
	ld.once.Do(func() {
		ctx := context.WithValue(context.Background(), workersKey{}, workers)
		ld.e, ld.err = newCachedEngine(ctx, l, compileCacheDir(l))
	})
	return ld.e, ld.err
}

// workersKey carries engineFor's worker count to newEngine.
type workersKey struct{}

// Prepare starts compiling the grammar of lang in the background, so that
// a caller that knows it will parse that language (it has seen a file of
// it) overlaps the compile with other work; the first parse then waits for
// what is left of it. It does nothing for a grammar already compiled or
// compiling, or an unknown language.
func Prepare(lang Language) {
	if lang < numLanguages {
		go engineFor(lang, 0) //nolint:errcheck // the parse that needs it gets the error
	}
}

// PrepareAhead is Prepare for a caller with work of its own for the
// other cores until it parses (an install building and staging the skill
// it will audit): a compile it starts runs on one goroutine, which
// measured cheaper than one per core, and no slower to the first parse,
// when the cores are busy anyway.
func PrepareAhead(lang Language) {
	if lang < numLanguages {
		go engineFor(lang, 1) //nolint:errcheck // the parse that needs it gets the error
	}
}

// errorSymbol and errorRepeatSymbol are tree-sitter's built-in symbols
// outside the grammar's table.
const (
	errorSymbol       = 0xffff
	errorRepeatSymbol = 0xfffe
)

// newCachedEngine builds the engine with its compiled code kept in
// cacheDir ("" for none). Entries that do not match their recorded
// SHA-256 are dropped first; when wazero still cannot load what is left
// (an entry from a wazero that wrote the same format differently), the
// directory is emptied and the module compiled afresh: a cache can cost
// a compile, never a parser.
func newCachedEngine(ctx context.Context, l Language, cacheDir string) (*engine, error) {
	if cacheDir == "" {
		return newEngine(ctx, l, "")
	}
	seedCompileCache(precompiled(), cacheDir, l)
	good := checkCompileCache(cacheDir)
	e, err := newEngine(ctx, l, cacheDir)
	if err != nil {
		good = nil
		os.RemoveAll(cacheDir)
		if !usableCacheDir(cacheDir) {
			return newEngine(ctx, l, "")
		}
		if e, err = newEngine(ctx, l, cacheDir); err != nil {
			return nil, err
		}
	}
	sealCompileCache(cacheDir, good)
	return e, nil
}

// newEngine compiles the module of grammar l, through wazero's compilation
// cache in cacheDir when it is not "".
func newEngine(ctx context.Context, l Language, cacheDir string) (*engine, error) {
	cfg := wazero.NewRuntimeConfig().WithMemoryLimitPages(MemoryLimit / 65536)
	if cacheDir != "" {
		// A cache that cannot be opened only costs the compile time.
		if cache, err := wazero.NewCompilationCacheWithDir(cacheDir); err == nil {
			cfg = cfg.WithCompilationCache(cache)
		}
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	fail := func(err error) (*engine, error) {
		rt.Close(ctx)
		return nil, fmt.Errorf("%w: %w", ErrModule, err)
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return fail(err)
	}
	_, err := rt.NewHostModuleBuilder("skillpm").
		NewFunctionBuilder().
		WithGoFunction(api.GoFunc(cancelled), nil, []api.ValueType{api.ValueTypeI32}).
		Export("cancelled").
		Instantiate(ctx)
	if err != nil {
		return fail(err)
	}
	// The module's functions compile independently: on every core, so
	// that a cold cache costs a fraction of the wall time, unless the
	// caller asked for fewer (PrepareAhead).
	workers, _ := ctx.Value(workersKey{}).(int)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	compiled, err := rt.CompileModule(experimental.WithCompilationWorkers(ctx, workers), module(l))
	if err != nil {
		return fail(err)
	}
	e := &engine{lang: l, rt: rt, compiled: compiled}
	mod, err := e.instantiate(ctx)
	if err != nil {
		return fail(err)
	}
	defer mod.Close(ctx)
	if e.kinds, err = names(ctx, mod, "sk_symbol_count", "sk_symbol_name", l, 0); err != nil {
		return fail(err)
	}
	if e.fields, err = names(ctx, mod, "sk_field_count", "sk_field_name", l, 1); err != nil {
		return fail(err)
	}
	if len(e.kinds) == 0 {
		return fail(fmt.Errorf("%s holds no grammar %d", moduleFiles[l], l))
	}
	return e, nil
}

// cancelled is the module's import skillpm.cancelled: tree-sitter asks it
// every StepOperations operations whether to stop. Each call spends one
// step of the parse's budget, when it has one (see ParseBudget).
func cancelled(ctx context.Context, stack []uint64) {
	stack[0] = 0
	if ctx.Err() != nil {
		stack[0] = 1
		return
	}
	if b, ok := ctx.Value(budgetKey{}).(*budget); ok {
		if b.left <= 0 {
			b.out = true
			stack[0] = 1
			return
		}
		b.left--
	}
}

// StepOperations is the number of tree-sitter parser operations (a token
// shifted, a rule reduced, a repetition balanced) in one step of a parse
// budget: tree-sitter checks for cancellation that often.
const StepOperations = 100

// budget is the steps a parse may still spend; it travels to cancelled in
// the context of the call into the module.
type budget struct {
	left int64
	out  bool
}

type budgetKey struct{}

func (e *engine) instantiate(ctx context.Context) (api.Module, error) {
	// Anonymous, so that many instances may live in one runtime; the
	// module is a reactor, initialised by _initialize. Its memory grows
	// geometrically (see growingMemory).
	ctx = experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(newGrowingMemory))
	return e.rt.InstantiateModule(ctx, e.compiled,
		wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
}

// growingMemory backs an instance's linear memory with a buffer whose
// capacity at least doubles when it must move. wazero's default grows the
// buffer by what the module asks for, and the C allocator asks for a few
// pages at a time, so a parse that builds a large tree copied its whole
// memory over and over (a quarter of the time of a 2 MB parse).
type growingMemory struct {
	buf []byte
	max uint64
}

func newGrowingMemory(capacity, max uint64) experimental.LinearMemory {
	return &growingMemory{buf: make([]byte, 0, capacity), max: max}
}

// Reallocate implements experimental.LinearMemory. The bytes between the
// length and the capacity were never written, so they are still zero, as
// grown wasm memory must be.
func (m *growingMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	c := min(max(size, 2*uint64(cap(m.buf))), m.max)
	buf := make([]byte, size, c)
	copy(buf, m.buf)
	m.buf = buf
	return buf
}

// Free implements experimental.LinearMemory.
func (m *growingMemory) Free() { m.buf = nil }

// names reads a name table of the module: names[i] for i from first to
// the count the module reports (field ids start at 1; 0 is "no field").
func names(ctx context.Context, mod api.Module, countFn, nameFn string, l Language, first uint64) ([]string, error) {
	res, err := mod.ExportedFunction(countFn).Call(ctx, uint64(l))
	if err != nil {
		return nil, err
	}
	n := res[0]
	out := make([]string, n+first)
	for i := first; i < n+first; i++ {
		res, err := mod.ExportedFunction(nameFn).Call(ctx, uint64(l), i)
		if err != nil {
			return nil, err
		}
		s, ok := cString(mod.Memory(), uint32(res[0]))
		if !ok {
			return nil, fmt.Errorf("%s(%d, %d) points outside memory", nameFn, l, i)
		}
		out[i] = s
	}
	return out, nil
}

func cString(mem api.Memory, ptr uint32) (string, bool) {
	if ptr == 0 {
		return "", true
	}
	var b []byte
	for p := ptr; ; p++ {
		c, ok := mem.ReadByte(p)
		if !ok {
			return "", false
		}
		if c == 0 {
			return string(b), true
		}
		b = append(b, c)
	}
}

// Parser parses sources with one instance of each grammar's module, made
// on the first parse of that language. A Parser is not safe for
// concurrent use; make one per goroutine. The zero value is ready to use.
type Parser struct {
	inst [numLanguages]instance
}

// instance is one instance of a grammar's module.
type instance struct {
	e   *engine
	mod api.Module
	// The exports a parse calls, looked up once per instance: each lookup
	// makes a new call engine with its own stack.
	malloc, free, parse api.Function
}

func (in *instance) close() error {
	if in.mod == nil {
		return nil
	}
	err := in.mod.Close(context.Background())
	in.mod, in.malloc, in.free, in.parse = nil, nil, nil, nil
	return err
}

// Close releases the parser's instances.
func (p *Parser) Close() error {
	var errs []error
	for l := range p.inst {
		if err := p.inst[l].close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Parse parses src in language lang. Like tree-sitter, it recovers from
// syntax errors (Tree.HasError says it had to). maxNodes bounds the tree:
// past it Parse stops descending into children. It fails with ErrParse
// when ctx is done during the parse or the parse needs more than
// MemoryLimit; the Parser stays usable.
func (p *Parser) Parse(ctx context.Context, lang Language, src []byte, maxNodes int) (*Tree, error) {
	return p.ParseBudget(ctx, lang, src, maxNodes, nil)
}

// ParseBudget is Parse with a budget of work: when steps is not nil, the
// parse spends one of *steps per StepOperations tree-sitter operations,
// and fails with ErrBudget (and ErrParse) when it would go below zero.
// What a parse spends depends only on the source and the grammar, so the
// outcome is the same on every machine, unlike a time limit. *steps is
// left at what remains.
func (p *Parser) ParseBudget(ctx context.Context, lang Language, src []byte, maxNodes int, steps *int64) (*Tree, error) {
	var b *budget
	if steps != nil {
		b = &budget{left: *steps}
		ctx = context.WithValue(ctx, budgetKey{}, b)
		defer func() { *steps = b.left }()
	}
	if lang >= numLanguages {
		return nil, fmt.Errorf("%w: unknown language %d", ErrParse, lang)
	}
	if uint64(len(src)) >= MemoryLimit || maxNodes <= 0 || maxNodes > 1<<30 {
		return nil, fmt.Errorf("%w: %d bytes, %d nodes out of bounds", ErrParse, len(src), maxNodes)
	}
	in := &p.inst[lang]
	if in.e == nil {
		e, err := engineFor(lang, 0)
		if err != nil {
			return nil, err
		}
		in.e = e
	}
	if in.mod == nil {
		mod, err := in.e.instantiate(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrModule, err)
		}
		in.mod = mod
		in.malloc = mod.ExportedFunction("sk_malloc")
		in.free = mod.ExportedFunction("sk_free")
		in.parse = mod.ExportedFunction("sk_parse")
	}
	tree, err := in.parseOnce(ctx, src, maxNodes)
	if err == nil && (lang == JavaScript || lang == TSX) {
		tree, err = in.reparseJSXText(ctx, src, maxNodes, tree)
	}
	if in.mod != nil && (err != nil || in.mod.Memory().Size() > keepMemory) {
		// A trap (memory exhausted) leaves the instance in an unknown
		// state, and a grown one holds memory it cannot give back.
		in.close()
	}
	return tree, err
}

// maxJSXRounds bounds the reparses of reparseJSXText.
const maxJSXRounds = 8

// reparseJSXText lets JSX text hold a bare "&", as TypeScript and Babel
// do: the grammar takes "&" in text only as the start of a character
// reference ("&amp;") and reports anything else as a syntax error. Each
// such "&" (one right after a child of a JSX element, or starting an
// ERROR node there) is replaced by a byte the grammar reads as text, in a
// copy of the source, and the copy parsed again; byte offsets stay the
// same, so the tree fits the original source.
func (in *instance) reparseJSXText(ctx context.Context, src []byte, maxNodes int, tree *Tree) (*Tree, error) {
	fixed, cloned := src, false
	for range maxJSXRounds {
		if !tree.HasError {
			return tree, nil
		}
		changed := false
		replace := func(at int) {
			if at >= len(fixed) || fixed[at] != '&' || entity.Match(fixed[at:]) {
				return
			}
			if !cloned {
				fixed, cloned = bytes.Clone(src), true
			}
			for ; at < len(fixed) && fixed[at] == '&'; at++ {
				fixed[at] = '_'
				changed = true
			}
		}
		for _, n := range tree.Nodes {
			if n.Parent < 0 {
				continue
			}
			switch parent := tree.Nodes[n.Parent].Kind; {
			case n.Error && parent == "jsx_element":
				replace(n.Start)
			case (parent == "jsx_element" || parent == "ERROR") &&
				(strings.HasPrefix(n.Kind, "jsx_") || n.Kind == "html_character_reference"):
				replace(n.End)
			}
		}
		if !changed {
			return tree, nil
		}
		next, err := in.parseOnce(ctx, fixed, maxNodes)
		if err != nil {
			return nil, err
		}
		tree = next
	}
	return tree, nil
}

// entity matches a character reference at the start of JSX text.
var entity = regexp.MustCompile(`^&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);`)

func (in *instance) parseOnce(ctx context.Context, src []byte, maxNodes int) (*Tree, error) {
	mem := in.mod.Memory()
	res, err := in.malloc.Call(ctx, uint64(len(src)+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	srcPtr := uint32(res[0])
	if srcPtr == 0 || !mem.Write(srcPtr, src) {
		return nil, fmt.Errorf("%w: no memory for %d bytes of source", ErrParse, len(src))
	}
	free := in.free
	defer free.Call(ctx, uint64(srcPtr))
	res, err = in.parse.Call(ctx, uint64(in.e.lang), uint64(srcPtr), uint64(len(src)), uint64(maxNodes))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	out := uint32(res[0])
	if out == 0 {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", ErrParse, ctx.Err())
		}
		if b, ok := ctx.Value(budgetKey{}).(*budget); ok && b.out {
			return nil, fmt.Errorf("%w: %w", ErrParse, ErrBudget)
		}
		return nil, fmt.Errorf("%w: out of memory", ErrParse)
	}
	defer free.Call(ctx, uint64(out))
	return in.decode(mem, out, len(src))
}

// Layout of sk_parse's result, in 32-bit words (see shim.c).
const (
	headerWords = 2
	nodeWords   = 8
	flagNamed   = 1
	flagError   = 2
	flagMissing = 4
)

func (in *instance) decode(mem api.Memory, out uint32, srcLen int) (*Tree, error) {
	hdr, ok := mem.Read(out, headerWords*4)
	if !ok {
		return nil, fmt.Errorf("%w: result outside memory", ErrParse)
	}
	count := binary.LittleEndian.Uint32(hdr)
	words, ok := mem.Read(out+headerWords*4, count*nodeWords*4)
	if !ok || count == 0 {
		return nil, fmt.Errorf("%w: %d nodes outside memory", ErrParse, count)
	}
	kinds, fields := in.e.kinds, in.e.fields
	t := &Tree{Nodes: make([]Node, count), HasError: binary.LittleEndian.Uint32(hdr[4:]) != 0}
	for i := range t.Nodes {
		w := words[i*nodeWords*4 : (i+1)*nodeWords*4]
		u := func(k int) uint32 { return binary.LittleEndian.Uint32(w[k*4:]) }
		sym, field, flags, parent := u(0), u(1), u(6), u(7)
		n := &t.Nodes[i]
		switch {
		case int(sym) < len(kinds):
			n.Kind = kinds[sym]
		case sym == errorSymbol:
			n.Kind = "ERROR"
		case sym == errorRepeatSymbol:
			n.Kind = "_ERROR"
		default:
			return nil, fmt.Errorf("%w: node %d has unknown symbol %d", ErrParse, i, sym)
		}
		if int(field) < len(fields) {
			n.Field = fields[field]
		}
		n.Start, n.End = int(u(2)), int(u(3))
		n.Row, n.Column = int(u(4)), int(u(5))
		n.Named, n.Error, n.Missing = flags&flagNamed != 0, flags&flagError != 0, flags&flagMissing != 0
		n.Parent = -1
		if parent != 0xffffffff {
			if int(parent) >= i {
				return nil, fmt.Errorf("%w: node %d has parent %d after it", ErrParse, i, parent)
			}
			n.Parent = int(parent)
		}
		if n.Start > n.End || n.End > srcLen {
			return nil, fmt.Errorf("%w: node %d spans %d..%d of %d bytes", ErrParse, i, n.Start, n.End, srcLen)
		}
	}
	if t.Nodes[0].Parent != -1 {
		return nil, fmt.Errorf("%w: first node is not the root", ErrParse)
	}
	return t, nil
}

// maxIdle is how many parsers a Pool keeps between uses: enough for the
// goroutines of a busy caller, few enough that idle instances (each up to
// keepMemory) do not add up.
const maxIdle = 4

// Pool hands out Parsers and takes them back, so that a caller making many
// parses of small sources (an audit of many skills) instantiates the
// modules a few times instead of once per use: an instance costs a few
// milliseconds and several MiB of fresh memory. It is safe for concurrent
// use; the zero value is ready to use.
type Pool struct {
	mu     sync.Mutex
	idle   []*Parser
	closed bool
}

// Get returns an idle parser, or a new one.
func (p *Pool) Get() *Parser {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		x := p.idle[n-1]
		p.idle = p.idle[:n-1]
		return x
	}
	return new(Parser)
}

// Put gives a parser back; it is closed instead when the pool is full or
// closed. The caller must not use it afterwards.
func (p *Pool) Put(x *Parser) {
	if x == nil {
		return
	}
	p.mu.Lock()
	if !p.closed && len(p.idle) < maxIdle {
		p.idle = append(p.idle, x)
		x = nil
	}
	p.mu.Unlock()
	if x != nil {
		x.Close()
	}
}

// Close closes the idle parsers; parsers put back later are closed at
// once.
func (p *Pool) Close() error {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	var errs []error
	for _, x := range idle {
		if err := x.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
