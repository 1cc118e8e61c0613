package asf

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestResolveState(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	repo := filepath.Join(work, "repo")
	sub := filepath.Join(repo, "pkg", "x")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(work, "linked")
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(linked, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	claude := filepath.Join(home, ".claude", "state", "asf")
	cases := []struct {
		name  string
		so    StateOptions
		wd    string
		vars  map[string]string
		path  string
		scope string
		args  []string
	}{
		{"explicit", StateOptions{Path: "st.json", Session: "s"}, work, map[string]string{EnvState: "/x"}, filepath.Join(work, "st.json"), ScopeExplicit, []string{"--state", filepath.Join(work, "st.json")}},
		{"session", StateOptions{Session: "abc-1"}, repo, map[string]string{EnvState: "/x"}, filepath.Join(claude, "abc-1.json"), ScopeSession, []string{"--session", "abc-1"}},
		{"session codex", StateOptions{Session: "abc", Host: "codex"}, work, map[string]string{"CODEX_HOME": "/opt/codex"}, "/opt/codex/state/asf/abc.json", ScopeSession, []string{"--session", "abc", "--host", "codex"}},
		{"session opencode", StateOptions{Session: "abc", Host: "opencode"}, work, nil, filepath.Join(home, ".local/share/opencode/state/asf/abc.json"), ScopeSession, []string{"--session", "abc", "--host", "opencode"}},
		{"session root", StateOptions{Session: "abc", Root: "/r"}, work, nil, "/r/abc.json", ScopeSession, []string{"--session", "abc", "--state-root", "/r"}},
		{"env state", StateOptions{}, repo, map[string]string{EnvState: "~/s.json", EnvSession: "ignored"}, filepath.Join(home, "s.json"), ScopeEnv, nil},
		{"env session", StateOptions{}, repo, map[string]string{EnvSession: "e1"}, filepath.Join(claude, "e1.json"), ScopeSession, []string{"--session", "e1"}},
		{"worktree", StateOptions{}, sub, nil, filepath.Join(repo, ".workflow", "state.json"), ScopeWorktree, nil},
		{"linked worktree", StateOptions{}, linked, nil, filepath.Join(linked, ".workflow", "state.json"), ScopeWorktree, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc, err := ResolveState(c.so, Env{Home: home, Cwd: c.wd, Getenv: mapEnv(c.vars)})
			if err != nil {
				t.Fatal(err)
			}
			if loc.Path != c.path || loc.Scope != c.scope || !reflect.DeepEqual(loc.Args, c.args) {
				t.Errorf("got %s %s %v\nwant %s %s %v", loc.Path, loc.Scope, loc.Args, c.path, c.scope, c.args)
			}
		})
	}

	// Outside a worktree and without a session: one file per directory,
	// the same for every command run there.
	env := Env{Home: home, Cwd: work}
	a, err := ResolveState(StateOptions{}, env)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ResolveState(StateOptions{}, env)
	other, _ := ResolveState(StateOptions{}, Env{Home: home, Cwd: home})
	if a.Scope != ScopeWorkspace || a.Path != b.Path || a.Path == other.Path || filepath.Dir(a.Path) != claude ||
		!strings.HasPrefix(filepath.Base(a.Path), "workspace-") {
		t.Errorf("workspace state: %s %s, other %s", a.Scope, a.Path, other.Path)
	}
}

func TestResolveStateRejects(t *testing.T) {
	env := Env{Home: t.TempDir(), Cwd: t.TempDir()}
	for _, s := range []string{"../x", "a/b", `a\b`, ".hidden", "a..b", strings.Repeat("x", 129), "a b", "é"} {
		if _, err := ResolveState(StateOptions{Session: s}, env); !errors.Is(err, ErrInvalidSession) {
			t.Errorf("session %q: %v", s, err)
		}
	}
	env.Getenv = mapEnv(map[string]string{EnvSession: "../../etc/passwd"})
	if _, err := ResolveState(StateOptions{}, env); !errors.Is(err, ErrInvalidSession) || !strings.Contains(err.Error(), EnvSession) {
		t.Errorf("$ASF_SESSION traversal: %v", err)
	}
	if _, err := ResolveState(StateOptions{Session: "s", Host: "vim"}, Env{}); !errors.Is(err, ErrUnknownHost) {
		t.Errorf("unknown host: %v", err)
	}
	for _, s := range []string{"8f3c2a1e-5b7d-4c9e-a2f1-0d6b9e4c7a53", "demo", "a.b_c-1", strings.Repeat("a", 128)} {
		if !ValidSession(s) {
			t.Errorf("ValidSession(%q) = false", s)
		}
	}
	for _, s := range []string{"", strings.Repeat("a", 129), "-a", ".a", "a..b", "a/b", "a b"} {
		if ValidSession(s) {
			t.Errorf("ValidSession(%q) = true", s)
		}
	}
}

func TestSearchPath(t *testing.T) {
	env := Env{Home: "/h", Cwd: "/w", Getenv: mapEnv(map[string]string{
		EnvSkillsRoot: "/a:rel", "CODEX_HOME": "~/cx", "GAIA_CONFIG_DIR": "g", "CLAUDE_CONFIG_DIR": "/cc",
	})}
	got := SearchPath(nil, env)
	pos := map[string]int{}
	for i, d := range got {
		if _, dup := pos[d]; dup {
			t.Errorf("%s twice in %v", d, got)
		}
		pos[d] = i
	}
	// Explicit roots first; every project root before every user root;
	// the hosts' variables moved with "~" and relative values expanded;
	// GAIA has no project root (amd/gaia 0.23.0 defers it).
	if got[0] != "/a" || got[1] != "/w/rel" {
		t.Errorf("SearchPath does not start with $ASF_SKILLS_ROOT: %v", got)
	}
	for _, d := range []string{"/w/.agents/skills", "/w/.claude/skills", "/w/.codex/skills", "/w/.opencode/skills", "/h/.agents/skills", "/cc/skills", "/w/~/cx/skills", "/w/g/skills", "/h/.config/opencode/skills"} {
		if _, ok := pos[d]; !ok {
			t.Errorf("SearchPath lacks %s: %v", d, got)
		}
	}
	for _, d := range []string{"/w/skills", "/w/.gaia/skills", "/h/.claude/skills", "/h/.codex/skills", "/h/.gaia/skills"} {
		if _, ok := pos[d]; ok {
			t.Errorf("SearchPath has %s: %v", d, got)
		}
	}
	if pos["/w/.opencode/skills"] > pos["/h/.agents/skills"] {
		t.Errorf("a user root before a project root: %v", got)
	}
	// Explicit roots replace $ASF_SKILLS_ROOT; duplicates go.
	got = SearchPath([]string{"/x", "/w/.claude/skills"}, env)
	if got[0] != "/x" || got[1] != "/w/.claude/skills" || slices.Contains(got[2:], "/w/.claude/skills") || !strings.HasPrefix(got[2], "/w/") || slices.Contains(got, "/a") {
		t.Errorf("SearchPath with roots: %v", got)
	}
	if r, err := StateRoot("gaia", env); err != nil || r != "/w/g/state/asf" {
		t.Errorf("gaia state root: %s %v", r, err)
	}
	env.Getenv = nil
	if r, err := StateRoot("gaia", env); err != nil || r != "/h/.gaia/state/asf" {
		t.Errorf("gaia state root: %s %v", r, err)
	}
}
