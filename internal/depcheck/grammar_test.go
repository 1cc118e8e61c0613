package depcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// grammarPkg owns the reference grammar: it alone reads references.
const grammarPkg = "source"

// retiredParsers are the reference parsers the grammar replaced; a
// function of that name outside grammarPkg is one coming back.
var retiredParsers = []string{
	"ParseRef", "ParseName", "ParseSource", "ParseSelector", "splitRef", "parseAddRef",
	"LooksLikeHost", "looksLikeHost", "isDirRef", "splitSelector", "IsGitName", "Looks", "LooksGit",
}

// prefixReaders are the strings functions that read a prefix or a
// separator out of a reference.
var prefixReaders = []string{"HasPrefix", "TrimPrefix", "CutPrefix", "Cut", "Index", "LastIndex", "Contains", "Split", "SplitN"}

// TestOneReferenceGrammar fails when a package other than grammarPkg
// reads a reference by hand: a function named as one of the retired
// parsers, or a layout reference taken apart at its "oci-layout:" prefix
// (source.LayoutPrefix or the literal). Writing a reference (LayoutPrefix
// + dir) is fine; reading one is source.ParseRef's, ParseName's or
// Parse's.
func TestOneReferenceGrammar(t *testing.T) {
	fset, files := moduleFiles(t, 0, 100, nil)
	for _, f := range files {
		if f.Pkg == grammarPkg {
			continue
		}
		for _, p := range grammarUses(f.File) {
			t.Errorf("%s: %s: read references with package %s (ParseRef, ParseName, Parse), the one grammar", fset.Position(p.pos), p.what, grammarPkg)
		}
	}
}

// TestOneReferenceGrammarFinds: the rule finds each thing it names, and
// lets a reference be written.
func TestOneReferenceGrammarFinds(t *testing.T) {
	src := `package x
func splitRef(s string) {}
func a(s string) bool { return strings.HasPrefix(s, source.LayoutPrefix) }
func b(s string) string { return strings.TrimPrefix(s, "oci-layout:") }
func c(dir string) string { return source.LayoutPrefix + dir }
func (r *T) Looks() bool { return false }
`
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range grammarUses(f) {
		got = append(got, u.what)
	}
	want := []string{"func splitRef", "strings.HasPrefix(…, LayoutPrefix)", `strings.TrimPrefix(…, "oci-layout:")`}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

type grammarUse struct {
	pos  token.Pos
	what string
}

// grammarUses lists the hand-made reference readers in f: retired
// parsers declared as functions (methods are other types' business), and
// prefix reads of a layout reference.
func grammarUses(f *ast.File) []grammarUse {
	var out []grammarUse
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && slices.Contains(retiredParsers, fd.Name.Name) {
			out = append(out, grammarUse{fd.Pos(), "func " + fd.Name.Name})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !isPkgSel(sel, "strings") || !slices.Contains(prefixReaders, sel.Sel.Name) {
			return true
		}
		for _, a := range call.Args {
			switch a := a.(type) {
			case *ast.SelectorExpr:
				if a.Sel.Name == "LayoutPrefix" {
					out = append(out, grammarUse{call.Pos(), "strings." + sel.Sel.Name + "(…, LayoutPrefix)"})
				}
			case *ast.Ident:
				if a.Name == "LayoutPrefix" {
					out = append(out, grammarUse{call.Pos(), "strings." + sel.Sel.Name + "(…, LayoutPrefix)"})
				}
			case *ast.BasicLit:
				if v, err := strconv.Unquote(a.Value); a.Kind == token.STRING && err == nil && strings.HasPrefix(v, "oci-layout:") {
					out = append(out, grammarUse{call.Pos(), "strings." + sel.Sel.Name + "(…, " + a.Value + ")"})
				}
			}
		}
		return true
	})
	return out
}
