package hosts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestBuiltinMatchesYAML: table.go is hosts.yaml, as go generate wrote it.
func TestBuiltinMatchesYAML(t *testing.T) {
	data, err := os.ReadFile("hosts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse(data, "hosts.yaml", true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(builtinHosts, want) {
		for i := range min(len(want), len(builtinHosts)) {
			if !reflect.DeepEqual(builtinHosts[i], want[i]) {
				t.Errorf("table.go's host %s differs from hosts.yaml's", builtinHosts[i].ID)
			}
		}
		t.Fatalf("table.go (%d hosts) is not hosts.yaml (%d hosts): run go generate ./hosts", len(builtinHosts), len(want))
	}
}

func TestBuiltin(t *testing.T) {
	tb := Builtin()
	ids := tb.IDs()
	if len(ids) < 20 {
		t.Fatalf("%d hosts, want at least 20", len(ids))
	}
	for _, want := range []string{"claude", "codex", "opencode", "gaia", "agents", "cursor", "gemini", "copilot", "windsurf", "goose", "amp", "cline", "roo", "kiro", "qwen", "continue", "openhands", "hermes", "openclaw", "zed"} {
		h, err := tb.Get(want)
		if err != nil {
			t.Errorf("%s: %v", want, err)
			continue
		}
		facts := map[string]bool{}
		for _, s := range h.Citations {
			facts[s.Fact] = true
			if s.Ref == "" {
				t.Errorf("%s: a source without ref", want)
			}
		}
		for _, f := range []string{"roots", "precedence"} {
			if !facts[f] {
				t.Errorf("%s: no source for %s", want, f)
			}
		}
	}
}

func env(vars map[string]string) Env {
	return Env{Home: "/home/u", Cwd: "/src/proj", Getenv: func(k string) string { return vars[k] }}
}

// TestEnvOverrides: each variable that moves a host's user root, with an
// absolute, a literal "~" and a relative value, moves the install root, a
// search root of that scope and (where it applies) the state root alike.
func TestEnvOverrides(t *testing.T) {
	tb := Builtin()
	cases := []struct {
		host, env, def, join string
	}{
		{"claude", "CLAUDE_CONFIG_DIR", "/home/u/.claude", "skills"},
		{"codex", "CODEX_HOME", "/home/u/.codex", "skills"},
		{"opencode", "XDG_CONFIG_HOME", "/home/u/.config", "opencode/skills"},
		{"gaia", "GAIA_CONFIG_DIR", "/home/u/.gaia", "skills"},
		// GEMINI_CLI_HOME replaces the home directory Gemini CLI puts
		// .gemini under (@google/gemini-cli 0.61.0 paths.ts homedir()).
		{"gemini", "GEMINI_CLI_HOME", "/home/u", ".gemini/skills"},
		{"copilot", "COPILOT_HOME", "/home/u/.copilot", "skills"},
	}
	for _, c := range cases {
		for _, v := range []struct{ value, base string }{
			{"", c.def},
			{"   ", c.def},
			{"/abs/dir", "/abs/dir"},
			// The hosts take a literal "~" as a directory name (observed).
			{"~/moved", "/src/proj/~/moved"},
			{"~", "/src/proj/~"},
			{"rel/dir", "/src/proj/rel/dir"},
			{"./rel", "/src/proj/rel"},
		} {
			e := env(map[string]string{c.env: v.value})
			want := filepath.Join(v.base, filepath.FromSlash(c.join))
			got, err := tb.RootDir(c.host, ScopeUser, e)
			if err != nil || got != want {
				t.Errorf("%s with %s=%q: install root %q, %v; want %q", c.host, c.env, v.value, got, err, want)
			}
			roots, err := tb.SearchRoots(c.host, e)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range roots {
				found = found || (r.Host == c.host && r.Scope == ScopeUser && r.Dir == want)
			}
			if !found {
				t.Errorf("%s with %s=%q: search roots %v do not read %s", c.host, c.env, v.value, roots, want)
			}
			if c.host != "opencode" {
				st, err := tb.StateRoot(c.host, e)
				if wantSt := filepath.Join(filepath.Dir(want), "state", "asf"); err != nil || st != wantSt {
					t.Errorf("%s with %s=%q: state root %q, %v; want %q", c.host, c.env, v.value, st, err, wantSt)
				}
			}
		}
	}
}

