package hosts

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestView: a host's own roots resolved in the table's order, a root that
// does not resolve shown with the reason, and an unknown id refused.
func TestView(t *testing.T) {
	ctx := context.Background()
	v, err := Builtin().View(ctx, "claude", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if v.ID != "claude" || len(v.UserDirs) != len(v.User) || !strings.HasPrefix(v.UserDirs[0], "/home/u/") || v.Reads == nil {
		t.Errorf("claude: %+v", v)
	}
	homeless, err := Builtin().View(ctx, "claude", Env{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if d := homeless.UserDirs[0]; !strings.HasPrefix(d, "(") {
		t.Errorf("without a home the user root reads %q, want the reason in parentheses", d)
	}
	if _, err := Builtin().View(ctx, "nosuchhost", env(nil)); !errors.Is(err, ErrUnknownHost) {
		t.Errorf("an unknown host: %v, want ErrUnknownHost", err)
	}
}

// TestViews: every host of the table by default, the ids asked for in
// their order, presence read in the environment given, and an unknown id
// refused.
func TestViews(t *testing.T) {
	ctx := context.Background()
	home, cwd := t.TempDir(), t.TempDir()
	e := Env{Home: home, Cwd: cwd}
	all, err := e.Views(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids := e.Table().IDs(); len(all) != len(ids) || all[0].ID != ids[0] {
		t.Fatalf("%d hosts, want the table's %d (%v)", len(all), len(ids), ids)
	}
	two, err := e.Views(ctx, []string{"codex", "claude"})
	if err != nil {
		t.Fatal(err)
	}
	if len(two) != 2 || two[0].ID != "codex" || two[1].ID != "claude" {
		t.Fatalf("asked codex, claude; got %+v", two)
	}
	for _, v := range two {
		if len(v.UserDirs) != len(v.User) || !strings.HasPrefix(v.UserDirs[0], home+string(filepath.Separator)) {
			t.Errorf("%s: user roots %v, want them under %s", v.ID, v.UserDirs, home)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if two, _ = e.Views(ctx, []string{"codex", "claude"}); !two[0].Present || two[0].PresentBy != filepath.Join(home, ".codex") || two[1].Present {
		t.Errorf("with ~/.codex alone: codex present %v by %q, claude present %v", two[0].Present, two[0].PresentBy, two[1].Present)
	}
	if _, err := e.Views(ctx, []string{"nosuchhost"}); !errors.Is(err, ErrUnknownHost) {
		t.Errorf("an unknown host: %v, want ErrUnknownHost", err)
	}
}
