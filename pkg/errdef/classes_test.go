package errdef_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryErrorHasAClass walks the module's sources and checks that every
// exported sentinel (a package-level Err* variable) is made by errdef.New
// with a class other than None, and that every exported *Error type either
// has a Class method or unwraps, first, to a sentinel (whose class it
// then has). It fails when someone adds an unclassified error, so the CLI's
// exit codes and the API's statuses never fall back to "failure" by
// accident.
func TestEveryErrorHasAClass(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not at %s: %v", root, err)
	}
	fset := token.NewFileSet()
	var sentinels, typed int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".")) {
			return filepath.SkipDir
		}
		files := parseDir(t, fset, path)
		if len(files) == 0 || files[0].Name.Name == "main" {
			return nil
		}
		s, ty := checkPackage(t, fset, files)
		sentinels += s
		typed += ty
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk itself could silently find nothing (a moved root, a
	// renamed constructor); the module has well over a hundred of each.
	if sentinels < 100 || typed < 15 {
		t.Errorf("found %d sentinels and %d typed errors; the walk is broken", sentinels, typed)
	}
}

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// checkPackage checks the errors declared in one package and returns how
// many sentinels and typed errors it has.
func checkPackage(t *testing.T, fset *token.FileSet, files []*ast.File) (sentinels, typed int) {
	t.Helper()
	classMethod := map[string]bool{}
	unwrapOK := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			recv := recvName(fd.Recv.List[0].Type)
			switch fd.Name.Name {
			case "Class":
				classMethod[recv] = true
			case "Unwrap":
				unwrapOK[recv] = unwrapsToSentinel(fd.Body)
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					for i, name := range s.Names {
						if !name.IsExported() || !strings.HasPrefix(name.Name, "Err") || gd.Tok != token.VAR {
							continue
						}
						sentinels++
						// Another package's sentinel re-exported under this
						// name is checked where it is made.
						if i >= len(s.Values) || (!classedNew(s.Values[i]) && !isForeignSentinel(s.Values[i])) {
							t.Errorf("%s: %s is not made by errdef.New with a class: give it one (pkg/errdef)", fset.Position(name.Pos()), name.Name)
						}
					}
				case *ast.TypeSpec:
					if !s.Name.IsExported() || !strings.HasSuffix(s.Name.Name, "Error") {
						continue
					}
					if _, isStruct := s.Type.(*ast.StructType); !isStruct {
						continue
					}
					typed++
					if !classMethod[s.Name.Name] && !unwrapOK[s.Name.Name] {
						t.Errorf("%s: %s has neither a Class method nor an Unwrap that returns a sentinel first: give it one (pkg/errdef)", fset.Position(s.Pos()), s.Name.Name)
					}
				}
			}
		}
	}
	return sentinels, typed
}

func recvName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// classedNew reports whether e is errdef.New(errdef.C, …) with C not None.
func classedNew(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 2 {
		return false
	}
	if !isSelector(call.Fun, "errdef", "New") {
		return false
	}
	sel, ok := call.Args[0].(*ast.SelectorExpr)
	return ok && isSelector(sel, "errdef", sel.Sel.Name) && sel.Sel.Name != "None"
}

func isSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg && sel.Sel.Name == name
}

// unwrapsToSentinel reports whether every return of an Unwrap body gives
// a sentinel (ErrX or pkg.ErrX) or a slice whose first element is one.
func unwrapsToSentinel(body *ast.BlockStmt) bool {
	if body == nil {
		return false
	}
	ok, n := true, 0
	ast.Inspect(body, func(node ast.Node) bool {
		r, isRet := node.(*ast.ReturnStmt)
		if !isRet {
			return true
		}
		n++
		if len(r.Results) != 1 {
			ok = false
			return false
		}
		res := r.Results[0]
		if cl, isLit := res.(*ast.CompositeLit); isLit {
			if len(cl.Elts) == 0 {
				ok = false
				return false
			}
			res = cl.Elts[0]
		}
		if !isSentinelRef(res) {
			ok = false
		}
		return false
	})
	return ok && n > 0
}

// isForeignSentinel reports whether e is pkg.ErrX.
func isForeignSentinel(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && isSentinelRef(sel)
}

func isSentinelRef(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return strings.HasPrefix(x.Name, "Err")
	case *ast.SelectorExpr:
		_, isPkg := x.X.(*ast.Ident)
		return isPkg && strings.HasPrefix(x.Sel.Name, "Err")
	}
	return false
}