func TestSearchRootsMatchHosts(t *testing.T) {
	tb := Builtin()
	e := env(nil)
	got := func(id string) []string {
		roots, err := tb.SearchRoots(id, e)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range roots {
			out = append(out, string(r.Scope)+":"+r.Dir)
		}
		return out
	}
	// As the real hosts were seen to read them (see hosts.yaml sources).
	want := map[string][]string{
		"codex":    {"project:/src/proj/.codex/skills", "user:/home/u/.codex/skills", "user:/home/u/.agents/skills", "project:/src/proj/.agents/skills"},
		"opencode": {"project:/src/proj/.opencode/skills", "user:/home/u/.config/opencode/skills", "user:/home/u/.opencode/skills", "project:/src/proj/.claude/skills", "user:/home/u/.claude/skills", "project:/src/proj/.agents/skills", "user:/home/u/.agents/skills"},
		"claude":   {"user:/home/u/.claude/skills", "project:/src/proj/.claude/skills"},
		"gaia":     {"user:/home/u/.gaia/skills", "project:/src/proj/.claude/skills", "user:/home/u/.claude/skills"},
	}
	for id, w := range want {
		if g := got(id); strings.Join(g, " ") != strings.Join(w, " ") {
			t.Errorf("%s reads\n %v\nwant\n %v", id, g, w)
		}
	}
	// GAIA reads Claude's user root at ~/.claude whatever CLAUDE_CONFIG_DIR says.
	roots, _ := tb.SearchRoots("gaia", env(map[string]string{"CLAUDE_CONFIG_DIR": "/x"}))
	if roots[len(roots)-1].Dir != "/home/u/.claude/skills" {
		t.Errorf("gaia with CLAUDE_CONFIG_DIR: %v", roots)
	}
}

func TestNoProjectRoot(t *testing.T) {
	_, err := Builtin().RootDir("gaia", ScopeProject, env(nil))
	var npe *NoProjectRootError
	if !errors.As(err, &npe) || !errors.Is(err, ErrNoProjectRoot) || !strings.Contains(err.Error(), "deferred") {
		t.Fatalf("gaia project root: %v", err)
	}
}

func TestNoHome(t *testing.T) {
	e := Env{Cwd: "/w"}
	if _, err := Builtin().RootDir("claude", ScopeUser, e); !errors.Is(err, ErrNoHome) {
		t.Errorf("claude user root without home: %v", err)
	}
	if d, err := Builtin().RootDir("claude", ScopeProject, e); err != nil || d != "/w/.claude/skills" {
		t.Errorf("claude project root without home: %q %v", d, err)
	}
	e.Getenv = func(string) string { return "/abs" }
	if d, err := Builtin().RootDir("claude", ScopeUser, e); err != nil || d != "/abs/skills" {
		t.Errorf("claude user root from an absolute variable without home: %q %v", d, err)
	}
}

func TestUserFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "hosts.yaml")
	os.WriteFile(good, []byte(`hosts:
  - id: myagent
    name: My Agent
    user: [{env: MYAGENT_HOME, dir: ~/.myagent, join: skills}]
    project: [{dir: .myagent/skills}]
    search: [project, user, agents/project]
    duplicates: first-wins
    symlinks: unknown
    sources: [{fact: roots, ref: "my agent docs 1.0"}]
`), 0o644)
	e := env(map[string]string{EnvFile: good, "MYAGENT_HOME": "~/m"})
	os.WriteFile(good, []byte(strings.Replace(mustRead(t, good), "join: skills}", "join: skills, expand_tilde: true}", 1)), 0o644)
	tb, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := tb.RootDir("myagent", ScopeUser, e); err != nil || d != "/home/u/m/skills" {
		t.Errorf("added host root %q %v", d, err)
	}
	if h, _ := tb.Get("myagent"); h.Builtin {
		t.Error("a user host is marked builtin")
	}
	for name, body := range map[string]string{
		"redefine": "hosts:\n  - {id: claude, name: C, user: [{dir: ~/c}], project: [{dir: c}], search: [user], duplicates: all, symlinks: unknown, sources: [{fact: roots, ref: x}]}\n",
		"unknown":  "hosts:\n  - {id: x, name: X, colour: red}\n",
		"noroots":  "hosts:\n  - {id: x, name: X, search: [user], duplicates: all, symlinks: unknown, sources: [{fact: roots, ref: x}]}\n",
		"badref":   "hosts:\n  - {id: x, name: X, user: [{dir: ~/x}], project: [{dir: x}], search: [nope/user], duplicates: all, symlinks: unknown, sources: [{fact: roots, ref: x}]}\n",
		"absproj":  "hosts:\n  - {id: x, name: X, user: [{dir: ~/x}], project: [{dir: /x}], search: [user], duplicates: all, symlinks: unknown, sources: [{fact: roots, ref: x}]}\n",
	} {
		p := filepath.Join(dir, name+".yaml")
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := Load(env(map[string]string{EnvFile: p})); !errors.Is(err, ErrInvalidTable) {
			t.Errorf("%s: %v, want ErrInvalidTable", name, err)
		}
	}
	if _, err := Load(env(map[string]string{EnvFile: filepath.Join(dir, "missing.yaml")})); err == nil {
		t.Error("a missing $SKILLPM_HOSTS file is not an error")
	}
	if tb, err := Load(Env{Home: dir, Getenv: func(string) string { return "" }}); err != nil || tb != Builtin() {
		t.Errorf("no user file: %v", err)
	}
}

