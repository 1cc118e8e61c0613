package treesitter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestModuleChecksum: the embedded modules are the ones whose SHA-256
// scripts/treesitter-wasm/build.sh recorded, and ModuleSHA256 (part of
// the audit's version) is the SHA-256 of that record.
func TestModuleChecksum(t *testing.T) {
	want, err := os.ReadFile("treesitter.wasm.sha256")
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for l := range numLanguages {
		sum := sha256.Sum256(module(l))
		got.WriteString(hex.EncodeToString(sum[:]) + "  " + moduleFiles[l] + "\n")
	}
	if got.String() != string(want) {
		t.Fatalf("the modules have SHA-256\n%streesitter.wasm.sha256 says\n%s: rebuild with scripts/treesitter-wasm/build.sh", got.String(), want)
	}
	sum := sha256.Sum256(want)
	if ModuleSHA256() != hex.EncodeToString(sum[:]) {
		t.Errorf("ModuleSHA256() = %s, want the SHA-256 of treesitter.wasm.sha256", ModuleSHA256())
	}
}

// TestOneGrammarPerModule: each module parses its own language and
// refuses the others, so a parse of one language compiles one module.
func TestOneGrammarPerModule(t *testing.T) {
	ctx := context.Background()
	for l := range numLanguages {
		e, err := newEngine(ctx, l, "")
		if err != nil {
			t.Fatal(err)
		}
		mod, err := e.instantiate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for other := range numLanguages {
			res, err := mod.ExportedFunction("sk_symbol_count").Call(ctx, uint64(other))
			if err != nil {
				t.Fatal(err)
			}
			if has := res[0] != 0; has != (other == l) {
				t.Errorf("%s: grammar %d present = %v", moduleFiles[l], other, has)
			}
		}
		mod.Close(ctx)
		e.rt.Close(ctx)
	}
}

// kinds lists the named kinds of a tree in preorder, with field names.
func kinds(tr *Tree) string {
	var b []string
	for _, n := range tr.Nodes {
		if !n.Named {
			continue
		}
		k := n.Kind
		if n.Field != "" {
			k = n.Field + ":" + k
		}
		b = append(b, k)
	}
	return strings.Join(b, " ")
}

func parse(t *testing.T, p *Parser, lang Language, src string) *Tree {
	t.Helper()
	tr, err := p.Parse(context.Background(), lang, []byte(src), 1000)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestParseShape(t *testing.T) {
	var p Parser
	defer p.Close()
	src := "import os\nos.system(cmd)\n"
	tr := parse(t, &p, Python, src)
	if tr.HasError {
		t.Error("HasError on valid Python")
	}
	want := "module import_statement name:dotted_name identifier expression_statement call function:attribute object:identifier attribute:identifier arguments:argument_list identifier"
	if got := kinds(tr); got != want {
		t.Errorf("tree\n got %s\nwant %s", got, want)
	}
	for i, n := range tr.Nodes {
		if i > 0 && (n.Parent < 0 || n.Parent >= i) {
			t.Fatalf("node %d (%s) has parent %d", i, n.Kind, n.Parent)
		}
		if n.Kind == "call" {
			if n.Row != 1 || n.Column != 0 || src[n.Start:n.End] != "os.system(cmd)" {
				t.Errorf("call at %d:%d %q", n.Row, n.Column, src[n.Start:n.End])
			}
		}
	}
	if tr.Nodes[0].Parent != -1 || tr.Nodes[0].Kind != "module" {
		t.Errorf("root %+v", tr.Nodes[0])
	}

	tr = parse(t, &p, Python, "def f(:\n")
	if !tr.HasError {
		t.Error("no error on broken Python")
	}
	errs := 0
	for _, n := range tr.Nodes {
		if n.Error || n.Missing {
			errs++
		}
	}
	if errs == 0 {
		t.Error("no ERROR or missing node in broken Python")
	}
}

// TestModernSyntax: what CPython 3.12 and TypeScript accept parses
// without a syntax error.
func TestModernSyntax(t *testing.T) {
	cases := []struct {
		name string
		lang Language
		src  string
	}{
		{"PEP 701 nested quotes", Python, "x = f\"{f'{x}'}\"\n"},
		{"PEP 701 same quotes", Python, "d = {}\ny = f\"{d[\"k\"]}\"\n"},
		{"PEP 701 deep", Python, "y = f'{f'{f'{1}'}'}'\n"},
		{"PEP 701 backslash", Python, "y = f\"{'\\n'.join(a)}\"\n"},
		{"format spec", Python, "y = f\"{x!r:>{w}}\"\n"},
		{"JSX bare &", JavaScript, "const a = <p>Tom & Jerry</p>;\n"},
		{"JSX bare && and entity", JavaScript, "const a = <p>a && b &amp; {x} &</p>;\n"},
		{"TSX bare &", TSX, "const a: JSX.Element = <p>Tom & Jerry</p>;\n"},
		{"TSX lone &", TSX, "export const A = () => <>&</>;\n"},
		{"TypeScript", TypeScript, "const a: Array<number> = [1];\nfunction f<T>(x: T): T { return x }\n"},
	}
	var p Parser
	defer p.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := parse(t, &p, c.lang, c.src)
			if tr.HasError {
				t.Errorf("syntax error in %q: %s", c.src, kinds(tr))
			}
		})
	}
	// A bare & outside JSX text is still an error.
	if tr := parse(t, &p, JavaScript, "const a = & b;\n"); !tr.HasError {
		t.Error("no error on `const a = & b;`")
	}
}

