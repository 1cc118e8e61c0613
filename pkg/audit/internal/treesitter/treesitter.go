// Package treesitter parses Python, JavaScript, TypeScript and TSX with
// tree-sitter, without cgo: tree-sitter's C runtime and the four grammars
// are compiled to one WebAssembly module (treesitter.wasm, built by
// scripts/treesitter-wasm/build.sh) that wazero runs in pure Go. The
// module is compiled on the first parse of the process, so programs that
// never parse do not pay for it.
//
// A parse is one call into the module, which returns the whole syntax tree
// as a flat preorder array; Parse turns it into a Tree of plain structs.
package treesitter

import (
	"bytes"
	"context"
	_ "embed" // the module
	"encoding/binary"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

//go:embed treesitter.wasm
var wasmModule []byte

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

// engine is the compiled module and its name tables. It is built once per
// process and never changed after.
type engine struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	kinds    [numLanguages][]string
	fields   [numLanguages][]string
}

// loadEngine compiles the module on first use; the result, including a
// failure, is kept for the life of the process.
var loadEngine = sync.OnceValues(func() (*engine, error) {
	return newEngine(context.Background())
})

// errorSymbol and errorRepeatSymbol are tree-sitter's built-in symbols
// outside the grammar's table.
const (
	errorSymbol       = 0xffff
	errorRepeatSymbol = 0xfffe
)

func newEngine(ctx context.Context) (*engine, error) {
	cfg := wazero.NewRuntimeConfig().WithMemoryLimitPages(MemoryLimit / 65536)
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
	compiled, err := rt.CompileModule(ctx, wasmModule)
	if err != nil {
		return fail(err)
	}
	e := &engine{rt: rt, compiled: compiled}
	mod, err := e.instantiate(ctx)
	if err != nil {
		return fail(err)
	}
	defer mod.Close(ctx)
	for l := Language(0); l < numLanguages; l++ {
		if e.kinds[l], err = names(ctx, mod, "sk_symbol_count", "sk_symbol_name", l, 0); err != nil {
			return fail(err)
		}
		if e.fields[l], err = names(ctx, mod, "sk_field_count", "sk_field_name", l, 1); err != nil {
			return fail(err)
		}
	}
	return e, nil
}

// cancelled is the module's import skillpm.cancelled: tree-sitter asks it
// every few hundred steps whether to stop.
func cancelled(ctx context.Context, stack []uint64) {
	stack[0] = 0
	if ctx.Err() != nil {
		stack[0] = 1
	}
}

func (e *engine) instantiate(ctx context.Context) (api.Module, error) {
	// Anonymous, so that many instances may live in one runtime; the
	// module is a reactor, initialised by _initialize.
	return e.rt.InstantiateModule(ctx, e.compiled,
		wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
}

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

// Parser parses sources with one instance of the module, made on first
// use. A Parser is not safe for concurrent use; make one per goroutine.
// The zero value is ready to use.
type Parser struct {
	e   *engine
	mod api.Module
}

// Close releases the parser's instance.
func (p *Parser) Close() error {
	if p.mod == nil {
		return nil
	}
	err := p.mod.Close(context.Background())
	p.mod = nil
	return err
}

// Parse parses src in language lang. Like tree-sitter, it recovers from
// syntax errors (Tree.HasError says it had to). maxNodes bounds the tree:
// past it Parse stops descending into children. It fails with ErrParse
// when ctx is done during the parse or the parse needs more than
// MemoryLimit; the Parser stays usable.
func (p *Parser) Parse(ctx context.Context, lang Language, src []byte, maxNodes int) (*Tree, error) {
	if lang >= numLanguages {
		return nil, fmt.Errorf("%w: unknown language %d", ErrParse, lang)
	}
	if uint64(len(src)) >= MemoryLimit || maxNodes <= 0 || maxNodes > 1<<30 {
		return nil, fmt.Errorf("%w: %d bytes, %d nodes out of bounds", ErrParse, len(src), maxNodes)
	}
	if p.e == nil {
		e, err := loadEngine()
		if err != nil {
			return nil, err
		}
		p.e = e
	}
	if p.mod == nil {
		mod, err := p.e.instantiate(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrModule, err)
		}
		p.mod = mod
	}
	tree, err := p.parse(ctx, lang, src, maxNodes)
	if err == nil && (lang == JavaScript || lang == TSX) {
		tree, err = p.reparseJSXText(ctx, lang, src, maxNodes, tree)
	}
	if p.mod != nil && (err != nil || p.mod.Memory().Size() > keepMemory) {
		// A trap (memory exhausted) leaves the instance in an unknown
		// state, and a grown one holds memory it cannot give back.
		p.Close()
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
func (p *Parser) reparseJSXText(ctx context.Context, lang Language, src []byte, maxNodes int, tree *Tree) (*Tree, error) {
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
		next, err := p.parse(ctx, lang, fixed, maxNodes)
		if err != nil {
			return nil, err
		}
		tree = next
	}
	return tree, nil
}

// entity matches a character reference at the start of JSX text.
var entity = regexp.MustCompile(`^&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);`)

func (p *Parser) parse(ctx context.Context, lang Language, src []byte, maxNodes int) (*Tree, error) {
	mod := p.mod
	mem := mod.Memory()
	res, err := mod.ExportedFunction("sk_malloc").Call(ctx, uint64(len(src)+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	srcPtr := uint32(res[0])
	if srcPtr == 0 || !mem.Write(srcPtr, src) {
		return nil, fmt.Errorf("%w: no memory for %d bytes of source", ErrParse, len(src))
	}
	free := mod.ExportedFunction("sk_free")
	defer free.Call(ctx, uint64(srcPtr))
	res, err = mod.ExportedFunction("sk_parse").Call(ctx, uint64(lang), uint64(srcPtr), uint64(len(src)), uint64(maxNodes))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	out := uint32(res[0])
	if out == 0 {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", ErrParse, ctx.Err())
		}
		return nil, fmt.Errorf("%w: out of memory", ErrParse)
	}
	defer free.Call(ctx, uint64(out))
	return p.decode(mem, lang, out, len(src))
}

// Layout of sk_parse's result, in 32-bit words (see shim.c).
const (
	headerWords = 2
	nodeWords   = 8
	flagNamed   = 1
	flagError   = 2
	flagMissing = 4
)

func (p *Parser) decode(mem api.Memory, lang Language, out uint32, srcLen int) (*Tree, error) {
	hdr, ok := mem.Read(out, headerWords*4)
	if !ok {
		return nil, fmt.Errorf("%w: result outside memory", ErrParse)
	}
	count := binary.LittleEndian.Uint32(hdr)
	words, ok := mem.Read(out+headerWords*4, count*nodeWords*4)
	if !ok || count == 0 {
		return nil, fmt.Errorf("%w: %d nodes outside memory", ErrParse, count)
	}
	kinds, fields := p.e.kinds[lang], p.e.fields[lang]
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