func TestSharing(t *testing.T) {
	tb := Builtin()
	e := env(nil)
	got := strings.Join(tb.Sharing("/src/proj/.agents/skills", e), ",")
	for _, id := range []string{"agents", "amp", "cline", "copilot", "cursor", "gemini", "zed"} {
		if !strings.Contains(","+got+",", ","+id+",") {
			t.Errorf(".agents/skills shared by %s, missing %s", got, id)
		}
	}
	readers := strings.Join(tb.Readers("/home/u/.agents/skills", e), ",")
	for _, id := range []string{"codex", "opencode", "agents"} {
		if !strings.Contains(","+readers+",", ","+id+",") {
			t.Errorf("~/.agents/skills read by %s, missing %s", readers, id)
		}
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestQwenHomeExpandsTilde: Qwen Code, unlike the hosts above, expands a
// leading "~" of QWEN_HOME (@qwen-code/qwen-code 0.15.10 Storage.resolvePath)
// and resolves a relative value against the working directory; the
// ~/.agents/skills it also reads stays under the real home.
func TestQwenHomeExpandsTilde(t *testing.T) {
	tb := Builtin()
	for _, c := range []struct{ value, want string }{
		{"", "/home/u/.qwen/skills"},
		{"/abs/q", "/abs/q/skills"},
		{"~/q", "/home/u/q/skills"},
		{"~", "/home/u/skills"},
		{"~q", "/src/proj/~q/skills"},
		{"rel/q", "/src/proj/rel/q/skills"},
	} {
		e := env(map[string]string{"QWEN_HOME": c.value})
		if got, err := tb.RootDir("qwen", ScopeUser, e); err != nil || got != c.want {
			t.Errorf("QWEN_HOME=%q: install root %q, %v; want %q", c.value, got, err, c.want)
		}
		roots := searchDirs(t, tb, "qwen", e)
		want := []string{"project:/src/proj/.qwen/skills", "project:/src/proj/.agents/skills", "user:" + c.want, "user:/home/u/.agents/skills"}
		if !slices.Equal(roots, want) {
			t.Errorf("QWEN_HOME=%q: qwen reads\n %v\nwant\n %v", c.value, roots, want)
		}
	}
}

// TestHostEnvRules: the environment rules read from the hosts' own code or
// observed with their CLIs (hosts.yaml sources), each with an absolute, a
// literal "~" and a relative value.
func TestHostEnvRules(t *testing.T) {
	tb := Builtin()
	cases := []struct {
		name, host string
		vars       map[string]string
		want       []string
	}{
		// Amp reads the literal ~/.config paths whatever XDG_CONFIG_HOME says.
		{"amp default", "amp", nil, []string{
			"user:/home/u/.config/agents/skills", "user:/home/u/.agents/skills", "user:/home/u/.config/amp/skills",
			"project:/src/proj/.agents/skills", "project:/src/proj/.claude/skills", "user:/home/u/.claude/skills"}},
		{"amp xdg absolute", "amp", map[string]string{"XDG_CONFIG_HOME": "/x"}, []string{
			"user:/home/u/.config/agents/skills", "user:/home/u/.agents/skills", "user:/home/u/.config/amp/skills",
			"project:/src/proj/.agents/skills", "project:/src/proj/.claude/skills", "user:/home/u/.claude/skills"}},
		{"amp xdg relative", "amp", map[string]string{"XDG_CONFIG_HOME": "rel"}, []string{
			"user:/home/u/.config/agents/skills", "user:/home/u/.agents/skills", "user:/home/u/.config/amp/skills",
			"project:/src/proj/.agents/skills", "project:/src/proj/.claude/skills", "user:/home/u/.claude/skills"}},
		// Gemini CLI: GEMINI_CLI_HOME moves both .gemini/skills and
		// .agents/skills of the user scope; project roots first.
		{"gemini default", "gemini", nil, []string{
			"project:/src/proj/.agents/skills", "project:/src/proj/.gemini/skills", "user:/home/u/.agents/skills", "user:/home/u/.gemini/skills"}},
		{"gemini absolute", "gemini", map[string]string{"GEMINI_CLI_HOME": "/g"}, []string{
			"project:/src/proj/.agents/skills", "project:/src/proj/.gemini/skills", "user:/g/.agents/skills", "user:/g/.gemini/skills"}},
		{"gemini tilde", "gemini", map[string]string{"GEMINI_CLI_HOME": "~/g"}, []string{
			"project:/src/proj/.agents/skills", "project:/src/proj/.gemini/skills", "user:/src/proj/~/g/.agents/skills", "user:/src/proj/~/g/.gemini/skills"}},
		{"gemini relative", "gemini", map[string]string{"GEMINI_CLI_HOME": "rel/g"}, []string{
			"project:/src/proj/.agents/skills", "project:/src/proj/.gemini/skills", "user:/src/proj/rel/g/.agents/skills", "user:/src/proj/rel/g/.gemini/skills"}},
		// Copilot: COPILOT_HOME moves its personal root and then it reads
		// neither ~/.copilot/skills nor ~/.agents/skills.
		{"copilot default", "copilot", nil, []string{
			"project:/src/proj/.github/skills", "project:/src/proj/.agents/skills", "project:/src/proj/.claude/skills",
			"user:/home/u/.copilot/skills", "user:/home/u/.agents/skills"}},
		{"copilot absolute", "copilot", map[string]string{"COPILOT_HOME": "/c"}, []string{
			"project:/src/proj/.github/skills", "project:/src/proj/.agents/skills", "project:/src/proj/.claude/skills", "user:/c/skills"}},
		{"copilot tilde", "copilot", map[string]string{"COPILOT_HOME": "~/c"}, []string{
			"project:/src/proj/.github/skills", "project:/src/proj/.agents/skills", "project:/src/proj/.claude/skills", "user:/src/proj/~/c/skills"}},
		{"copilot relative", "copilot", map[string]string{"COPILOT_HOME": "rel/c"}, []string{
			"project:/src/proj/.github/skills", "project:/src/proj/.agents/skills", "project:/src/proj/.claude/skills", "user:/src/proj/rel/c/skills"}},
	}
	for _, c := range cases {
		if got := searchDirs(t, tb, c.host, env(c.vars)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %s reads\n %v\nwant\n %v", c.name, c.host, got, c.want)
		}
	}
	// Amp installs where it reads, whatever XDG_CONFIG_HOME says.
	if d, err := tb.RootDir("amp", ScopeUser, env(map[string]string{"XDG_CONFIG_HOME": "/x"})); err != nil || d != "/home/u/.config/agents/skills" {
		t.Errorf("amp user root with XDG_CONFIG_HOME=/x: %q %v", d, err)
	}
	// The four read ~/.agents/skills (Copilot only while COPILOT_HOME is unset).
	readers := tb.Readers("/home/u/.agents/skills", env(nil))
	for _, id := range []string{"amp", "copilot", "gemini", "qwen"} {
		if !slices.Contains(readers, id) {
			t.Errorf("~/.agents/skills is read by %v, missing %s", readers, id)
		}
	}
	if slices.Contains(tb.Readers("/home/u/.agents/skills", env(map[string]string{"COPILOT_HOME": "/c"})), "copilot") {
		t.Error("copilot reads ~/.agents/skills with COPILOT_HOME set")
	}
	h, _ := tb.Get("gemini")
	if !strings.Contains(fmt.Sprint(h.Citations), "trusted folder") {
		t.Error("gemini has no note on trusted folders")
	}
}

func searchDirs(t *testing.T, tb *Table, id string, e Env) []string {
	t.Helper()
	roots, err := tb.SearchRoots(id, e)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range roots {
		out = append(out, string(r.Scope)+":"+r.Dir)
	}
	return out
}
