package install

import (
	"errors"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// TestNotInstalledAnywhere: names no host's roots hold are ErrNotInstalled
// (not found), and the message counts the roots beyond the first few
// instead of naming every one.
func TestNotInstalledAnywhere(t *testing.T) {
	base := t.TempDir()
	env := Env{Home: filepath.Join(base, "home"), Cwd: filepath.Join(base, "proj"), Getenv: func(string) string { return "" }}
	err := NotInstalledAnywhere(env, []string{"notes", "lint"})
	if _, ok := errors.AsType[*NotInstalledError](err); !ok || !errors.Is(err, ErrNotInstalled) || errdef.ClassOf(err) != errdef.NotFound {
		t.Fatalf("%v, want a *NotInstalledError wrapping ErrNotInstalled", err)
	}
	n := len(AllSearchRoots(env))
	if n <= maxRootsShown {
		t.Fatalf("%d roots: the table is smaller than the test assumes", n)
	}
	if !regexp.MustCompile(`^notes, lint is not installed in any host's roots \(looked in \d+ roots: .* and \d+ more\)$`).MatchString(err.Error()) {
		t.Errorf("message %q", err)
	}
}
