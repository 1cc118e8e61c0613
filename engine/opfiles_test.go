package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// opFileExceptions are the operations that live beside another, and why.
var opFileExceptions = map[string]string{
	"Open":       "engine.go",     // makes the Engine, no operation
	"CheckRefs":  "install.go",    // Install's checks before any I/O
	"Restore":    "quarantine.go", // undoes Quarantine
	"UntrustKey": "trust_key.go",  // undoes TrustKey, sharing its request
}

// TestOneFilePerOperation checks that every operation (an exported
// method of *Engine, or an exported function whose first parameter is a
// context) is in the file named after it, in snake case, the way Helm's
// action package files its operations: a reader finds Why in why.go.
func TestOneFilePerOperation(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || !isOperation(fn) {
				continue
			}
			seen++
			want := opFileExceptions[fn.Name.Name]
			if want == "" {
				want = snake(fn.Name.Name) + ".go"
			}
			if file != want {
				t.Errorf("%s is in %s: move it to %s (one file per operation, named after it)", fn.Name.Name, file, want)
			}
		}
	}
	if seen < 30 {
		t.Fatalf("found %d operations: the check is broken", seen)
	}
}

// isOperation: a method of *Engine, or a function taking a context first.
func isOperation(fn *ast.FuncDecl) bool {
	if fn.Recv != nil {
		star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
		if !ok {
			return false
		}
		id, ok := star.X.(*ast.Ident)
		return ok && id.Name == "Engine"
	}
	ps := fn.Type.Params.List
	if len(ps) == 0 {
		return false
	}
	sel, ok := ps[0].Type.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Context"
}

// snake is PublishAll as publish_all.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
