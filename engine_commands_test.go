package skillpm_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm"
	"github.com/skillpm/skillpm/hosts"
)

// TestHosts: every host of the table by default, the ids asked for in
// their order, roots resolved in the environment given (or the reason
// they are not), and an unknown id refused.
func TestHosts(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	env := hosts.Env{Home: home, Cwd: cwd}
	all, err := skillpm.Hosts(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids := env.Table().IDs(); len(all) != len(ids) || all[0].ID != ids[0] {
		t.Fatalf("%d hosts, want the table's %d (%v)", len(all), len(ids), ids)
	}
	two, err := skillpm.Hosts(env, []string{"codex", "claude"})
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
	homeless, err := skillpm.Hosts(hosts.Env{Cwd: cwd}, []string{"claude"})
	if err != nil {
		t.Fatal(err)
	}
	if d := homeless[0].UserDirs[0]; !strings.HasPrefix(d, "(") {
		t.Errorf("without a home the user root shows %q, want the reason in parentheses", d)
	}
	if _, err := skillpm.Hosts(env, []string{"nosuchhost"}); !errors.Is(err, hosts.ErrUnknownHost) {
		t.Errorf("an unknown host: %v, want ErrUnknownHost", err)
	}
}
