package depcheck

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// exitMapHomes are the files allowed to map errors to exit codes and HTTP
// statuses: pkg/errdef, the one map, and the front ends' tables of
// deliberate exceptions to it.
var exitMapHomes = []string{"pkg/errdef/", "cmd/skillpm/exceptions.go", "api/exceptions.go"}

// remoteStatusReaders are the packages that speak HTTP to other servers:
// the statuses they name are what a registry answered (recorded in an
// error that describes that answer), never skillpm's own status for a
// failure, so the status rule does not apply to them; the exit-code rules
// do.
var remoteStatusReaders = []string{"registry/"}

// TestOneExitMap fails on an exit-code or HTTP-status mapping outside
// errdef and the exceptions tables: a name of an exit code other than
// success (errdef.ExitUsage…), a switch over errdef classes (which
// restates a map errdef keeps: exit code, status or name), os.Exit with a
// number, and an error status (4xx, 5xx) given in a function that looks
// at an error (errors.Is, errors.As, errdef.ClassOf…). Front ends ask
// errdef (Class.ExitCode, Class.HTTPStatus, Class.String) instead, so the
// CLI's exit code and the API's status of a failure never disagree.
func TestOneExitMap(t *testing.T) {
	errStatus := errorStatuses(t)
	// internal/cmd, the parsers' precompile command and the hosts table's
	// generator are the project's build tools, programs with exit codes of
	// their own, not skillpm's.
	fset, files := moduleFiles(t, 0, 100, func(rel string) bool {
		return rel == "internal/cmd" || rel == "pkg/audit/internal/treesitter/precompile" || rel == "hosts/internal/gentable"
	})
	for _, f := range files {
		if isExitMapHome(f.Rel) {
			continue
		}
		for _, p := range exitMappings(f.File, errStatus) {
			if strings.HasPrefix(p.what, "http.") && readsRemoteStatus(f.Rel) {
				continue
			}
			t.Errorf("%s: %s: ask pkg/errdef (Class.ExitCode, Class.HTTPStatus, Class.String), or add a commented entry to the exceptions table (cmd/skillpm/exceptions.go, api/exceptions.go)", fset.Position(p.pos), p.what)
		}
	}
}

// TestOneExitMapFinds: the rule finds each kind of mapping it names, so a
// broken check cannot pass by finding nothing.
func TestOneExitMapFinds(t *testing.T) {
	src := `package p
func a(err error) int {
	if errors.Is(err, ErrX) { return errdef.ExitUsage }
	return 0
}
func b(c errdef.Class) string {
	switch c {
	case errdef.Usage:
		return "bad_request"
	}
	return ""
}
func c() { os.Exit(3) }
func d(w http.ResponseWriter, err error) {
	if errors.As(err, &target) { w.WriteHeader(http.StatusConflict) }
}
func e(resp *http.Response) error {
	if resp.StatusCode == http.StatusNotFound { return ErrNotFound }
	return nil
}
func f() { os.Exit(run()); _ = errdef.ExitOK }
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := exitMappings(f, errorStatuses(t))
	var whats []string
	for _, p := range got {
		whats = append(whats, p.what)
	}
	if len(got) != 4 {
		t.Fatalf("found %d mappings, want 4 (a, b, c, d; not e, f): %q", len(got), whats)
	}
}

func readsRemoteStatus(rel string) bool {
	for _, p := range remoteStatusReaders {
		if strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

func isExitMapHome(rel string) bool {
	for _, h := range exitMapHomes {
		if rel == h || (strings.HasSuffix(h, "/") && strings.HasPrefix(rel, h)) {
			return true
		}
	}
	return false
}

// mapping is one place that maps errors to exit codes or statuses.
type mapping struct {
	pos  token.Pos
	what string
}

// exitMappings lists the mappings in f; errStatus holds the names of
// net/http's error statuses.
func exitMappings(f *ast.File, errStatus map[string]bool) []mapping {
	var out []mapping
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if isPkgSel(x, "errdef") && strings.HasPrefix(x.Sel.Name, "Exit") && x.Sel.Name != "ExitOK" {
				out = append(out, mapping{x.Pos(), "errdef." + x.Sel.Name + " names an exit code"})
			}
		case *ast.CaseClause:
			for _, e := range x.List {
				if sel, ok := e.(*ast.SelectorExpr); ok && isPkgSel(sel, "errdef") && isClassName(sel.Sel.Name) {
					out = append(out, mapping{e.Pos(), "a switch over errdef classes restates errdef's maps"})
					break
				}
			}
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && isPkgSel(sel, "os") && sel.Sel.Name == "Exit" && len(x.Args) == 1 {
				if lit, ok := x.Args[0].(*ast.BasicLit); ok && lit.Value != "0" {
					out = append(out, mapping{x.Pos(), "os.Exit(" + lit.Value + ") names an exit code"})
				}
			}
		case *ast.FuncDecl:
			if x.Body != nil && inspectsErrors(x.Body) {
				out = append(out, givenStatuses(x.Body, errStatus)...)
			}
			// The body's statuses are checked here; its other mappings
			// by the walk going on.
		}
		return true
	})
	return out
}

func isPkgSel(sel *ast.SelectorExpr, pkg string) bool {
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// isClassName reports whether name is one of errdef's classes.
func isClassName(name string) bool {
	switch name {
	case "None", "Usage", "Validation", "Resolution", "Trust", "Registry", "Conflict", "NotFound", "Internal":
		return true
	}
	return false
}

// inspectsErrors reports whether body asks what an error is.
func inspectsErrors(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			switch {
			case isPkgSel(sel, "errors") && (sel.Sel.Name == "Is" || sel.Sel.Name == "As" || sel.Sel.Name == "AsType"),
				isPkgSel(sel, "errdef") && (sel.Sel.Name == "ClassOf" || sel.Sel.Name == "Is"):
				found = true
			}
		}
		return !found
	})
	return found
}

// givenStatuses lists the error statuses body gives (not those it only
// compares with, as a client reading a response does).
func givenStatuses(body *ast.BlockStmt, errStatus map[string]bool) []mapping {
	compared := map[ast.Expr]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if x.Op == token.EQL || x.Op == token.NEQ {
				compared[x.X], compared[x.Y] = true, true
			}
		case *ast.CaseClause:
			for _, e := range x.List {
				compared[e] = true
			}
		}
		return true
	})
	var out []mapping
	ast.Inspect(body, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if ok && isPkgSel(sel, "http") && errStatus[sel.Sel.Name] && !compared[sel] {
			out = append(out, mapping{sel.Pos(), "http." + sel.Sel.Name + " given in a function that looks at an error"})
		}
		return true
	})
	return out
}

// errorStatuses reads the names of net/http's 4xx and 5xx statuses from
// its source, so the rule knows them without a list of its own.
func errorStatuses(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(build.Default.GOROOT, "src", "net", "http", "status.go"), nil, 0)
	if err != nil {
		t.Fatalf("reading net/http's statuses: %v", err)
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
					if v, err := strconv.Atoi(lit.Value); err == nil && v >= 400 {
						out[name.Name] = true
					}
				}
			}
		}
	}
	if len(out) < 30 {
		t.Fatalf("found %d error statuses in net/http; the reader is broken", len(out))
	}
	return out
}
