package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/asf"
	"github.com/skillpm/skillpm/install"
)

// TestASFRootsMatchInstall checks that the runner looks for skills in
// exactly the roots install writes to, with and without the hosts'
// environment variables (absolute, "~" and relative values). The order
// differs on purpose: the runner puts every project root before every user
// root.
func TestASFRootsMatchInstall(t *testing.T) {
	for _, vars := range []map[string]string{
		{},
		{"CODEX_HOME": "/codex-home", "GAIA_CONFIG_DIR": "/gaia-config"},
		{"CODEX_HOME": "~/codex", "GAIA_CONFIG_DIR": "~/gaia", "CLAUDE_CONFIG_DIR": "rel/claude", "XDG_CONFIG_HOME": "~"},
	} {
		getenv := func(k string) string { return vars[k] }
		var want []string
		for _, r := range install.AllSearchRoots(install.Env{Home: "/users/u", Cwd: "/srv/project", Getenv: getenv}) {
			if r.Scope == install.ScopeProject && !strings.HasPrefix(r.Dir, "/srv/project/.") {
				continue // a bare project root (OpenClaw's skills, Eve's agent/skills, AstrBot's data/skills): the runner leaves it out on purpose
			}
			want = append(want, r.Dir)
		}
		got := asf.DefaultSearchPath(asf.Env{Home: "/users/u", Cwd: "/srv/project", Getenv: getenv})
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("env %v:\nasf     %v\ninstall %v", vars, got, want)
		}
		if !slices.Equal(asf.HostNames(), hostNames()) {
			t.Errorf("asf hosts %v, install hosts %v", asf.HostNames(), hostNames())
		}
	}
}

func hostNames() []string {
	var out []string
	for _, h := range install.Hosts() {
		out = append(out, string(h))
	}
	return out
}
