package depcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cliFlag is a long CLI flag written into a message.
var cliFlag = regexp.MustCompile(`(^|[\s(,;:'"])--[a-z][a-z-]*`)

// TestLibraryMessagesNameNoFlags fails when an error made outside cmd/
// (fmt.Errorf, errors.New, errdef.New) names a CLI flag: the library says
// what and where, the CLI adds its flags as hints (cmd/skillpm/errhint.go),
// and the HTTP API shows the message alone. The ASF runner's commands for
// the agent are built by its command helper, not written into messages,
// so they do not trip this.
func TestLibraryMessagesNameNoFlags(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || n == "cmd" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !makesError(call) {
				return true
			}
			for _, a := range call.Args {
				lit, ok := a.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil && cliFlag.MatchString(s) {
					t.Errorf("%s: the error message %q names a CLI flag: say what and where, and add the flag as a hint in cmd/skillpm/errhint.go", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files; the walk is broken", files)
	}
}

// makesError reports whether call is fmt.Errorf, errors.New or errdef.New.
func makesError(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	switch pkg.Name + "." + sel.Sel.Name {
	case "fmt.Errorf", "errors.New", "errdef.New":
		return true
	}
	return false
}
