package depcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// registryCalls are what opens a registry client, parses a reference or a
// source (package source, the one grammar), or opens a source or
// repository: the engine's work. The command line hands the engine the
// strings it was given (a reference, a source) and never does it itself,
// so that every command resolves a reference the way install does.
var (
	registryFuncs   = []string{"New"}
	sourceFuncs     = []string{"Parse", "ParseRef", "ParseName", "ParseSelector", "Canonical", "Repository"}
	registryMethods = []string{"OpenRef", "OpenSource", "Repository"}
)

// cliRegistryUses are the functions of cmd/skillpm that still do some of
// registryCalls, each with why or the work that removes it. The test
// fails on a call outside them, and when one of them no longer makes any
// (take it off the list), so the list only shrinks.
var cliRegistryUses = map[string]string{
	// The one place the command line builds a registry client: the
	// engine's (Options.Client), with the terminal's progress, timeouts,
	// mirrors and trace, handed to engine.Open (openEngine) and to the
	// API server (serve, whose per-request engines take its sessions).
	// It must stay: the flags and configuration it reads are the CLI's.
	"publish.go:regClient": "builds the engine's client from the flags and configuration",
}

// TestCLIOpensNoRegistry fails on a registry client, reference or source
// opened in cmd/skillpm outside cliRegistryUses.
func TestCLIOpensNoRegistry(t *testing.T) {
	dir := filepath.Join("..", "..", "cmd", "skillpm")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	files := 0
	for _, en := range entries {
		name := en.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files++
		for _, u := range registryUses(f) {
			key := name + ":" + u.fn
			if _, ok := cliRegistryUses[key]; ok {
				seen[key] = true
				continue
			}
			t.Errorf("%s: %s in %s: hand the engine the reference or source (an operation's request) instead", fset.Position(u.pos), u.what, u.fn)
		}
	}
	if files < 20 {
		t.Fatalf("read %d files of cmd/skillpm; the walk is broken", files)
	}
	for key := range cliRegistryUses {
		if !seen[key] {
			t.Errorf("%s no longer opens a registry client, reference or source: take it off cliRegistryUses", key)
		}
	}
}

// TestCLIOpensNoRegistryFinds: the rule finds each kind of call it names.
func TestCLIOpensNoRegistryFinds(t *testing.T) {
	src := `package main
func a() { registry.New(registry.Options{}) }
func b() { registry.Tag("x") }
func c(cl *registry.Client) { cl.OpenSource(spec); cl.OpenRef(r, s) }
func d() { source.Parse("x"); source.ParseRef("x") }
`
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range registryUses(f) {
		got = append(got, u.fn+":"+u.what)
	}
	want := []string{"a:registry.New", "c:.OpenSource", "c:.OpenRef", "d:source.Parse", "d:source.ParseRef"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

type registryUse struct {
	pos      token.Pos
	fn, what string
}

// registryUses lists the registryCalls in f's functions.
func registryUses(f *ast.File) []registryUse {
	var out []registryUse
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch {
			case isPkgSel(sel, "registry") && slices.Contains(registryFuncs, sel.Sel.Name):
				out = append(out, registryUse{call.Pos(), fd.Name.Name, "registry." + sel.Sel.Name})
			case isPkgSel(sel, "source") && slices.Contains(sourceFuncs, sel.Sel.Name):
				out = append(out, registryUse{call.Pos(), fd.Name.Name, "source." + sel.Sel.Name})
			case !isPkgSel(sel, "registry") && !isPkgSel(sel, "source") && slices.Contains(registryMethods, sel.Sel.Name):
				out = append(out, registryUse{call.Pos(), fd.Name.Name, "." + sel.Sel.Name})
			}
			return true
		})
	}
	return out
}
