package depcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"testing"
)

// TestSentinelsInErrorsGo fails on a sentinel error (a package-level
// errdef.New) declared outside its package's errors.go, so a package's
// errors are read in one place, as CONTRIBUTING says.
func TestSentinelsInErrorsGo(t *testing.T) {
	fset, files := moduleFiles(t, 0, 100, nil)
	for _, f := range files {
		if path.Base(f.Rel) == "errors.go" {
			continue
		}
		for _, pos := range sentinels(f.File) {
			t.Errorf("%s: a sentinel error outside errors.go: move it into %s/errors.go", fset.Position(pos), f.Pkg)
		}
	}
}

// TestSentinelsInErrorsGoFinds: the rule finds a sentinel alone and in a
// group, and not an errdef.New made inside a function.
func TestSentinelsInErrorsGoFinds(t *testing.T) {
	src := `package p
var ErrA = errdef.New(errdef.Usage, "a")
var (
	x = 1
	ErrB = errdef.New(errdef.Usage, "b")
)
func f() error { return errdef.New(errdef.Usage, "c") }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, pos := range sentinels(f) {
		lines = append(lines, fset.Position(pos).Line)
	}
	if !slices.Equal(lines, []int{2, 5}) {
		t.Errorf("found sentinels on lines %v, want [2 5]", lines)
	}
}

// sentinels returns where f declares a package-level errdef.New.
func sentinels(f *ast.File) []token.Pos {
	var out []token.Pos
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, sp := range gd.Specs {
			for _, v := range sp.(*ast.ValueSpec).Values {
				call, ok := v.(*ast.CallExpr)
				if !ok {
					continue
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && isPkgSel(sel, "errdef") && sel.Sel.Name == "New" {
					out = append(out, call.Pos())
				}
			}
		}
	}
	return out
}
