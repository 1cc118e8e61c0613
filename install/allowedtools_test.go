package install

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/tiers"
)

// publishRaw publishes (unsigned: experimental) the skill whose SKILL.md
// is given.
func (r *testRegistry) publishRaw(name, skillMD string) {
	r.t.Helper()
	dir := filepath.Join(r.work, "raw-"+name, name)
	if err := writeFiles(dir, map[string]string{"SKILL.md": skillMD}); err != nil {
		r.t.Fatal(err)
	}
	a, err := registry.Build(context.Background(), dir, registry.BuildOptions{NoVCS: true})
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.client.Publish(context.Background(), r.client.Embedded(), a, registry.PublishOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

// TestAllowedToolsAreJudgedAsPermissions: an experimental skill whose
// allowed-tools pre-approves Bash(*) Write Edit WebFetch while it declares
// no permission used to install with --allow-experimental alone. Its
// tools now count as shell:execute, filesystem:write and network:read,
// capped by the experimental ceiling like declared permissions; tools
// skillpm cannot map need consent.
func TestAllowedToolsAreJudgedAsPermissions(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publishRaw("tooly", "---\nname: tooly\ndescription: Tools in all but name. Use in tests.\nversion: 1.0.0\nallowed-tools: Bash(*) Write Edit WebFetch\n---\n# tooly\n")
	reg.publishRaw("odd", "---\nname: odd\ndescription: An unknown tool. Use in tests.\nversion: 1.0.0\nallowed-tools:\n  - Teleport\n---\n# odd\n")
	root := filepath.Join(t.TempDir(), "root")
	_, err := reg.installRefs(root, []string{"tooly"}, nil)
	if !errors.Is(err, tiers.ErrRefused) || !strings.Contains(err.Error(), "shell:execute") {
		t.Fatalf("install of tooly: %v, want a refusal naming shell:execute", err)
	}
	res, err := reg.installRefs(root, []string{"tooly"}, func(o *Options) { o.Grants = []string{"shell:execute", "filesystem:write", "network:read"} })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range res.Plan[0].Grants {
		got = append(got, g.Permission+"/"+g.By)
	}
	if want := "filesystem:write/grant network:read/tier shell:execute/grant"; strings.Join(got, " ") != want {
		t.Errorf("grants %v, want %s", got, want)
	}
	_, err = reg.installRefs(root, []string{"odd"}, nil)
	if !errors.Is(err, tiers.ErrNeedsConsent) || !strings.Contains(err.Error(), "Teleport") {
		t.Fatalf("install of odd: %v, want a consent refusal naming Teleport", err)
	}
	if _, err := reg.installRefs(root, []string{"odd"}, func(o *Options) { o.Yes = true }); err != nil {
		t.Fatal(err)
	}
}
