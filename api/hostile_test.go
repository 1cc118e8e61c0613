package api_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/api"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/skill"
)

// bombSkills are signed community skills whose files once crashed or
// stalled the audit: 900 KB of nested "$( overflowed the Go stack and
// killed the whole server, and 640 KB of "> " or "[a](" kept goldmark
// busy for minutes while the root was locked.
var bombSkills = []testSkill{
	{name: "notes", version: "1.0.0"},
	{name: "shbomb", version: "1.0.0", files: map[string]string{"run.sh": "#!/bin/sh\necho " + strings.Repeat(`"$(`, 300_000) + "x\n"}},
	{name: "quotebomb", version: "1.0.0", files: map[string]string{"notes.md": strings.Repeat("> ", 320_000) + "x\n"}},
	{name: "linkbomb", version: "1.0.0", files: map[string]string{"notes.md": strings.Repeat("[a](", 160_000) + "\n"}},
}

// TestHostileSkillsDoNotStopTheServer installs each bomb through the API:
// the shell bomb is refused by the audit (opaque code blocks at
// community), the Markdown bombs install with the audit's warning that
// their analysis was incomplete, and the server answers the next request.
func TestHostileSkillsDoNotStopTheServer(t *testing.T) {
	f := newFixtureWith(t, bombSkills, nil)
	var e errBody
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "shbomb", Host: "claude"}, nil, &e); st != http.StatusUnprocessableEntity || e.Error.ClassName != "trust" || !strings.Contains(e.Error.Message, "AUD-CODE-OPAQUE") {
		t.Fatalf("shell bomb: %d %+v", st, e)
	}
	if _, err := os.Stat(filepath.Join(f.home, ".claude", "skills", "shbomb")); !os.IsNotExist(err) {
		t.Fatalf("a refused install wrote the root: %v", err)
	}
	for _, name := range []string{"quotebomb", "linkbomb"} {
		var res api.InstallResult
		if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: name, Host: "claude"}, nil, &res); st != http.StatusCreated {
			t.Fatalf("%s: %d %+v", name, st, res)
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), name+": audit verdict review") {
			t.Errorf("%s: no audit warning in %q", name, res.Warnings)
		}
	}
	var res api.InstallResult
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "notes", Host: "claude"}, nil, &res); st != http.StatusCreated {
		t.Fatalf("the next install: %d %+v", st, res)
	}
}

// crashingAuditor panics, as an audit that meets input it cannot handle
// would.
type crashingAuditor struct{}

func (crashingAuditor) Audit(context.Context, string, skill.Tier) (install.AuditVerdict, error) {
	panic("audit bug")
}

// TestPanicFailsOneRequest: a panic while handling a request, in the
// handler or in the install's audit goroutines, fails that request with a
// 500 and the code "internal", and the server serves the next one.
func TestPanicFailsOneRequest(t *testing.T) {
	var warned []string
	f := newFixture(t, func(c *api.Config) {
		c.Auditor = crashingAuditor{}
		c.Search = func(context.Context, string) (any, error) { panic("search bug") }
		c.Warn = func(s string) { warned = append(warned, s) }
	})
	var e errBody
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "notes", Host: "claude"}, nil, &e); st != http.StatusInternalServerError || e.Error.ClassName != "internal" || !strings.Contains(e.Error.Message, "auditing notes") {
		t.Fatalf("install with a crashing audit: %d %+v", st, e)
	}
	if _, err := os.Stat(filepath.Join(f.home, ".claude", "skills", "notes")); !os.IsNotExist(err) {
		t.Fatalf("an install whose audit failed wrote the root: %v", err)
	}
	e = errBody{}
	if st := f.do("GET", "/api/skills/search?q=x", nil, nil, &e); st != http.StatusInternalServerError || e.Error.ClassName != "internal" || !strings.Contains(e.Error.Message, "search bug") {
		t.Fatalf("search that panics: %d %+v", st, e)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "search bug") {
		t.Errorf("warned %q", warned)
	}
	var l listBody
	if st := f.do("GET", "/api/skills", nil, nil, &l); st != http.StatusOK {
		t.Fatalf("the next request: %d", st)
	}
}