func TestMaxNodes(t *testing.T) {
	var p Parser
	defer p.Close()
	src := []byte("a = 1\nb = 2\nc = 3\n")
	tr, err := p.Parse(context.Background(), Python, src, 2)
	if err != nil {
		t.Fatal(err)
	}
	// The root and its first child, then the first child's siblings
	// without their children.
	if got := kinds(tr); got != "module expression_statement expression_statement expression_statement" {
		t.Errorf("bounded tree: %s", got)
	}
}

func TestCancelled(t *testing.T) {
	var p Parser
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := []byte(strings.Repeat("x = [1, 2, 3]\n", 2000))
	if _, err := p.Parse(ctx, Python, src, 1000); !errors.Is(err, ErrParse) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled parse: %v", err)
	}
	// The parser stays usable.
	if tr := parse(t, &p, Python, "x = 1\n"); tr.HasError {
		t.Error("parse after a cancelled one failed")
	}
}

// TestParseBudget: a parse spends steps in proportion to its work, the
// same on every run, and stops with ErrBudget when they run out; the
// parser stays usable.
func TestParseBudget(t *testing.T) {
	var p Parser
	defer p.Close()
	ctx := context.Background()
	src := []byte(strings.Repeat("x = [1, 2, 3]\n", 2000))
	spent := func() int64 {
		steps := int64(1 << 40)
		if _, err := p.ParseBudget(ctx, Python, src, 1<<20, &steps); err != nil {
			t.Fatal(err)
		}
		return 1<<40 - steps
	}
	first, second := spent(), spent()
	// 2000 lines of 9 tokens each are tens of thousands of operations.
	if first < 100 || first != second {
		t.Fatalf("a parse of %d bytes spent %d steps, then %d", len(src), first, second)
	}
	steps := first / 2
	_, err := p.ParseBudget(ctx, Python, src, 1<<20, &steps)
	if !errors.Is(err, ErrBudget) || !errors.Is(err, ErrParse) || steps != 0 {
		t.Fatalf("parse with half the steps it needs: %v, %d steps left", err, steps)
	}
	if tr := parse(t, &p, Python, "x = 1\n"); tr.HasError {
		t.Error("parse after a stopped one failed")
	}
	// The JSX reparses spend from the same budget.
	jsx := []byte(strings.Repeat("const a = <p>Tom & Jerry</p>;\n", 500))
	steps = 1 << 40
	if tr, err := p.ParseBudget(ctx, JavaScript, jsx, 1<<20, &steps); err != nil || tr.HasError {
		t.Fatalf("JSX: %v", err)
	}
	jsxSpent := 1<<40 - steps
	steps = jsxSpent - 1
	if _, err := p.ParseBudget(ctx, JavaScript, jsx, 1<<20, &steps); !errors.Is(err, ErrBudget) {
		t.Fatalf("JSX with one step too few: %v", err)
	}
}

// TestPool: a parser put back is handed out again with its instance, and
// Close releases the idle ones.
func TestPool(t *testing.T) {
	var pool Pool
	a := pool.Get()
	if tr := parse(t, a, Python, "x = 1\n"); tr.HasError {
		t.Fatal("parse failed")
	}
	mod := a.inst[Python].mod
	pool.Put(a)
	b := pool.Get()
	if b != a || b.inst[Python].mod != mod || mod == nil {
		t.Fatal("the pool did not hand back the idle parser and its instance")
	}
	var many []*Parser
	for range maxIdle + 2 {
		x := pool.Get()
		parse(t, x, Python, "y = 2\n")
		many = append(many, x)
	}
	for _, x := range many {
		pool.Put(x)
	}
	if len(pool.idle) != maxIdle {
		t.Errorf("%d idle parsers, want %d", len(pool.idle), maxIdle)
	}
	if many[len(many)-1].inst[Python].mod != nil {
		t.Error("a parser put into a full pool kept its instance")
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	for _, x := range many[:maxIdle] {
		if x.inst[Python].mod != nil {
			t.Error("Close left an idle instance open")
		}
	}
	pool.Put(b)
	if b.inst[Python].mod != nil || len(pool.idle) != 0 {
		t.Error("a closed pool kept a parser")
	}
}

// TestPathological: deep nesting and long lines end in a tree or ErrParse,
// never a crash, and leave the parser usable.
func TestPathological(t *testing.T) {
	var p Parser
	defer p.Close()
	for _, c := range []struct {
		lang Language
		src  string
	}{
		{Python, strings.Repeat("(", 20000)},
		{JavaScript, strings.Repeat("[{(", 2000)},
		{TSX, strings.Repeat("<a>", 5000)},
		{Python, "x = " + strings.Repeat("1+", 10000) + "1\n"},
	} {
		tr, err := p.Parse(context.Background(), c.lang, []byte(c.src), 1<<20)
		if err != nil && !errors.Is(err, ErrParse) {
			t.Errorf("%.10q...: %v", c.src, err)
		}
		if err == nil && len(tr.Nodes) == 0 {
			t.Errorf("%.10q...: empty tree", c.src)
		}
	}
	if tr := parse(t, &p, Python, "x = 1\n"); tr.HasError {
		t.Error("parse after pathological input failed")
	}
}

func TestBounds(t *testing.T) {
	var p Parser
	defer p.Close()
	if _, err := p.Parse(context.Background(), numLanguages, []byte("x"), 10); !errors.Is(err, ErrParse) {
		t.Errorf("unknown language: %v", err)
	}
	if _, err := p.Parse(context.Background(), Python, []byte("x"), 0); !errors.Is(err, ErrParse) {
		t.Errorf("no nodes allowed: %v", err)
	}
}

// TestConcurrent: Parsers in different goroutines share the compiled
// module (run with -race).
func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p Parser
			defer p.Close()
			for range 5 {
				tr, err := p.Parse(context.Background(), Language(i), []byte("f(x)\n"), 100)
				if err != nil || tr.HasError {
					t.Errorf("language %d: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
