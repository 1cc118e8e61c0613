package depcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// goFile is one non-test Go file of the module, parsed.
type goFile struct {
	// Rel is the file's path from the module root, slash-separated; Pkg
	// its folder.
	Rel, Pkg string
	File     *ast.File
}

// moduleFiles parses every non-test Go file of the module with mode,
// leaving out testdata, dot folders and the folders skipDir names (by
// their path from the root). It fails t when it reads fewer than min
// files: a walk that finds nothing checks nothing.
func moduleFiles(t *testing.T, mode parser.Mode, min int, skipDir func(rel string) bool) (*token.FileSet, []goFile) {
	t.Helper()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var out []goFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".") || skipDir != nil && skipDir(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		out = append(out, goFile{Rel: rel, Pkg: filepath.ToSlash(filepath.Dir(rel)), File: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < min {
		t.Fatalf("read %d files; the walk is broken", len(out))
	}
	return fset, out
}
