package hosts

import (
	"context"
	"errors"
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
