package depcheck

import (
	"go/ast"
	"go/token"
	"path"
	"regexp"
	"strconv"
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
	fset, files := moduleFiles(t, 0, 100, func(rel string) bool { return path.Base(rel) == "cmd" })
	for _, f := range files {
		ast.Inspect(f.File, func(n ast.Node) bool {
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
