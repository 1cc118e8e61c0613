package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxRunELines is how long a command's RunE may be, with the run
// function it calls: parse flags, build options, call the engine (or one
// library function), render.
const maxRunELines = 40

// runELengths measures, for every cobra.Command literal in this package
// with a RunE, the lines of its RunE plus those of the package functions
// that RunE calls directly (runInstall and the like), keyed by the
// command's file and Use ("install.go install").
func runELengths(t *testing.T) map[string]int {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]*ast.FuncDecl{}
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[fd.Name.Name] = fd
			}
		}
	}
	lines := func(n ast.Node) int {
		return fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1
	}
	out := map[string]int{}
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			sel, ok := cl.Type.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Command" {
				return true
			}
			use := fset.Position(cl.Pos()).String()
			var rune ast.Expr
			for _, el := range cl.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				switch kv.Key.(*ast.Ident).Name {
				case "Use":
					if bl, ok := kv.Value.(*ast.BasicLit); ok {
						use = strings.Fields(strings.Trim(bl.Value, "`\""))[0]
					}
				case "RunE":
					rune = kv.Value
				}
			}
			if rune == nil {
				return true
			}
			// The RunE and the run functions it reaches (runUpdate, and
			// runProjectUpdate from there): helpers shared by every
			// command (usage errors, argument checks) are not counted.
			n0 := lines(rune)
			seen := map[string]bool{}
			var walk func(ast.Node)
			walk = func(root ast.Node) {
				ast.Inspect(root, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					id, ok := call.Fun.(*ast.Ident)
					if !ok || seen[id.Name] || !strings.HasPrefix(id.Name, "run") {
						return true
					}
					if fd := funcs[id.Name]; fd != nil {
						seen[id.Name] = true
						n0 += lines(fd)
						walk(fd)
					}
					return true
				})
			}
			walk(rune)
			key := fset.Position(cl.Pos()).Filename + " " + use
			for i := 2; ; i++ {
				if _, dup := out[key]; !dup {
					break
				}
				key = fmt.Sprintf("%s %s #%d", fset.Position(cl.Pos()).Filename, use, i)
			}
			out[key] = n0
			return true
		})
	}
	return out
}

// TestRunELength: no command's RunE, with its run function, is longer
// than maxRunELines.
func TestRunELength(t *testing.T) {
	got := runELengths(t)
	if len(got) < 30 {
		t.Fatalf("found only %d commands with a RunE; the measure is broken", len(got))
	}
	var names []string
	for k := range got {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if n := got[k]; n > maxRunELines {
			t.Errorf("%s: RunE with its run function is %d lines (at most %d): move the decisions into the engine (package skillpm) and keep parse, call, render here", k, n, maxRunELines)
		}
	}
}
