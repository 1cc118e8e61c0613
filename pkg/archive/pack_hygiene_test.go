package archive

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestPackHonoursGitignore: what the root .gitignore ignores is not packed,
// like what .skillignore ignores; both apply together.
func TestPackHonoursGitignore(t *testing.T) {
	dir := t.TempDir()
	files := map[string]spec{
		".gitignore":            {body: "dist/\n*.tmp\n"},
		".skillignore":          {body: "notes.md\n"},
		"SKILL.md":              {body: "x"},
		"dist/bundle.js":        {body: "x"},
		"scratch.tmp":           {body: "x"},
		"notes.md":              {body: "x"},
		"scripts/run.py":        {body: "x"},
		"scripts/cache.tmp":     {body: "x"},
		"web/.gitignore":        {body: "/build\n"},
		"web/build/app.js":      {body: "x"},
		"web/src/build/keep.js": {body: "kept: /build is anchored at web/"},
	}
	writeTree(t, dir, sortedKeys(files), files)
	data, _ := packBytes(t, dir, PackOptions{})
	want := []string{".gitignore", ".skillignore", "SKILL.md", "scripts/", "scripts/run.py",
		"web/", "web/.gitignore", "web/src/", "web/src/build/", "web/src/build/keep.js"}
	if got := headerNames(tarHeaders(t, data)); !slices.Equal(got, want) {
		t.Fatalf("entries:\n got %q\nwant %q", got, want)
	}
}

// TestPackRefusesEnvFiles: an environment file is an error naming it and
// how to exclude it; once ignored, the rest packs; templates are packed.
func TestPackRefusesEnvFiles(t *testing.T) {
	for _, name := range []string{".env", ".env.local", "config/.env.production", ".envrc"} {
		dir := t.TempDir()
		files := map[string]spec{"SKILL.md": {body: "x"}, name: {body: "API_KEY=sk-live-123\n"}}
		writeTree(t, dir, sortedKeys(files), files)
		_, err := Pack(t.Context(), dir, &strings.Builder{}, PackOptions{})
		var ee *EntryError
		if !errors.Is(err, ErrSecretFile) || !errors.As(err, &ee) || ee.Entry != name || !strings.Contains(err.Error(), ".skillignore") {
			t.Fatalf("%s: err = %v, want ErrSecretFile naming it and .skillignore", name, err)
		}
		files[".skillignore"] = spec{body: name + "\n"}
		writeTree(t, dir, sortedKeys(files), files)
		if _, err := Pack(t.Context(), dir, &strings.Builder{}, PackOptions{}); err != nil {
			t.Fatalf("%s ignored: %v", name, err)
		}
	}
	dir := t.TempDir()
	files := map[string]spec{"SKILL.md": {body: "x"}, ".env.example": {body: "API_KEY=\n"}}
	writeTree(t, dir, sortedKeys(files), files)
	if _, err := Pack(t.Context(), dir, &strings.Builder{}, PackOptions{}); err != nil {
		t.Fatalf(".env.example: %v", err)
	}
}

// TestPackWarnings: node_modules, __pycache__, .venv and .DS_Store are
// packed and reported through PackOptions.Warn, each directory once.
func TestPackWarnings(t *testing.T) {
	dir := t.TempDir()
	files := map[string]spec{
		"SKILL.md":                  {body: "x"},
		"node_modules/a/index.js":   {body: "x"},
		"node_modules/b/index.js":   {body: "x"},
		"scripts/__pycache__/x.pyc": {body: "x"},
		".venv/bin/python":          {body: "x"},
		"assets/.DS_Store":          {body: "x"},
		"scripts/run.py":            {body: "x"},
	}
	writeTree(t, dir, sortedKeys(files), files)
	var got []string
	data, _ := packBytes(t, dir, PackOptions{Warn: func(w PackWarning) { got = append(got, w.Path) }})
	want := []string{".venv/", "assets/.DS_Store", "node_modules/", "scripts/__pycache__/"}
	if !slices.Equal(got, want) {
		t.Fatalf("warnings %q, want %q", got, want)
	}
	if names := headerNames(tarHeaders(t, data)); !slices.Contains(names, "node_modules/a/index.js") {
		t.Fatalf("warned paths must still be packed: %q", names)
	}
}
