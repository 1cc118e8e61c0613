package hosts

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// skillsCLIExtract is the agents table of the pinned npm package skills
// (Vercel's skills CLI), checked in as testdata/skills-agents-VERSION.json.
type skillsCLIExtract struct {
	Package string `json:"package"`
	Agents  []struct {
		ID      string  `json:"id"`
		Name    string  `json:"name"`
		Project string  `json:"project"`
		User    *string `json:"user"`
	} `json:"agents"`
}

// skillsCLIVersion is the pinned skills package; skillsCLIExtractFile is its
// agents table as testdata/skills-agents.mjs prints it (the integration
// test TestSkillsCLIPackage checks the two agree, and compares another
// release with the table when asked).
const (
	skillsCLIVersion     = "1.7.4"
	skillsCLIExtractFile = "testdata/skills-agents-" + skillsCLIVersion + ".json"
)

var varDirRE = regexp.MustCompile(`^\$\{(\w+):-([^}]+)\}(?:/(.*))?$`)

// skillsCLIDir reads a globalSkillsDir of the extract: "${VAR:-default}/join"
// or a plain path.
func skillsCLIDir(s string) Dir {
	if m := varDirRE.FindStringSubmatch(s); m != nil {
		return Dir{Env: m[1], Dir: m[2], Join: m[3]}
	}
	return Dir{Dir: s}
}

// TestSkillsCLITable compares the table with the agents of the pinned
// skills package: every agent must be a host (through skills_cli), a host
// whose roots come from that table alone must place them as it does, and a
// host read in its own code may differ, each difference reported (go test
// -v shows the report: additions, differences, names).
func TestSkillsCLITable(t *testing.T) {
	data, err := os.ReadFile(skillsCLIExtractFile)
	if err != nil {
		t.Fatal(err)
	}
	var ex skillsCLIExtract
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex.Agents) < 79 {
		t.Fatalf("%s: %d agents, want the 79 of %s", skillsCLIExtractFile, len(ex.Agents), ex.Package)
	}
	compareSkillsCLI(t, ex)
}

// compareSkillsCLI fails on an agent of ex missing from the table or
// placed differently by a host whose roots come from that table alone, and
// logs the additions and the differences the hosts' own code explains.
func compareSkillsCLI(t *testing.T, ex skillsCLIExtract) {
	t.Helper()
	tb := Builtin()
	byCLI := map[string]Host{}
	for _, h := range tb.Hosts() {
		if h.SkillsCLI == "" {
			continue
		}
		if o, dup := byCLI[h.SkillsCLI]; dup {
			t.Errorf("hosts %s and %s both claim skills_cli %s", o.ID, h.ID, h.SkillsCLI)
		}
		byCLI[h.SkillsCLI] = h
	}
	if n := len(tb.IDs()); n < len(ex.Agents) {
		t.Errorf("%d hosts, fewer than the %d agents of %s", n, len(ex.Agents), ex.Package)
	}
	// Every variable either table names, set to an absolute directory, and
	// none: a root must land in the same place under both.
	vars := map[string]string{}
	for _, h := range tb.Hosts() {
		for _, d := range append(append([]Dir{}, h.User...), h.Project...) {
			if d.Env != "" {
				vars[d.Env] = "/var/" + d.Env
			}
		}
	}
	for _, a := range ex.Agents {
		if a.User != nil {
			if d := skillsCLIDir(*a.User); d.Env != "" {
				vars[d.Env] = "/var/" + d.Env
			}
		}
	}
	envs := map[string]Env{"defaults": env(nil), "variables set": env(vars)}

	seen := map[string]bool{}
	var differ, names []string
	for _, a := range ex.Agents {
		seen[a.ID] = true
		h, ok := byCLI[a.ID]
		if !ok {
			t.Errorf("%s agent %s (%s) is not in the hosts table: add it with skills_cli: %s", ex.Package, a.ID, a.Name, a.ID)
			continue
		}
		if h.Name != a.Name {
			names = append(names, h.ID+" "+strQ(h.Name)+" is "+strQ(a.Name)+" there")
		}
		vercelOnly := strings.HasPrefix(sourceOf(h, "roots"), "skills@")
		var why []string
		for _, en := range []string{"defaults", "variables set"} {
			e := envs[en]
			proj := Dir{Dir: a.Project}
			if p, _ := proj.Resolve(e); !slices.Contains(resolveAll(h.Project, e), p) {
				why = append(why, en+": project root "+a.Project+" is not one of "+h.ID+"'s")
			}
			if a.User == nil {
				if len(h.User) > 0 {
					why = append(why, en+": no user root there, "+h.ID+" has one")
				}
				continue
			}
			if p, _ := skillsCLIDir(*a.User).Resolve(e); !slices.Contains(resolveAll(h.User, e), p) {
				why = append(why, en+": user root "+*a.User+" = "+p+" is not one of "+h.ID+"'s "+strings.Join(resolveAll(h.User, e), ", "))
			}
		}
		if len(why) == 0 {
			continue
		}
		if vercelOnly {
			t.Errorf("%s: its roots come from %s alone, yet differ from it:\n  %s", h.ID, ex.Package, strings.Join(why, "\n  "))
			continue
		}
		differ = append(differ, h.ID+" ("+a.ID+"), following "+sourceOf(h, "roots")+":\n    "+strings.Join(why, "\n    "))
	}
	var added []string
	for _, h := range tb.Hosts() {
		if h.SkillsCLI == "" {
			added = append(added, h.ID)
		} else if !seen[h.SkillsCLI] {
			t.Errorf("%s: skills_cli %s is not an agent of %s", h.ID, h.SkillsCLI, ex.Package)
		}
	}
	sort.Strings(differ)
	t.Logf("%s: %d agents, all in the table; %d hosts", ex.Package, len(ex.Agents), len(tb.IDs()))
	t.Logf("additions (hosts %s lacks): %s", ex.Package, strings.Join(added, ", "))
	t.Logf("differences, the host's own code or behaviour followed (%d):\n  %s", len(differ), strings.Join(differ, "\n  "))
	t.Logf("display names that differ (%d): %s", len(names), strings.Join(names, "; "))
}

func resolveAll(ds []Dir, e Env) []string {
	var out []string
	for _, d := range ds {
		if p, err := d.Resolve(e); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// sourceOf returns the ref of the host's first source for fact.
func sourceOf(h Host, fact string) string {
	for _, s := range h.Citations {
		if s.Fact == fact {
			return s.Ref
		}
	}
	return ""
}

func strQ(s string) string { return `"` + s + `"` }
