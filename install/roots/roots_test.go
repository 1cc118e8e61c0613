package roots_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
)

// testEnv is a home and a project folder under a temporary directory,
// reading no variables.
func testEnv(t *testing.T) hosts.Env {
	t.Helper()
	dir := t.TempDir()
	env := hosts.Env{Home: filepath.Join(dir, "home"), Cwd: filepath.Join(dir, "project")}
	for _, d := range []string{env.Home, env.Cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// holdSkill writes receipts holding one skill into host h's root at
// scope s, as an install would leave them.
func holdSkill(t *testing.T, env hosts.Env, h install.HostID, s install.Scope) string {
	t.Helper()
	dir, err := install.RootDir(h, s, env)
	if err != nil {
		t.Fatal(err)
	}
	rec := &install.Receipts{Format: 1}
	rec.Put(install.Record{Name: "notes", Version: "1.0.0"})
	data, err := rec.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".skillpm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".skillpm", "installed.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPlacement: --link (Target.Placement) wins over the manifest's
// link:, which wins over the configuration's (Target.Link); with none of them an
// install keeps each root's mode.
func TestPlacement(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name       string
		t          roots.Target
		m          *resolve.Manifest
		configured *bool
		want       install.Placement
	}{
		{"nothing said", roots.Target{}, nil, nil, install.PlaceAuto},
		{"configured", roots.Target{}, nil, &yes, install.PlaceLink},
		{"configured copies", roots.Target{}, nil, &no, install.PlaceCopy},
		{"manifest over configuration", roots.Target{}, &resolve.Manifest{Link: &no}, &yes, install.PlaceCopy},
		{"manifest without link:", roots.Target{}, &resolve.Manifest{}, &yes, install.PlaceLink},
		{"flag over manifest", roots.Target{Placement: install.PlaceLink}, &resolve.Manifest{Link: &no}, &no, install.PlaceLink},
	}
	for _, c := range cases {
		c.t.Link = c.configured
		if got := roots.Placement(c.t, c.m); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestInvalidTarget: what the hosts table cannot place is
// ErrInvalidTarget, of class usage, with the table's own error and
// message underneath.
func TestInvalidTarget(t *testing.T) {
	env := testEnv(t)
	m := &resolve.Manifest{File: filepath.Join(env.Cwd, resolve.ManifestFile), Dir: env.Cwd, Hosts: []string{"nosuch"}}
	cases := []struct {
		name  string
		err   error
		cause error
		text  string
	}{
		{"searched, unknown scope", second(roots.Searched(env, roots.Target{Scope: "galaxy"})), hosts.ErrUnknownScope, `"galaxy": use user or project`},
		{"searched, unknown host", second(roots.Searched(env, roots.Target{Hosts: []string{"claude,nosuch"}})), hosts.ErrUnknownHost, "nosuch"},
		{"placed, unknown scope", second(roots.Placed(env, roots.Target{Scope: "galaxy"})), hosts.ErrUnknownScope, "galaxy"},
		{"project, the manifest's host", second(roots.Project(env, roots.Target{}, m)), hosts.ErrUnknownHost, m.File + ": "},
	}
	for _, c := range cases {
		if !errors.Is(c.err, roots.ErrInvalidTarget) || !errors.Is(c.err, c.cause) {
			t.Errorf("%s: %v, want ErrInvalidTarget over %v", c.name, c.err, c.cause)
			continue
		}
		if errdef.ClassOf(c.err) != errdef.Usage {
			t.Errorf("%s: class %s, want usage", c.name, errdef.ClassOf(c.err))
		}
		if msg := c.err.Error(); !strings.Contains(msg, c.text) || strings.Contains(msg, "invalid target") {
			t.Errorf("%s: message %q, want the table's, with %q", c.name, msg, c.text)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestSearched: without a target every host's own roots; a scope keeps
// that scope; a host its whole view; custom roots alone.
func TestSearched(t *testing.T) {
	env := testEnv(t)
	got, err := roots.Searched(env, roots.Target{})
	if err != nil || !reflect.DeepEqual(got, install.AllSearchRoots(env)) {
		t.Errorf("no target: %v (%v), want every host's own roots", got, err)
	}
	got, err = roots.Searched(env, roots.Target{Scope: "user"})
	if err != nil || len(got) == 0 {
		t.Fatalf("user scope: %v (%v)", got, err)
	}
	for _, r := range got {
		if r.Scope != install.ScopeUser {
			t.Errorf("user scope: %v read", r)
		}
	}
	view, err := install.SearchRoots(install.HostCodex, env)
	if err != nil {
		t.Fatal(err)
	}
	got, err = roots.Searched(env, roots.Target{Hosts: []string{"codex"}})
	if err != nil || !reflect.DeepEqual(got, view) {
		t.Errorf("codex: %v (%v), want its view %v", got, err, view)
	}
	custom := filepath.Join(env.Cwd, "mine")
	got, err = roots.Searched(env, roots.Target{Roots: []string{custom}, Hosts: []string{"claude"}})
	if want := []install.Root{{Host: "custom", Scope: "custom", Dir: custom}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("a custom root: %v (%v), want %v", got, err, want)
	}
}

// TestDefaultHost: the configured host, else the one host holding
// skills, else install.DefaultHost; several holding is
// *SeveralHostsError, naming them sorted.
func TestDefaultHost(t *testing.T) {
	env := testEnv(t)
	if h, err := roots.DefaultHost(env, ""); err != nil || h != install.DefaultHost {
		t.Errorf("nothing installed: %s (%v), want %s", h, err, install.DefaultHost)
	}
	holdSkill(t, env, install.HostCodex, install.ScopeUser)
	if h, err := roots.DefaultHost(env, ""); err != nil || h != install.HostCodex {
		t.Errorf("skills for codex: %s (%v), want codex", h, err)
	}
	holdSkill(t, env, install.HostClaude, install.ScopeProject)
	_, err := roots.DefaultHost(env, "")
	var several *roots.SeveralHostsError
	if !errors.As(err, &several) || !reflect.DeepEqual(several.Hosts, []string{"claude", "codex"}) {
		t.Fatalf("skills for claude and codex: %v, want *SeveralHostsError naming both", err)
	}
	if err.Error() != "several hosts hold skills: claude, codex" || errdef.ClassOf(err) != errdef.Usage {
		t.Errorf("%q, class %s", err, errdef.ClassOf(err))
	}
	if h, err := roots.DefaultHost(env, install.HostGaia); err != nil || h != install.HostGaia {
		t.Errorf("configured gaia: %s (%v)", h, err)
	}
}

// TestHolding: without a target, the roots whose receipts hold the
// names, searchedAll; with one, the roots it names.
func TestHolding(t *testing.T) {
	env := testEnv(t)
	dir := holdSkill(t, env, install.HostClaude, install.ScopeUser)
	got, all, err := roots.Holding(env, roots.Target{}, []string{"notes"})
	if err != nil || !all || len(got) != 1 || got[0].Dir != dir {
		t.Errorf("notes: %v, %t (%v), want %s searched from all", got, all, err, dir)
	}
	got, all, err = roots.Holding(env, roots.Target{}, []string{"other"})
	if err != nil || !all || len(got) != 0 {
		t.Errorf("other: %v, %t (%v), want none of all", got, all, err)
	}
	got, all, err = roots.Holding(env, roots.Target{Hosts: []string{"codex"}}, []string{"notes"})
	want, _ := install.RootDir(install.HostCodex, install.ScopeUser, env)
	if err != nil || all || len(got) != 1 || got[0].Dir != want {
		t.Errorf("codex named: %v, %t (%v), want %s", got, all, err, want)
	}
}

// TestProject: a project's roots are its manifest's hosts at its scope,
// under the manifest's directory wherever the program runs; a target
// overrides both.
func TestProject(t *testing.T) {
	env := testEnv(t)
	proj := filepath.Join(env.Cwd, "sub")
	m := &resolve.Manifest{File: filepath.Join(proj, resolve.ManifestFile), Dir: proj, Hosts: []string{"claude"}}
	p, err := roots.Project(env, roots.Target{}, m)
	if want := filepath.Join(proj, ".claude", "skills"); err != nil || len(p.Roots) != 1 || p.Roots[0].Dir != want {
		t.Fatalf("%v (%v), want %s", p, err, want)
	}
	p, err = roots.Project(env, roots.Target{Hosts: []string{"codex"}, Scope: "user"}, m)
	want, _ := install.RootDir(install.HostCodex, install.ScopeUser, env)
	if err != nil || len(p.Roots) != 1 || p.Roots[0].Dir != want {
		t.Errorf("codex at user scope: %v (%v), want %s", p, err, want)
	}
	for file, scope := range map[string]install.Scope{
		resolve.ManifestFile:      install.ScopeProject,
		resolve.AgentManifestFile: install.ScopeUser,
		"gaia-agent.yml":          install.ScopeUser,
	} {
		if got := roots.ProjectScope(&resolve.Manifest{File: filepath.Join(proj, file)}); got != scope {
			t.Errorf("%s: scope %s, want %s", file, got, scope)
		}
	}
	if got := roots.ProjectScope(&resolve.Manifest{File: resolve.AgentManifestFile, Scope: "project"}); got != install.ScopeProject {
		t.Errorf("scope: project as written: %s", got)
	}
}

// TestPlaced: without hosts, def's roots at user scope, else
// install.DefaultHost's; named hosts are read comma-separated, each once.
func TestPlaced(t *testing.T) {
	env := testEnv(t)
	rootOf := func(h install.HostID, s install.Scope) string {
		d, err := install.RootDir(h, s, env)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	cases := []struct {
		name string
		t    roots.Target
		def  install.HostID
		want []string
	}{
		{"def", roots.Target{}, install.HostClaude, []string{rootOf(install.HostClaude, install.ScopeUser)}},
		{"no def", roots.Target{}, "", []string{rootOf(install.DefaultHost, install.ScopeUser)}},
		{"hosts at project scope", roots.Target{Hosts: []string{"claude,codex", "claude"}, Scope: "project"}, install.HostGaia,
			[]string{rootOf(install.HostClaude, install.ScopeProject), rootOf(install.HostCodex, install.ScopeProject)}},
	}
	for _, c := range cases {
		c.t.DefaultHost = c.def
		p, err := roots.Placed(env, c.t)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for _, r := range p.Roots {
			got = append(got, r.Dir)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestGiven checks that roots given as they are win over every other
// choice of the target, in every rule that picks roots, and come back
// with their host and scope unchanged.
func TestGiven(t *testing.T) {
	env := testEnv(t)
	given := []install.Root{{Host: install.HostGaia, Scope: install.ScopeUser, Dir: filepath.Join(env.Home, "given")}}
	tg := roots.Target{Hosts: []string{"claude"}, Scope: "project", Roots: []string{filepath.Join(env.Home, "custom")}, Given: given}
	m := &resolve.Manifest{File: filepath.Join(env.Cwd, resolve.ManifestFile), Dir: env.Cwd}
	if !tg.NamesRoots() || !(roots.Target{Given: given}).NamesRoots() || (roots.Target{Hosts: []string{"claude"}, Scope: "project"}).NamesRoots() {
		t.Error("NamesRoots: want true with given or custom roots, false with hosts and a scope alone")
	}
	p, err := roots.Placed(env, tg)
	if err != nil || !reflect.DeepEqual(p.Roots, given) {
		t.Errorf("Placed = %v, %v; want the given roots", p, err)
	}
	held, all, err := roots.Holding(env, tg, []string{"x"})
	if err != nil || all || !reflect.DeepEqual(held, given) {
		t.Errorf("Holding = %v, %v, %v; want the given roots, not a search of all", held, all, err)
	}
	searched, err := roots.Searched(env, tg)
	if err != nil || !reflect.DeepEqual(searched, given) {
		t.Errorf("Searched = %v, %v; want the given roots", searched, err)
	}
	pp, err := roots.Project(env, tg, m)
	if err != nil || !reflect.DeepEqual(pp.Roots, given) {
		t.Errorf("Project = %v, %v; want the given roots", pp, err)
	}
}
