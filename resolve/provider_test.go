package resolve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// memProvider is an in-memory Provider that counts calls, so tests can hold
// the solver to one Versions call per skill and one Dependencies call per
// version.
type memProvider struct {
	pkgs     map[string][]memVersion // a key without versions: a skill with none
	reversed bool                    // list versions newest first
	vcalls   map[string]int
	dcalls   map[string]int
	failOn   string // name whose Versions call fails with a non-NotFound error
}

type memVersion struct {
	v    *semver.Version
	deps map[string]string
}

func newMemProvider() *memProvider {
	return &memProvider{pkgs: map[string][]memVersion{}, vcalls: map[string]int{}, dcalls: map[string]int{}}
}

func (m *memProvider) add(name, version string, deps map[string]string) {
	if version == "" {
		if _, ok := m.pkgs[name]; !ok {
			m.pkgs[name] = nil
		}
		return
	}
	m.pkgs[name] = append(m.pkgs[name], memVersion{v: semver.MustParse(version), deps: deps})
}

func (m *memProvider) Versions(ctx context.Context, name string) ([]*semver.Version, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.vcalls[name]++
	if name == m.failOn {
		return nil, fmt.Errorf("registry unreachable")
	}
	vs, ok := m.pkgs[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	out := make([]*semver.Version, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.v)
	}
	if m.reversed {
		slices.Reverse(out)
	}
	return out, nil
}

func (m *memProvider) Dependencies(ctx context.Context, name string, v *semver.Version) (map[string]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.dcalls[name+"@"+v.String()]++
	for _, mv := range m.pkgs[name] {
		if mv.v.Equal(v) {
			return mv.deps, nil
		}
	}
	return nil, fmt.Errorf("%s@%s: %w", name, v, ErrNotFound)
}

// checkCalls fails the test if any skill was listed or any version read
// more than once.
func (m *memProvider) checkCalls(t *testing.T) {
	t.Helper()
	for k, n := range m.vcalls {
		if n > 1 {
			t.Errorf("Versions(%s) called %d times", k, n)
		}
	}
	for k, n := range m.dcalls {
		if n > 1 {
			t.Errorf("Dependencies(%s) called %d times", k, n)
		}
	}
}

// parseDeps reads "code ^2, lint >=1.0, <2.0" into a map. Commas separate
// requirements and also appear inside ranges, so a comma-separated piece
// starts a new requirement only when it begins with a skill name followed
// by a range.
func parseDeps(s string) (map[string]string, error) {
	deps := map[string]string{}
	last := ""
	for _, piece := range strings.Split(s, ",") {
		f := strings.Fields(piece)
		if len(f) >= 2 && isSkillName(f[0]) {
			last = f[0]
			if _, dup := deps[last]; dup {
				return nil, fmt.Errorf("duplicate requirement on %s", last)
			}
			deps[last] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(piece), f[0]))
			continue
		}
		if last == "" {
			return nil, fmt.Errorf("requirement %q has no skill name", piece)
		}
		deps[last] += "," + piece
	}
	return deps, nil
}

func isSkillName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	// "v1" is a version, not a name.
	return !(s[0] == 'v' && len(s) > 1 && s[1] >= '0' && s[1] <= '9')
}

func formatSolution(sol Solution) string {
	var b strings.Builder
	for _, n := range sol.Names() {
		fmt.Fprintf(&b, "%s %s\n", n, sol[n])
	}
	return b.String()
}
