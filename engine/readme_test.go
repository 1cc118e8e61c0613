package engine_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeProgramBuilds: the Go program in the README's "As a Go
// library" section compiles against this package, and its main stays
// under 15 lines.
func TestReadmeProgramBuilds(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, "## As a Go library")
	if i < 0 {
		t.Fatal(`README.md has no "## As a Go library" section`)
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(text[i:])
	if m == nil {
		t.Fatal("the library section has no Go block")
	}
	prog := m[1]
	body := prog[strings.Index(prog, "func main() {"):]
	if n := strings.Count(strings.TrimSpace(body), "\n") - 1; n >= 15 {
		t.Errorf("main has %d lines; the promise is under 15", n)
	}
	// Inside the module, so that the import resolves to this tree.
	dir, err := os.MkdirTemp(".", ".readme-program-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "vet", "./"+filepath.Base(dir))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the README's program: %v\n%s", err, out)
	}
}

// TestReadmeProgramIsExample: the README's main, its Options literal read
// as opts, is Example_readme's program line for line, so the program the
// README shows is the one `go test` runs against an embedded registry.
func TestReadmeProgramIsExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	m := regexp.MustCompile("(?s)```go\n.*?func main\\(\\) \\{\n(.*?)\n\\}\n```").FindStringSubmatch(text[strings.Index(text, "## As a Go library"):])
	if m == nil {
		t.Fatal("the library section has no Go block with a main")
	}
	want := regexp.MustCompile(`engine\.Options\{[^}]*\}`).ReplaceAllString(m[1], "opts")
	if strings.Count(m[1], "engine.Options{") != 1 {
		t.Fatalf("the README's main opens the engine %d times with an Options literal; want once", strings.Count(m[1], "engine.Options{"))
	}
	src, err := os.ReadFile("example_readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	ex := string(src)
	i, j := strings.Index(ex, "\t// The README's program.\n"), strings.Index(ex, "\t// Output:")
	if i < 0 || j < i {
		t.Fatal("example_readme_test.go has no \"// The README's program.\" ... \"// Output:\" span")
	}
	got := strings.TrimSuffix(ex[i+len("\t// The README's program.\n"):j], "\n")
	if got != want {
		t.Errorf("Example_readme's program is not the README's:\n--- README (Options literal as opts)\n%s\n--- example\n%s", want, got)
	}
}
